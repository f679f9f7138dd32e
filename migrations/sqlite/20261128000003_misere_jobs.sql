-- Misère-quotient jobs (src/store/misere_jobs.rs).
--
-- The last verified quotient Q_heap a computation of Q_bound of `code` saved (the JSON record
-- of src/store/quotients.rs), to resume from after a crash or a restart: one row per
-- computation (code, bound), written by the job holding the lease, checked again before it is
-- used, deleted once no queued or running job computes that quotient.
CREATE TABLE IF NOT EXISTS misere_job_states (
    code       TEXT   NOT NULL,
    bound      BIGINT NOT NULL,
    heap       BIGINT NOT NULL,
    data       TEXT   NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (code, bound)
);
-- One queued or running job per owner and quotient: a second request joins the first.
CREATE UNIQUE INDEX IF NOT EXISTS jobs_misere_active ON jobs (code, max_n, COALESCE(owner, ''))
    WHERE kind = 'misere_quotient' AND status IN ('queued', 'running');
-- One computation per quotient across replicas: at most one such job runs.
CREATE UNIQUE INDEX IF NOT EXISTS jobs_misere_running ON jobs (code, max_n)
    WHERE kind = 'misere_quotient' AND status = 'running';
-- The list filtered by kind.
CREATE INDEX IF NOT EXISTS jobs_kind_created ON jobs (kind, created_at, id);
