-- Computed G-sequences, one row per canonical game code; values live in fixed-size chunks so a
-- checkpoint rewrites only the chunks that grew.
CREATE TABLE IF NOT EXISTS sequences (
    code        TEXT PRIMARY KEY,
    computed    BIGINT NOT NULL,
    periodicity TEXT,
    updated_at  BIGINT NOT NULL
);

CREATE TABLE IF NOT EXISTS sequence_chunks (
    code  TEXT NOT NULL,
    chunk BIGINT NOT NULL,
    data  BYTEA NOT NULL,
    PRIMARY KEY (code, chunk)
);

CREATE TABLE IF NOT EXISTS jobs (
    id               TEXT PRIMARY KEY,
    code             TEXT NOT NULL,
    max_n            BIGINT NOT NULL,
    status           TEXT NOT NULL,
    computed         BIGINT NOT NULL DEFAULT 0,
    rate             DOUBLE PRECISION,
    error            TEXT,
    periodicity      TEXT,
    cancel_requested BIGINT NOT NULL DEFAULT 0,
    lease_owner      TEXT,
    lease_expires_at BIGINT,
    attempts         BIGINT NOT NULL DEFAULT 0,
    created_at       BIGINT NOT NULL,
    started_at       BIGINT,
    finished_at      BIGINT,
    updated_at       BIGINT NOT NULL
);

CREATE INDEX IF NOT EXISTS jobs_status_created ON jobs (status, created_at);
CREATE INDEX IF NOT EXISTS jobs_created ON jobs (created_at, id);
