-- _setup.sql — the starting point of every case in this folder: run 1 ('r', npu), no other rows,
-- and defaults for the key columns so that a case states only what it is about.
--
-- Each case begins with `.read _setup.sql`, so a case file also runs unchanged in the DuckDB
-- shell, from this folder, on a scratch database that has the tracedb schema and library:
--   cd tests/sql/cases && duckdb scratch.duckdb -c ".read step_breakdown.sql"
-- (the DELETEs below empty the input tables: never point it at a database you want to keep).
-- Expected rows follow each query as `-- > v1, v2, ...` lines (SQL expressions, so the hand
-- arithmetic can stay in them); a query with no `-- >` line expects no rows.
-- A case that inserts link rows then reads derive/075_comm_task.sql, as the ingest does after
-- writing them (it sets the task columns comm_task reads, for run 1 rank 0).
DELETE FROM kernel;
DELETE FROM link;
DELETE FROM step;
DELETE FROM event;
DELETE FROM run;
INSERT INTO run (run_id, run_name, platform) VALUES (1, 'r', 'npu');
CREATE SEQUENCE IF NOT EXISTS case_kernel_id;
ALTER TABLE kernel ALTER kernel_id SET DEFAULT nextval('case_kernel_id');
ALTER TABLE kernel ALTER run_id SET DEFAULT 1;
ALTER TABLE kernel ALTER rank SET DEFAULT 0;
ALTER TABLE kernel ALTER file_id SET DEFAULT 0;
ALTER TABLE kernel ALTER is_communication SET DEFAULT false;
ALTER TABLE kernel ALTER source SET DEFAULT 'case';
ALTER TABLE step ALTER run_id SET DEFAULT 1;
ALTER TABLE step ALTER rank SET DEFAULT 0;
ALTER TABLE link ALTER run_id SET DEFAULT 1;
ALTER TABLE link ALTER rank SET DEFAULT 0;
ALTER TABLE link ALTER file_id SET DEFAULT 1;
SET VARIABLE run_id = 1;
SET VARIABLE rank = 0;
