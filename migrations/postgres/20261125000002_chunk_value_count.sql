-- Values in a chunk of format 1 (the header's count, repeated so that an upsert keeps the chunk
-- holding more values without decoding it). NULL for legacy chunks: length(data) / 4 values.
ALTER TABLE sequence_chunks ADD COLUMN IF NOT EXISTS value_count BIGINT;
