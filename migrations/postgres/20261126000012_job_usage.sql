-- Heaps (max_n) requested per owner and UTC day (day = milliseconds since the epoch / 86400000),
-- for the per-key quota GRUNDY_QUOTA_HEAPS_PER_DAY. Kept apart from the jobs so that deleting a
-- finished job does not give its heaps back; rows older than a month are deleted on submission.
CREATE TABLE IF NOT EXISTS job_usage (
    owner TEXT   NOT NULL,
    day   BIGINT NOT NULL,
    heaps BIGINT NOT NULL,
    PRIMARY KEY (owner, day)
);
