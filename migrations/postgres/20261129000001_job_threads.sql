-- What computed a job (issue 41, src/store/jobs.rs RunRecord): the threads its engine runs on
-- now, or ran on last (NULL before it first ran), written with each checkpoint.
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS threads BIGINT;
