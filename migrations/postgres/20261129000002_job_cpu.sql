-- The CPU time a job has used in all, over every run on every replica, in milliseconds (the
-- job's threads' counters in /proc, src/service/cpu.rs), written with each checkpoint; NULL
-- where it was never measured (no /proc). Milliseconds as BIGINT: sqlx's Any driver sends a
-- NULL double to PostgreSQL as float4 (see Store::checkpoint).
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS cpu_ms BIGINT;
