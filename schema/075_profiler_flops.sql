-- MindSpore's own FLOPs files (1.x–2.x Ascend profiler: flops_summary_{rank}.json,
-- flops_scope_{rank}.json), kept as the profiler wrote them: the reference beside tracedb's
-- op_flops / rank_flops.

CREATE TABLE IF NOT EXISTS profiler_flops_summary (
    run_id              INTEGER NOT NULL,
    rank                INTEGER NOT NULL,
    file_id             INTEGER NOT NULL,
    total_mflop         DOUBLE,
    avg_op_gflops       DOUBLE,
    utilization_pct     DOUBLE,
    cube_mflop          DOUBLE,
    cube_gflops         DOUBLE,
    vector_mflop        DOUBLE,
    vector_gflops       DOUBLE
);
COMMENT ON TABLE profiler_flops_summary IS 'flops_summary_{rank}.json as MindSpore wrote it (one row per file). MindSpore 1.x (FlopsParser): FLOPs = Σ over the distinct AI Core ops of one execution''s FLOPs (PMU counts: cube fp16 instructions x 16³ x 2 + int8 x 16·16·32·2 + vector lanes), MFLOP; FLOPS = mean over those ops of FLOPs / average op time, GFLOPS; FLOPS_Utilization = mean over steps of (FLOPs in the fp–bp window / its time) / peak, % (peak = aic_frequency x ai_core_num x 4096 x 2). MindSpore 2.x (AscendFlopsGenerator): cube_FLOPs / vec_FLOPs (Σ of op_summary cube_fops / vector_fops, MFLOP) and cube_FLOPS / vec_FLOPS. Reference only: rank_flops shows it for ranks whose FLOPs tracedb cannot compute.';
COMMENT ON COLUMN profiler_flops_summary.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN profiler_flops_summary.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN profiler_flops_summary.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN profiler_flops_summary.total_mflop IS '"FLOPs" (MindSpore 1.x), 10^6 floating-point operations; NULL when absent.';
COMMENT ON COLUMN profiler_flops_summary.avg_op_gflops IS '"FLOPS" (MindSpore 1.x): mean over the AI Core ops of their FLOPs per second, 10^9 FLOP/s (what MindInsight''s cluster page and its -20 % slow-rank rule compare).';
COMMENT ON COLUMN profiler_flops_summary.utilization_pct IS '"FLOPS_Utilization" (MindSpore 1.x): mean over steps of the step''s FLOPS / the chip peak, 0–100.';
COMMENT ON COLUMN profiler_flops_summary.cube_mflop IS '"cube_FLOPs" (MindSpore 2.x), 10^6 floating-point operations of the Cube.';
COMMENT ON COLUMN profiler_flops_summary.cube_gflops IS '"cube_FLOPS" (MindSpore 2.x) as written (Σ per-op GFLOPS / Σ op durations).';
COMMENT ON COLUMN profiler_flops_summary.vector_mflop IS '"vec_FLOPs" (MindSpore 2.x), 10^6 floating-point operations of the vector units.';
COMMENT ON COLUMN profiler_flops_summary.vector_gflops IS '"vec_FLOPS" (MindSpore 2.x) as written.';

CREATE TABLE IF NOT EXISTS profiler_flops_scope (
    run_id        INTEGER NOT NULL,
    rank          INTEGER NOT NULL,
    file_id       INTEGER NOT NULL,
    link_id       INTEGER NOT NULL,
    source_scope  VARCHAR NOT NULL,
    target_scope  VARCHAR NOT NULL,
    mflop         DOUBLE,
    max_scope_num INTEGER
);
COMMENT ON TABLE profiler_flops_scope IS 'flops_scope_{rank}.json (MindSpore 1.x): the FLOPs Sankey diagram, one row per link "source → target" (scope → sub-scope of the op full names, "Total" → Default / Gradients / recompute_Default at the top); the links out of Total add up to flops_summary FLOPs (to the 0.001 MFLOP rounding of each link).';
COMMENT ON COLUMN profiler_flops_scope.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN profiler_flops_scope.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN profiler_flops_scope.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN profiler_flops_scope.link_id IS 'Position of the link in data.links, 1-based.';
COMMENT ON COLUMN profiler_flops_scope.source_scope IS 'Link "source": the enclosing scope (Total for the top).';
COMMENT ON COLUMN profiler_flops_scope.target_scope IS 'Link "target": the sub-scope, suffixed by MindSpore with its top-level scope, e.g. conv1-Conv2d(Default).';
COMMENT ON COLUMN profiler_flops_scope.mflop IS 'Link "value": FLOPs of the ops under target, 10^6 floating-point operations (rounded to 3 decimals by MindSpore).';
COMMENT ON COLUMN profiler_flops_scope.max_scope_num IS '"max_scope_num": the deepest scope nesting of the file.';
