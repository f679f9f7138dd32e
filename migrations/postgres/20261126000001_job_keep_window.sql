-- Window mode (src/core/octal/window.rs): a job that keeps only a front and a window of its
-- values. NULL: the job keeps every value (all jobs before this migration).
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS keep_window BIGINT;
