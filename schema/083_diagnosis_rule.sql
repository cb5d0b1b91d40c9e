-- The rules the diagnosis views (input_bound, fusion_candidate, cpu_utilization ...) apply: data,
-- not code. Shipped rows have ids < 1000 (patterns) and are inserted when missing (INSERT OR
-- IGNORE), so a user's change to them survives re-installation; add your own with pattern_id
-- >= 1000, or change a threshold's value with plain SQL (UPDATE diagnosis_threshold SET value = ...
-- WHERE name = ...). The views read the tables at query time: no re-ingest needed.

CREATE TABLE IF NOT EXISTS diagnosis_threshold (
    name   VARCHAR PRIMARY KEY,
    value  DOUBLE NOT NULL,
    unit   VARCHAR NOT NULL,
    used_by VARCHAR NOT NULL,
    source VARCHAR NOT NULL,
    note   VARCHAR
);
COMMENT ON TABLE diagnosis_threshold IS 'Thresholds of the diagnosis views, one row each: the value a verdict column compares against, with the reference it comes from. Change value with SQL to apply your own.';
COMMENT ON COLUMN diagnosis_threshold.name IS 'Threshold key, <view>.<what> (input_bound.dataloader_ratio ...).';
COMMENT ON COLUMN diagnosis_threshold.value IS 'The threshold, in unit.';
COMMENT ON COLUMN diagnosis_threshold.unit IS 'ratio (0-1), ns, pct (0-100) or count.';
COMMENT ON COLUMN diagnosis_threshold.used_by IS 'View and column that compare against it.';
COMMENT ON COLUMN diagnosis_threshold.source IS 'Where the value comes from: the reference tool, file and constant (or tracedb when it is our own choice, with the reason in note).';
COMMENT ON COLUMN diagnosis_threshold.note IS 'What the threshold means.';

INSERT OR IGNORE INTO diagnosis_threshold (name, value, unit, used_by, source, note) VALUES
    ('input_bound.dataloader_ratio', 0.05, 'ratio', 'input_bound.is_input_bound',
     'PyTorch TensorBoard profiler (pytorch/kineto tb_plugin, torch_tb_profiler/profiler/data.py RunProfileData.analyze: dataloader_ratio > 0.05 gives the recommendation "This run has high time cost on input data loading ... try to set num_workers")',
     'data-loading share of the host step above which the step waits for its input'),
    ('input_bound.iteration_interval_ns', 500000, 'ns', 'input_bound.is_input_bound',
     'MindInsight StepTraceProposer (mindinsight/profiler/proposer/allproposers/step_trace_proposer.py: __step_trace_iter_interval_threshold = 0.5 ms gives the step_trace-iter_interval proposal, check the data pipeline)',
     'MindSpore iteration interval (step start to forward start: the device waiting for the next batch) above which the step is input-bound'),
    ('input_bound.device_queue_empty_ratio', 0.3, 'ratio', 'input_bound.is_input_bound',
     'MindInsight minddata_analyser.py DEVICE_QUEUE_EMPTY_WARNING_THRESHOLD = 0.3 (empty batches / total batches of the device queue gives the data_process warning)',
     'share of the device-queue samples that found the queue empty above which the data pipeline is the bottleneck'),
    ('cpu_utilization.per_worker_max_pct', 75, 'pct', 'cpu_utilization.verdict',
     'MindSpore BottleneckAnalyzer (mindspore/profiler/parser/minddata_analyzer.py: _AVG_CPU_UTIL_PCT_PER_WORKER_MAXIMUM = 75.0, "Try increasing num_parallel_workers")',
     'average CPU per worker of a pipeline op above which more workers would help'),
    ('cpu_utilization.per_worker_min_pct', 20, 'pct', 'cpu_utilization.verdict',
     'MindSpore BottleneckAnalyzer (_AVG_CPU_UTIL_PCT_PER_WORKER_MINIMUM = 20.0, "num_parallel_workers might not bring as much benefit")',
     'average CPU per worker of a multi-worker pipeline op below which its workers mostly wait'),
    ('fusion_candidate.short_kernel_ns', 10000, 'ns', 'fusion_candidate (kernels without a known launch call)',
     'tracedb: a kernel launch costs a few µs on the host (HolisticTraceAnalysis kernel launch stats call a kernel short when it runs shorter than its launch call; without the launch call, 10 µs stands for that cost)',
     'a kernel shorter than this counts as short when its launch call is unknown');

