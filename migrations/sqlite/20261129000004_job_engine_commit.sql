-- The git commit of the engine that computed a job's latest values
-- (grundy::core::octal::ENGINE_COMMIT, from build.rs; `unknown` for a build without git or
-- GRUNDY_GIT_COMMIT). NULL before the job first ran.
ALTER TABLE jobs ADD COLUMN engine_commit TEXT;
