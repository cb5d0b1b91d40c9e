-- Baseline/comparison settings and the stored op alignment: what the compare views read besides
-- the op tree. Written by `tracedb compare` (or by users with SQL); read by queries/compare/*.

CREATE TABLE IF NOT EXISTS op_name_map (
    baseline_name   VARCHAR NOT NULL,
    comparison_name VARCHAR NOT NULL
);
COMMENT ON TABLE op_name_map IS 'Framework op names that mean the same op on both sides (msprof-analyze --op_name_map), e.g. Optimizer.step#SGD.step = Optimizer.step#NpuFusedSGD.step. Every compare view and the alignment count an op named baseline_name as comparison_name; like msprof-analyze the map is applied to the op names of both runs, so a pair written the other way round still lines up. Filled by tracedb compare --op-name-map / --op-name-map-file, or with INSERT.';
COMMENT ON COLUMN op_name_map.baseline_name IS 'Op name as written in one run (usually the baseline), e.g. Optimizer.step#SGD.step.';
COMMENT ON COLUMN op_name_map.comparison_name IS 'The name it is compared under (the other run''s name), e.g. Optimizer.step#NpuFusedSGD.step.';

-- Shipped rows (data, not code): one op that PyTorch versions spell differently. PyTorch >= 1.10
-- records each autograd node under the op "autograd::engine::evaluate_function: <node>", older
-- versions as "<node>"; AccumulateGrad keeps its node name across versions, so the two spellings
-- are one op (other nodes changed their names too: CudnnConvolutionBackward ->
-- ConvolutionBackward0, and tracedb compare suggests --op-name-map for them). Inserted when
-- missing each time a tracedb version applies the schema; msprof-analyze compares without it
-- (DELETE the row to reproduce its alignment exactly).
INSERT INTO op_name_map
SELECT t.baseline_name, t.comparison_name
FROM (VALUES ('autograd::engine::evaluate_function: torch::autograd::AccumulateGrad',
              'torch::autograd::AccumulateGrad')) AS t(baseline_name, comparison_name)
WHERE NOT EXISTS (SELECT 1 FROM op_name_map AS m WHERE m.baseline_name = t.baseline_name);

CREATE TABLE IF NOT EXISTS compare_step (
    run_id INTEGER NOT NULL,
    step   INTEGER NOT NULL
);
COMMENT ON TABLE compare_step IS 'Step restriction of the compare views: a run with rows here is compared on these steps only (tracedb compare --baseline-step / --comparison-step); a run without rows on all its steps.';
COMMENT ON COLUMN compare_step.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN compare_step.step IS 'Step number (step.step, ProfilerStep#N) to keep.';

CREATE TABLE IF NOT EXISTS op_match (
    baseline_run_id   INTEGER NOT NULL,
    comparison_run_id INTEGER NOT NULL,
    order_id          BIGINT NOT NULL,
    baseline_rank     INTEGER,
    baseline_op_id    BIGINT,
    comparison_rank   INTEGER,
    comparison_op_id  BIGINT,
    match_key         VARCHAR
);
COMMENT ON TABLE op_match IS 'The op alignment of a (baseline run, comparison run) pair, msprof-analyze OperatorCompare: one row per aligned pair in execution order, a row with one side NULL for an op the other side lacks. Computed by tracedb compare (tracedb/compare.py): top-level ops (children of ProfilerStep#N, roots outside steps) per rank pair, cut into forward/backward segments, matched with difflib.SequenceMatcher (autojunk off) on the op name after op_name_map (+ input dims with --use-input-shape), matched pairs with more than --max-kernel-num kernels drilled down into their children. Ranks are paired in rank order (baseline i-th with comparison i-th).';
COMMENT ON COLUMN op_match.baseline_run_id IS 'Baseline run (run.run_id).';
COMMENT ON COLUMN op_match.comparison_run_id IS 'Comparison run (run.run_id).';
COMMENT ON COLUMN op_match.order_id IS 'Position of the pair in the alignment, 1, 2, ... over all rank pairs (msprof-analyze Order Id).';
COMMENT ON COLUMN op_match.baseline_rank IS 'Rank of the baseline op; NULL when the row has no baseline op.';
COMMENT ON COLUMN op_match.baseline_op_id IS 'Baseline op (op.op_id within baseline run and rank); NULL when the comparison op is unmatched.';
COMMENT ON COLUMN op_match.comparison_rank IS 'Rank of the comparison op; NULL when the row has no comparison op.';
COMMENT ON COLUMN op_match.comparison_op_id IS 'Comparison op (op.op_id within comparison run and rank); NULL when the baseline op is unmatched.';
COMMENT ON COLUMN op_match.match_key IS 'The key the ops were matched on (mapped op name, + input dims with --use-input-shape); NULL for an unmatched row.';

CREATE TABLE IF NOT EXISTS module_match (
    baseline_run_id      INTEGER NOT NULL,
    comparison_run_id    INTEGER NOT NULL,
    order_id             BIGINT NOT NULL,
    baseline_rank        INTEGER,
    baseline_module_id   BIGINT,
    comparison_rank      INTEGER,
    comparison_module_id BIGINT
);
COMMENT ON TABLE module_match IS 'The module alignment of a (baseline run, comparison run) pair, msprof-analyze ModuleCompare: one row per aligned pair of modules (table module), a row with one side NULL for a module the other side lacks. Computed with op_match (tracedb/compare.py align_modules): per rank pair and tree (forward, backward), breadth first from the top modules, the children of each pair matched with difflib.SequenceMatcher (autojunk off) on the module path after op_name_map; ordered by the baseline module start, comparison-only modules placed by their start.';
COMMENT ON COLUMN module_match.baseline_run_id IS 'Baseline run (run.run_id).';
COMMENT ON COLUMN module_match.comparison_run_id IS 'Comparison run (run.run_id).';
COMMENT ON COLUMN module_match.order_id IS 'Position of the pair in the alignment, 1-based (msprof-analyze Order Id).';
COMMENT ON COLUMN module_match.baseline_rank IS 'Rank of the baseline module; NULL when the comparison module has no partner.';
COMMENT ON COLUMN module_match.baseline_module_id IS 'Baseline module (module.module_id); NULL when unmatched on this side.';
COMMENT ON COLUMN module_match.comparison_rank IS 'Rank of the comparison module; NULL when the baseline module has no partner.';
COMMENT ON COLUMN module_match.comparison_module_id IS 'Comparison module (module.module_id); NULL when unmatched on this side.';
