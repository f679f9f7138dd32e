-- A census (src/store/census.rs, POST /v1/octal/census): one job per game code, all created in
-- one transaction with the census. `codes`: the canonical codes in the census's order, one per
-- line. `keep_window` NULL: the jobs keep every value. `cancelled_at`: set by DELETE (no
-- verification job is started after it). `owner`: the API key's name (NULL on an open server).
CREATE TABLE IF NOT EXISTS census (
    id           TEXT   PRIMARY KEY,
    created_at   BIGINT NOT NULL,
    owner        TEXT,
    max_n        BIGINT NOT NULL,
    keep_window  BIGINT,
    store_values BIGINT NOT NULL,
    codes        TEXT   NOT NULL,
    cancelled_at BIGINT
);
-- One owner's censuses, newest first.
CREATE INDEX IF NOT EXISTS census_owner_created ON census (owner, created_at, id);
-- The jobs of a census: one `primary` job per code, and a `verification` job — a second run
-- from scratch — for a code whose primary job proved periodicity. The key makes the
-- verification job unique per census and code, so concurrent readers start it once.
CREATE TABLE IF NOT EXISTS census_jobs (
    census_id TEXT NOT NULL,
    code      TEXT NOT NULL,
    role      TEXT NOT NULL,
    job_id    TEXT NOT NULL,
    PRIMARY KEY (census_id, code, role)
);
