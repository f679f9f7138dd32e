-- A window-mode job's kept values: the chunks of its front and of its tail, in the format of
-- sequence_chunks (src/store/chunk.rs). Chunks between the front and the tail are deleted as
-- the tail moves on.
CREATE TABLE IF NOT EXISTS job_window_chunks (
    job_id      TEXT NOT NULL,
    chunk       BIGINT NOT NULL,
    format      BIGINT NOT NULL,
    value_count BIGINT NOT NULL,
    data        BLOB NOT NULL,
    PRIMARY KEY (job_id, chunk)
);
