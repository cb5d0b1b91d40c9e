-- The profiler's own communication numbers (communication.json, communication_matrix.json), kept
-- to cross-check the comm_* views; never used to compute them.

CREATE TABLE IF NOT EXISTS profiler_comm_op (
    run_id                INTEGER NOT NULL,
    rank                  INTEGER NOT NULL,
    file_id               INTEGER NOT NULL,
    step                  INTEGER,
    comm_kind             VARCHAR,
    op_key                VARCHAR,
    op_name               VARCHAR,
    group_name            VARCHAR,
    is_total              BOOLEAN,
    start_ns              BIGINT,
    elapse_ns             BIGINT,
    transit_ns            BIGINT,
    wait_ns               BIGINT,
    synchronization_ns    BIGINT,
    idle_ns               BIGINT,
    wait_ratio            DOUBLE,
    synchronization_ratio DOUBLE
);
COMMENT ON TABLE profiler_comm_op IS 'communication.json "Communication Time Info" as the profiler wrote it, one row per (rank, step, op@group); both the framework shape (step{N} -> collective|p2p -> op) and the CANN flat shape. ms converted to integer ns (exact decimal parse). Reference only: comm_op never reads it; comm_op_check compares with it.';
COMMENT ON COLUMN profiler_comm_op.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN profiler_comm_op.rank IS 'Rank (rank.rank) of the folder the file came from.';
COMMENT ON COLUMN profiler_comm_op.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN profiler_comm_op.step IS 'N of the "step{N}" key; NULL for "step" (no step information) and for the CANN flat shape.';
COMMENT ON COLUMN profiler_comm_op.comm_kind IS 'collective or p2p (the block the op is in); NULL in the CANN flat shape.';
COMMENT ON COLUMN profiler_comm_op.op_key IS 'Key as written: "<op>@<group>", "Total Op Info" or "Total HCCL Operators".';
COMMENT ON COLUMN profiler_comm_op.op_name IS 'Op name: the part of op_key before the last "@" (the whole key for totals).';
COMMENT ON COLUMN profiler_comm_op.group_name IS 'Group: the part of op_key after the last "@"; NULL for totals.';
COMMENT ON COLUMN profiler_comm_op.is_total IS 'TRUE for "Total Op Info" / "Total HCCL Operators" rows (sums over the block).';
COMMENT ON COLUMN profiler_comm_op.start_ns IS '"Start Timestamp(us)" x 1000 (epoch ns; the file prints a rounded float); NULL for totals.';
COMMENT ON COLUMN profiler_comm_op.elapse_ns IS '"Elapse Time(ms)" x 10^6, rounded to ns.';
COMMENT ON COLUMN profiler_comm_op.transit_ns IS '"Transit Time(ms)" x 10^6, rounded to ns.';
COMMENT ON COLUMN profiler_comm_op.wait_ns IS '"Wait Time(ms)" x 10^6, rounded to ns.';
COMMENT ON COLUMN profiler_comm_op.synchronization_ns IS '"Synchronization Time(ms)" x 10^6, rounded to ns.';
COMMENT ON COLUMN profiler_comm_op.idle_ns IS '"Idle Time(ms)" x 10^6, rounded to ns.';
COMMENT ON COLUMN profiler_comm_op.wait_ratio IS '"Wait Time Ratio" (0-1, 4 decimals) as written.';
COMMENT ON COLUMN profiler_comm_op.synchronization_ratio IS '"Synchronization Time Ratio" (0-1, 4 decimals) as written.';

