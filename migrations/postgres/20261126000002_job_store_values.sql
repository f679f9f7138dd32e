-- Whether a window-mode job also stores every value in sequence_chunks (1) or only what it
-- needs to resume (0). Jobs that keep every value always store every value.
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS store_values BIGINT NOT NULL DEFAULT 1;
