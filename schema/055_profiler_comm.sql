-- The profiler's own communication numbers (communication.json, communication_matrix.json), kept
-- to cross-check the comm views (never used to compute them).

CREATE TABLE IF NOT EXISTS profiler_comm_op (
    run_id               INTEGER NOT NULL,
    rank                 INTEGER NOT NULL,
    file_id              INTEGER NOT NULL,
    step                 INTEGER,
    comm_kind            VARCHAR,
    op_key               VARCHAR NOT NULL,
    op_name              VARCHAR,
    group_name           VARCHAR,
    start_ns             BIGINT,
    elapse_ns            BIGINT,
    transit_ns           BIGINT,
    wait_ns              BIGINT,
    synchronization_ns   BIGINT,
    idle_ns              BIGINT,
    wait_ratio           DOUBLE,
    synchronization_ratio DOUBLE
);
COMMENT ON TABLE profiler_comm_op IS 'communication.json "Communication Time Info" as the profiler wrote it, one row per (rank, step, op): framework layout stepN → collective|p2p → op@group, or the CANN flat layout. ms converted to integer ns (rounded). Reference only: comm_op_check compares comm_op with it.';
COMMENT ON COLUMN profiler_comm_op.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN profiler_comm_op.rank IS 'Rank (rank.rank) whose communication.json this is.';
COMMENT ON COLUMN profiler_comm_op.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN profiler_comm_op.step IS 'N of the "stepN" key; NULL for "step" (no step information) and the CANN flat layout.';
COMMENT ON COLUMN profiler_comm_op.comm_kind IS 'collective or p2p (the block the op is in); NULL in the CANN flat layout.';
COMMENT ON COLUMN profiler_comm_op.op_key IS 'Key as written: op@group, or Total Op Info / Total HCCL Operators.';
COMMENT ON COLUMN profiler_comm_op.op_name IS 'Part of the key before @ (hcom_allReduce__586_0_1); the key itself for totals.';
COMMENT ON COLUMN profiler_comm_op.group_name IS 'Part of the key after @ (numeric hash of the HCCL communicator name); NULL for totals.';
COMMENT ON COLUMN profiler_comm_op.start_ns IS 'Start Timestamp(us) x 1000 (a float in the file: about 0.25 us resolution); NULL for totals.';
COMMENT ON COLUMN profiler_comm_op.elapse_ns IS 'Elapse Time(ms) x 10^6, rounded to ns.';
COMMENT ON COLUMN profiler_comm_op.transit_ns IS 'Transit Time(ms) x 10^6, rounded to ns.';
COMMENT ON COLUMN profiler_comm_op.wait_ns IS 'Wait Time(ms) x 10^6, rounded to ns.';
COMMENT ON COLUMN profiler_comm_op.synchronization_ns IS 'Synchronization Time(ms) x 10^6, rounded to ns.';
COMMENT ON COLUMN profiler_comm_op.idle_ns IS 'Idle Time(ms) x 10^6, rounded to ns.';
COMMENT ON COLUMN profiler_comm_op.wait_ratio IS 'Wait Time Ratio as written (4 decimals).';
COMMENT ON COLUMN profiler_comm_op.synchronization_ratio IS 'Synchronization Time Ratio as written (4 decimals).';

