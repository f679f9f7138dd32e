-- The tables' statistics of the job's values (src/core/octal/statistics.rs, Statistics::to_bytes),
-- saved with every checkpoint.
ALTER TABLE jobs ADD COLUMN statistics BLOB;
