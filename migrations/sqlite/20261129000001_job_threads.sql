-- What computed a job (issue 41, src/store/jobs.rs RunRecord): the threads its engine runs on
-- now, or ran on last (NULL before it first ran), written with each checkpoint. SQLite has no
-- ADD COLUMN IF NOT EXISTS: one column per migration (Store::remigrate).
ALTER TABLE jobs ADD COLUMN threads BIGINT;