CREATE TABLE IF NOT EXISTS profiler_comm_bandwidth (
    run_id             INTEGER NOT NULL,
    rank               INTEGER NOT NULL,
    file_id            INTEGER NOT NULL,
    step               INTEGER,
    comm_kind          VARCHAR,
    op_key             VARCHAR NOT NULL,
    op_name            VARCHAR,
    group_name         VARCHAR,
    transport_type     VARCHAR NOT NULL,
    transit_size_bytes BIGINT,
    transit_ns         BIGINT,
    bandwidth_gbps     DOUBLE,
    large_packet_ratio DOUBLE
);
COMMENT ON TABLE profiler_comm_bandwidth IS 'communication.json "Communication Bandwidth Info": one row per (rank, step, op, transport) as written (zero rows included). Reference only.';
COMMENT ON COLUMN profiler_comm_bandwidth.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN profiler_comm_bandwidth.rank IS 'Rank whose communication.json this is.';
COMMENT ON COLUMN profiler_comm_bandwidth.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN profiler_comm_bandwidth.step IS 'N of the "stepN" key; NULL otherwise.';
COMMENT ON COLUMN profiler_comm_bandwidth.comm_kind IS 'collective or p2p; NULL in the CANN flat layout.';
COMMENT ON COLUMN profiler_comm_bandwidth.op_key IS 'Key as written (op@group or a total).';
COMMENT ON COLUMN profiler_comm_bandwidth.op_name IS 'Part of the key before @.';
COMMENT ON COLUMN profiler_comm_bandwidth.group_name IS 'Part of the key after @; NULL for totals.';
COMMENT ON COLUMN profiler_comm_bandwidth.transport_type IS 'RDMA, HCCS, PCIE, SIO or SDMA (SDMA = HCCS + PCIE + SIO).';
COMMENT ON COLUMN profiler_comm_bandwidth.transit_size_bytes IS 'Transit Size(MB) x 10^6 (communication MB are decimal), rounded.';
COMMENT ON COLUMN profiler_comm_bandwidth.transit_ns IS 'Transit Time(ms) x 10^6, rounded.';
COMMENT ON COLUMN profiler_comm_bandwidth.bandwidth_gbps IS 'Bandwidth(GB/s) as written (GB = 10^9 B); NULL where the file omits it (torch_npu Total Op Info).';
COMMENT ON COLUMN profiler_comm_bandwidth.large_packet_ratio IS 'Large Packet Ratio as written; NULL if absent.';

CREATE TABLE IF NOT EXISTS profiler_comm_matrix (
    run_id             INTEGER NOT NULL,
    rank               INTEGER NOT NULL,
    file_id            INTEGER NOT NULL,
    step               INTEGER,
    comm_kind          VARCHAR,
    op_key             VARCHAR NOT NULL,
    op_name            VARCHAR,
    group_name         VARCHAR,
    src_rank           BIGINT,
    dst_rank           BIGINT,
    transport_type     VARCHAR,
    transit_size_bytes BIGINT,
    transit_ns         BIGINT,
    bandwidth_gbps     DOUBLE,
    execution_op_name  VARCHAR
);
COMMENT ON TABLE profiler_comm_matrix IS 'communication_matrix.json: one row per (rank, step, op key, link src-dst) as written; op keys are single ops (<= torch_npu 5.0, CANN) or per-type summaries <type>-top1/-middle/-bottomK/-total@group (>= 6.0). Reference only.';
COMMENT ON COLUMN profiler_comm_matrix.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN profiler_comm_matrix.rank IS 'Rank whose communication_matrix.json this is.';
COMMENT ON COLUMN profiler_comm_matrix.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN profiler_comm_matrix.step IS 'N of the "stepN" key; NULL otherwise.';
COMMENT ON COLUMN profiler_comm_matrix.comm_kind IS 'collective or p2p; NULL in the CANN flat layout.';
COMMENT ON COLUMN profiler_comm_matrix.op_key IS 'Key as written (op@group, allreduce-total@group, Total Op Info ...).';
COMMENT ON COLUMN profiler_comm_matrix.op_name IS 'Part of the key before @ (hcom_allReduce__586_0_1 or allreduce-total).';
COMMENT ON COLUMN profiler_comm_matrix.group_name IS 'Part of the key after @; NULL for totals.';
COMMENT ON COLUMN profiler_comm_matrix.src_rank IS 'Source rank of the link key "src-dst" (group-local rank).';
COMMENT ON COLUMN profiler_comm_matrix.dst_rank IS 'Destination rank of the link key (group-local rank).';
COMMENT ON COLUMN profiler_comm_matrix.transport_type IS 'Transport Type as written: LOCAL, HCCS, PCIE, RDMA, SIO.';
COMMENT ON COLUMN profiler_comm_matrix.transit_size_bytes IS 'Transit Size(MB) x 10^6, rounded.';
COMMENT ON COLUMN profiler_comm_matrix.transit_ns IS 'Transit Time(ms) x 10^6, rounded.';
COMMENT ON COLUMN profiler_comm_matrix.bandwidth_gbps IS 'Bandwidth(GB/s) as written.';
COMMENT ON COLUMN profiler_comm_matrix.execution_op_name IS '"Op Name" of top/middle/bottom entries: the single execution the entry shows; NULL otherwise.';
