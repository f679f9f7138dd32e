-- One owner's jobs, newest first (GET /v1/octal/jobs with a key), and their count by status
-- (the quota on queued and running jobs).
CREATE INDEX IF NOT EXISTS jobs_owner_created ON jobs (owner, created_at, id);
