-- What a job computes (src/store/jobs.rs): 'sequence' (an octal sequence, every job written
-- before this migration, and a census's jobs) or 'misere_quotient' (a misère quotient Q_n:
-- code, max_n = n).
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS kind TEXT NOT NULL DEFAULT 'sequence';