CREATE TABLE IF NOT EXISTS profiler_comm_bandwidth (
    run_id             INTEGER NOT NULL,
    rank               INTEGER NOT NULL,
    file_id            INTEGER NOT NULL,
    step               INTEGER,
    comm_kind          VARCHAR,
    op_key             VARCHAR,
    op_name            VARCHAR,
    group_name         VARCHAR,
    is_total           BOOLEAN,
    transport_type     VARCHAR,
    transit_size_bytes BIGINT,
    transit_ns         BIGINT,
    bandwidth_gbps     DOUBLE,
    large_packet_ratio DOUBLE,
    packet_count       BIGINT
);
COMMENT ON TABLE profiler_comm_bandwidth IS 'communication.json "Communication Bandwidth Info", one row per (rank, step, op@group, transport). Reference only: comm_bandwidth never reads it; comm_op_check compares with it.';
COMMENT ON COLUMN profiler_comm_bandwidth.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN profiler_comm_bandwidth.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN profiler_comm_bandwidth.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN profiler_comm_bandwidth.step IS 'N of "step{N}"; NULL for "step" and the CANN flat shape.';
COMMENT ON COLUMN profiler_comm_bandwidth.comm_kind IS 'collective or p2p; NULL in the CANN flat shape.';
COMMENT ON COLUMN profiler_comm_bandwidth.op_key IS 'Key as written ("<op>@<group>" or a total key).';
COMMENT ON COLUMN profiler_comm_bandwidth.op_name IS 'Part of op_key before the last "@".';
COMMENT ON COLUMN profiler_comm_bandwidth.group_name IS 'Part of op_key after the last "@"; NULL for totals.';
COMMENT ON COLUMN profiler_comm_bandwidth.is_total IS 'TRUE for "Total Op Info" / "Total HCCL Operators" rows.';
COMMENT ON COLUMN profiler_comm_bandwidth.transport_type IS 'Transport key: HCCS, RDMA, PCIE, SIO or SDMA (= HCCS + PCIE + SIO + links of unknown type).';
COMMENT ON COLUMN profiler_comm_bandwidth.transit_size_bytes IS '"Transit Size(MB)" x 10^6 (decimal MB), rounded to bytes.';
COMMENT ON COLUMN profiler_comm_bandwidth.transit_ns IS '"Transit Time(ms)" x 10^6, rounded to ns.';
COMMENT ON COLUMN profiler_comm_bandwidth.bandwidth_gbps IS '"Bandwidth(GB/s)" as written (= MB/ms, 4 decimals); NULL where the file has none (torch_npu totals).';
COMMENT ON COLUMN profiler_comm_bandwidth.large_packet_ratio IS '"Large Packet Ratio" as written (0-1); NULL if absent.';
COMMENT ON COLUMN profiler_comm_bandwidth.packet_count IS 'Sum of the packet counts of "Size Distribution"; NULL if absent.';

CREATE TABLE IF NOT EXISTS profiler_comm_matrix (
    run_id             INTEGER NOT NULL,
    rank               INTEGER NOT NULL,
    file_id            INTEGER NOT NULL,
    step               INTEGER,
    comm_kind          VARCHAR,
    op_key             VARCHAR,
    op_name            VARCHAR,
    group_name         VARCHAR,
    link_key           VARCHAR,
    src_rank           BIGINT,
    dst_rank           BIGINT,
    transport_type     VARCHAR,
    transit_size_bytes BIGINT,
    transit_ns         BIGINT,
    bandwidth_gbps     DOUBLE,
    link_op_name       VARCHAR
);
COMMENT ON TABLE profiler_comm_matrix IS 'communication_matrix.json, one row per (rank, step, op key, link "src-dst"): per-op keys, the >=6.0 per-type keys (<type>-top1/-middle/-bottom1/-bottom2/-bottom3/-total@group) and "Total Op Info" / "Total HCCL Operators". Reference only: comm_matrix never reads it.';
COMMENT ON COLUMN profiler_comm_matrix.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN profiler_comm_matrix.rank IS 'Rank (rank.rank) of the folder the file came from.';
COMMENT ON COLUMN profiler_comm_matrix.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN profiler_comm_matrix.step IS 'N of "step{N}"; NULL for "step" and the CANN flat shape.';
COMMENT ON COLUMN profiler_comm_matrix.comm_kind IS 'collective or p2p; NULL in the CANN flat shape.';
COMMENT ON COLUMN profiler_comm_matrix.op_key IS 'Key as written: "<op>@<group>", "<type>-total@<group>", "Total Op Info" ...';
COMMENT ON COLUMN profiler_comm_matrix.op_name IS 'Part of op_key before the last "@" (e.g. allreduce-total, hcom_allReduce__586_0_1).';
COMMENT ON COLUMN profiler_comm_matrix.group_name IS 'Part of op_key after the last "@"; NULL for totals.';
COMMENT ON COLUMN profiler_comm_matrix.link_key IS 'Link key as written: "<src>-<dst>" (group-local ranks).';
COMMENT ON COLUMN profiler_comm_matrix.src_rank IS 'src of link_key (group-local rank).';
COMMENT ON COLUMN profiler_comm_matrix.dst_rank IS 'dst of link_key (group-local rank; a self link "r-r" is on-chip).';
COMMENT ON COLUMN profiler_comm_matrix.transport_type IS '"Transport Type": HCCS, PCIE, RDMA, SIO or LOCAL.';
COMMENT ON COLUMN profiler_comm_matrix.transit_size_bytes IS '"Transit Size(MB)" x 10^6, rounded to bytes.';
COMMENT ON COLUMN profiler_comm_matrix.transit_ns IS '"Transit Time(ms)" x 10^6, rounded to ns.';
COMMENT ON COLUMN profiler_comm_matrix.bandwidth_gbps IS '"Bandwidth(GB/s)" as written.';
COMMENT ON COLUMN profiler_comm_matrix.link_op_name IS '"Op Name" of top/middle/bottom entries (the single execution shown); NULL otherwise.';