CREATE TABLE IF NOT EXISTS fusion_pattern (
    pattern_id    INTEGER PRIMARY KEY,
    platform      VARCHAR,
    name          VARCHAR NOT NULL,
    scope         VARCHAR NOT NULL,
    scope_pattern VARCHAR,
    match_field   VARCHAR NOT NULL,
    pattern       VARCHAR NOT NULL,
    min_kernels   INTEGER NOT NULL,
    short_only    BOOLEAN NOT NULL,
    enabled       BOOLEAN NOT NULL DEFAULT true,
    fix           VARCHAR,
    source        VARCHAR NOT NULL
);
COMMENT ON TABLE fusion_pattern IS 'Kernel runs worth fusing, as patterns fusion_candidate looks for (shipped: pattern_id < 1000; add yours with pattern_id >= 1000): consecutive kernels of one stream whose match_field matches pattern, launched within one scope, at least min_kernels of them.';
COMMENT ON COLUMN fusion_pattern.pattern_id IS 'Pattern key; shipped patterns < 1000.';
COMMENT ON COLUMN fusion_pattern.platform IS 'gpu or npu (run.platform); NULL = every platform.';
COMMENT ON COLUMN fusion_pattern.name IS 'Pattern name shown by fusion_candidate (optimizer_elementwise, elementwise_chain, transdata_pair ...).';
COMMENT ON COLUMN fusion_pattern.scope IS 'What the kernels of a run must share besides the stream: optimizer (launched inside one framework op whose name matches scope_pattern, e.g. one Optimizer.step), module (the launching op''s nn.Module path, op.module_path), op (one launching framework op, kernel.op_id) or stream (nothing more).';
COMMENT ON COLUMN fusion_pattern.scope_pattern IS 'scope optimizer: SQL LIKE pattern (case-insensitive) of the enclosing op''s name; NULL otherwise.';
COMMENT ON COLUMN fusion_pattern.match_field IS 'Kernel field the pattern is matched against: name (kernel.name), op_type (kernel.op_type) or framework_op (the launching op''s name).';
COMMENT ON COLUMN fusion_pattern.pattern IS 'SQL LIKE pattern, matched case-insensitively (lower(field) LIKE lower(pattern)).';
COMMENT ON COLUMN fusion_pattern.min_kernels IS 'Shortest run listed (the k of "runs of >= k consecutive kernels").';
COMMENT ON COLUMN fusion_pattern.short_only IS 'TRUE: only short kernels count (running shorter than their launch call; without a launch call, shorter than diagnosis_threshold fusion_candidate.short_kernel_ns).';
COMMENT ON COLUMN fusion_pattern.enabled IS 'FALSE switches the pattern off.';
COMMENT ON COLUMN fusion_pattern.fix IS 'What fusing them means, in words.';
COMMENT ON COLUMN fusion_pattern.source IS 'Where the pattern comes from (guide, reference tool).';

INSERT OR IGNORE INTO fusion_pattern
    (pattern_id, platform, name, scope, scope_pattern, match_field, pattern, min_kernels, short_only, fix, source)
VALUES
    (1, 'gpu', 'optimizer_elementwise', 'optimizer', 'Optimizer.%', 'name', '%elementwise%', 3, true,
     'one elementwise kernel per parameter: use the foreach / fused optimizer (torch.optim.<Opt>(..., foreach=True) or fused=True) and fold weight decay (scale + sum) into the optimizer step',
     'PyTorch performance tuning guide (fused / foreach optimizers); HolisticTraceAnalysis short-kernel launch stats'),
    (2, 'gpu', 'elementwise_chain', 'module', NULL, 'name', '%elementwise%', 3, true,
     'a chain of elementwise kernels in one module (add + relu, bn + add + relu): fuse them (torch.compile, a fused kernel)',
     'PyTorch performance tuning guide (fuse pointwise operations)'),
    (3, 'npu', 'transdata_pair', 'stream', NULL, 'op_type', 'TransData%', 2, false,
     'format conversions back and forth (TransData pairs): keep the tensor in one format (NPU private format end to end)',
     'Ascend PyTorch performance tuning guide (TransData elimination)'),
    (4, 'npu', 'contiguous_copy', 'op', NULL, 'op_type', '%AsStrided%', 2, false,
     'non-contiguous to contiguous copies: make the tensor contiguous once instead of before every use',
     'Ascend PyTorch performance tuning guide (non-contiguous tensors, ViewCopy / AsStrided)'),
    (5, 'npu', 'optimizer_short_kernels', 'optimizer', 'Optimizer.%', 'name', '%', 3, true,
     'many short kernels per parameter in the optimizer step: use the fused optimizer (torch_npu NpuFusedAdamW / NpuFusedSGD ..., or foreach=True)',
     'Ascend PyTorch performance tuning guide (fused optimizers)');

