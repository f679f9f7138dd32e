-- A misère-quotient job's progress as JSON (src/store/misere_jobs.rs): the heap reached, |Q|
-- and |P| there, the compute time and engine steps spent over all its runs, and the heap it
-- last resumed from. NULL for sequence jobs.
ALTER TABLE jobs ADD COLUMN quotient TEXT;
