-- A window-mode job keeps every value it drops on disk, in job_window_chunks (its archive,
-- src/store/windows.rs): archive_bytes is the bytes those chunks take, kept up to date by each
-- checkpoint; archive is the job's read-back report as JSON (reads, values read back, their
-- cost, and why the archive was rebuilt, if it ever was).
ALTER TABLE jobs ADD COLUMN archive_bytes BIGINT NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN archive TEXT;
