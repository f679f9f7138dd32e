-- The engine that computed a job's latest values, to cite with a result: its crate version
-- (grundy::core::octal::ENGINE_VERSION) here, its git commit in the next migration. NULL
-- before the job first ran.
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS engine_version TEXT;