CREATE TABLE IF NOT EXISTS host_call_rule (
    rule_id  INTEGER PRIMARY KEY,
    pattern  VARCHAR NOT NULL,
    category VARCHAR NOT NULL,
    priority INTEGER NOT NULL,
    enabled  BOOLEAN NOT NULL DEFAULT true,
    source   VARCHAR NOT NULL
);
COMMENT ON TABLE host_call_rule IS 'What a host call (Nsight OS runtime call, CUDA / HIP runtime call, CANN call) means, for host_thread_state and host_wait: the enabled rule with the lowest priority (then rule_id) whose pattern matches the call name gives its category; no match = other (shipped: rule_id < 1000; add yours with rule_id >= 1000).';
COMMENT ON COLUMN host_call_rule.rule_id IS 'Rule key; shipped rules < 1000.';
COMMENT ON COLUMN host_call_rule.pattern IS 'SQL LIKE pattern matched case-insensitively against the call name (lower(name) LIKE lower(pattern)).';
COMMENT ON COLUMN host_call_rule.category IS 'lock (mutex, semaphore, condition variable, futex, join), sleep (sleep, yield), io (file and socket reads and writes, open, close), poll (waiting on descriptors), driver (ioctl: driver calls), memory (mmap, munmap, brk), sync (device synchronisation), launch (kernel and graph launch), copy (memcpy / memset calls), other.';
COMMENT ON COLUMN host_call_rule.priority IS 'Lower wins; ties: lower rule_id.';
COMMENT ON COLUMN host_call_rule.enabled IS 'FALSE switches the rule off.';
COMMENT ON COLUMN host_call_rule.source IS 'Where the rule comes from.';

INSERT OR IGNORE INTO host_call_rule (rule_id, pattern, category, priority, source) VALUES
    (1,  '%synchroni%', 'sync', 10, 'CUDA / HIP / CANN synchronisation calls (cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize, aclrtSynchronizeStream ...)'),
    (2,  '%launchkernel%', 'launch', 20, 'kernel launches (cudaLaunchKernel, cuLaunchKernel, hipLaunchKernel)'),
    (3,  '%graphlaunch%', 'launch', 20, 'CUDA graph launches (cudaGraphLaunch)'),
    (4,  '%aclnn%', 'launch', 30, 'CANN op launches (AscendCL@aclnn*)'),
    (5,  '%node@launch%', 'launch', 30, 'CANN Node@launch'),
    (6,  '%memcpy%', 'copy', 40, 'copy calls (cudaMemcpy*, aclrtMemcpy*)'),
    (7,  '%memset%', 'copy', 40, 'memset calls'),
    (10, 'pthread\_mutex%', 'lock', 100, 'Nsight Systems OS runtime trace (osrt): pthread mutexes'),
    (11, 'pthread\_rwlock%', 'lock', 100, 'osrt: pthread read-write locks'),
    (12, 'pthread\_cond%wait%', 'lock', 100, 'osrt: condition variables'),
    (13, 'pthread\_spin%', 'lock', 100, 'osrt: spin locks'),
    (14, 'pthread\_join%', 'lock', 100, 'osrt: waiting for a thread'),
    (15, 'pthread\_barrier%', 'lock', 100, 'osrt: barriers'),
    (16, 'sem\_%wait%', 'lock', 100, 'osrt: semaphores'),
    (17, '%futex%', 'lock', 100, 'futex waits'),
    (20, '%sleep%', 'sleep', 110, 'osrt: nanosleep, usleep, sleep, clock_nanosleep'),
    (21, 'sched\_yield%', 'sleep', 110, 'osrt: sched_yield'),
    (30, 'poll', 'poll', 120, 'osrt: poll'),
    (31, 'ppoll', 'poll', 120, 'osrt: ppoll'),
    (32, '%select', 'poll', 120, 'osrt: select, pselect'),
    (33, 'epoll\_%wait%', 'poll', 120, 'osrt: epoll_wait, epoll_pwait'),
    (40, 'ioctl', 'driver', 130, 'osrt: ioctl (driver calls)'),
    (50, 'read', 'io', 140, 'osrt: read'),
    (51, 'pread%', 'io', 140, 'osrt: pread, pread64, preadv'),
    (52, 'readv', 'io', 140, 'osrt: readv'),
    (53, 'write', 'io', 140, 'osrt: write'),
    (54, 'pwrite%', 'io', 140, 'osrt: pwrite, pwrite64'),
    (55, 'writev', 'io', 140, 'osrt: writev'),
    (56, 'open%', 'io', 140, 'osrt: open, open64, openat'),
    (57, 'fopen%', 'io', 140, 'osrt: fopen, fopen64'),
    (58, 'fread', 'io', 140, 'osrt: fread'),
    (59, 'fwrite', 'io', 140, 'osrt: fwrite'),
    (60, 'fclose', 'io', 140, 'osrt: fclose'),
    (61, 'close', 'io', 140, 'osrt: close'),
    (62, 'fgets', 'io', 140, 'osrt: fgets'),
    (63, 'recv%', 'io', 140, 'osrt: recv, recvfrom, recvmsg'),
    (64, 'send%', 'io', 140, 'osrt: send, sendto, sendmsg'),
    (65, 'accept%', 'io', 140, 'osrt: accept'),
    (66, 'connect', 'io', 140, 'osrt: connect'),
    (70, 'mmap%', 'memory', 150, 'osrt: mmap, mmap64'),
    (71, 'munmap', 'memory', 150, 'osrt: munmap'),
    (72, 'mprotect', 'memory', 150, 'osrt: mprotect'),
    (73, '%alloc%', 'memory', 160, 'allocation calls (cudaMalloc, cudaFree is other)');
