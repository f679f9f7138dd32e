-- The name of the API key that submitted a job (src/store/owners.rs); NULL for jobs submitted to
-- an open server and for every job written before this migration. Never the key itself.
-- SQLite has no ADD COLUMN IF NOT EXISTS: the ALTER has a migration of its own (Store::remigrate).
ALTER TABLE jobs ADD COLUMN owner TEXT;
