-- How a chunk's data is encoded (src/store/chunk.rs): 0 = legacy, the values as u32
-- little-endian with no header (every row written before this migration); 1 = a header (magic,
-- width, count) and the values in the chunk's narrowest width, zstd-compressed.
ALTER TABLE sequence_chunks ADD COLUMN IF NOT EXISTS format BIGINT NOT NULL DEFAULT 0;
