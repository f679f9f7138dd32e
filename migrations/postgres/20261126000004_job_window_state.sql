-- A window-mode job's engine state besides its values (the kept front length, the tail's first
-- heap, the rare/common mask): src/store/windows.rs.
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS window_state BYTEA;
