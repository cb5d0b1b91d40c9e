"""The op tree (table op) and kernel attribution (kernel.op_id, kernel.launch_*): derive/100-122.

Expected values were read by hand from the fixture's trace_view.json (flows followed with a
few lines of Python over the JSON, not through tracedb) or are written into the micro Kineto
traces below."""
from __future__ import annotations

import json

import pytest

from conftest import RANK0, ingest_paths, ingested, rows

OUT = RANK0 / "ASCEND_PROFILER_OUTPUT"
BASE_NS = 1719000000000000000


@pytest.fixture(scope="module")
def ascend_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("ops") / "a.duckdb"
    ingested(db, RANK0)
    return db


def chain(db, op_id):
    """(name, ts_ns, dur_ns, depth) from the op up to its top-level ancestor."""
    out = []
    while op_id is not None:
        ((name, ts, dur, depth, parent),) = rows(
            db, "SELECT name, ts_ns, dur_ns, depth, parent_op_id FROM op WHERE op_id = ?", [op_id])
        out.append((name, ts, dur, depth))
        op_id = parent
    return out


def test_npu_conv2d_kernel_is_launched_by_the_op_at_its_async_npu_flow_start(ascend_db):
    # Ascend Hardware task Conv2D1 ts 1736408883704903.918 on stream 2; async_npu flow
    # 1736408883704903918 starts at ts 1736408883702792.080 on tid 3096504, where the cpu_op
    # Conv2D (dur 171.57) starts, inside aten::_convolution < aten::convolution < aten::conv2d
    # < DistributedDataParallel.forward
    ((op_id, launch, launch_tid),) = rows(ascend_db, "SELECT op_id, launch_name, launch_tid FROM kernel "
                                                     "WHERE name = 'Conv2D1'")
    assert chain(ascend_db, op_id) == [
        ("Conv2D", 1736408883702792080, 171570, 4),
        ("aten::_convolution", 1736408883702389110, 579260, 3),
        ("aten::convolution", 1736408883702199870, 777740, 2),
        ("aten::conv2d", 1736408883702011970, 966850, 1),
        ("DistributedDataParallel.forward", 1736408883701577350, 19578500, 0),
    ]
    # its HostToDevice flow starts on the CANN (task-queue) thread inside Node@launch
    assert (launch, launch_tid) == ("Node@launch", "3099702")


def test_npu_muls_kernel_and_the_hccl_op(ascend_db):
    ((op_id,),) = rows(ascend_db, "SELECT op_id FROM kernel WHERE name = 'aclnnMuls_MulAiCore_Mul' "
                                  "AND ts_ns = 1736408883727462688")
    assert chain(ascend_db, op_id) == [("aclnnMuls", 1736408883727388700, 74400, 1),
                                       ("aten::mul", 1736408883727078730, 386690, 0)]
    # hcom_allReduce__586_0_1: kernel_details.csv says ts ...241.563, the HCCL slice ...241.564;
    # its async_npu flow starts at 1736408883731489.280 on the backward thread 3105075, where
    # the inner of two nested HcclAllreduce slices starts
    ((op_id, is_bwd),) = rows(ascend_db, "SELECT k.op_id, o.is_backward FROM kernel AS k JOIN op AS o USING (op_id) "
                                         "WHERE k.name = 'hcom_allReduce__586_0_1'")
    assert is_bwd is True
    assert chain(ascend_db, op_id) == [
        ("HcclAllreduce", 1736408883731489280, 5280, 3),
        ("HcclAllreduce", 1736408883731479330, 15560, 2),
        ("c10d::allreduce_", 1736408883731419400, 130170, 1),
        ("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 1736408883731304820, 262960, 0),
    ]


def test_npu_op_table_shape(ascend_db):
    # 860 cpu_op events, one of them ProfilerStep#50 (a step, not an op); fwdbwd flows end on
    # tid 3105075 (544 cpu_op events there)
    assert rows(ascend_db, "SELECT count(*), count(*) FILTER (WHERE is_backward), min(step), max(step), "
                           "count(DISTINCT source) FROM op") == [(859, 544, 50, 50, 1)]
    assert rows(ascend_db, "SELECT input_dims, input_types, sequence_number FROM op WHERE name = 'aten::conv2d' "
                           "ORDER BY ts_ns LIMIT 1") == \
        [("32,3,224,224;\r\n64,3,11,11;\r\n64;\r\n;\r\n;\r\n;\r\n", "float;\r\nfloat;\r\nfloat;\r\nScalarList;\r\nScalarList;\r\n"
          "ScalarList;\r\nScalar", 1350)]
    # every kernel has its op; of the 24 copy tasks, the 5 whose flow starts in an
    # aclopCompileAndExecute outside any framework op have none; the top-level totals add up to
    # all kernel time (an op's device time counts kernels, not copies, as msprof-analyze's)
    assert rows(ascend_db, "SELECT copy_kind IS NOT NULL, count(*), count(*) FILTER (WHERE op_id IS NULL) FROM kernel "
                           "GROUP BY ALL ORDER BY ALL") == [(False, 191, 0), (True, 24, 5)]
    assert rows(ascend_db, "SELECT (SELECT sum(dur_ns) FROM kernel WHERE copy_kind IS NULL), "
                           "sum(device_total_ns) FILTER (WHERE depth = 0), "
                           "sum(device_self_ns), sum(kernel_count) FROM op") == [(114865613, 114865613, 114865613, 191)]
    # every child lies inside its parent
    assert rows(ascend_db, "SELECT count(*) FROM op AS c JOIN op AS p ON p.op_id = c.parent_op_id "
                           "WHERE c.ts_ns < p.ts_ns OR c.ts_ns + c.dur_ns > p.ts_ns + p.dur_ns "
                           "OR c.depth <> p.depth + 1 OR c.tid <> p.tid") == [(0,)]
    # nn.Module path of the first conv (python_function "nn.Module: ..." events, with_stack)
    assert rows(ascend_db, "SELECT module_path FROM op WHERE name = 'aten::conv2d' ORDER BY ts_ns LIMIT 1") == \
        [("DistributedDataParallel_0/AlexNet_0/Sequential_0/Conv2d_0",)]


def micro_kineto(tmp_path, events, name="w.pt.trace.json"):
    doc = {"schemaVersion": 1, "baseTimeNanoseconds": BASE_NS, "traceEvents": events}
    f = tmp_path / name
    f.write_text(json.dumps(doc))
    return f


def X(cat, name, tid, ts, dur, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": 100 if cat != "kernel" else 0, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e


KINETO = [
    X("user_annotation", "ProfilerStep#7", 1, 0.0, 1000.0),
    # main thread 1: a forward op tree
    X("cpu_op", "aten::linear", 1, 10.0, 100.0, **{"Input Dims": [[8, 16], [4, 16], [4]],
                                                   "Input type": ["float", "float", "float"],
                                                   "Sequence number": 42}),
    X("cpu_op", "aten::t", 1, 12.0, 5.0),
    X("cpu_op", "aten::addmm", 1, 20.0, 50.0),
    X("cuda_runtime", "cudaLaunchKernel", 1, 30.0, 8.0, correlation=1),
    X("kernel", "gemm", 7, 200.0, 40.0, correlation=1, stream=7, device=0),
    # a launch after aten::addmm ended, still inside aten::linear: the op is aten::linear
    X("cuda_runtime", "cudaLaunchKernel", 1, 80.0, 4.0, correlation=2),
    X("kernel", "bias_add", 7, 250.0, 10.0, correlation=2, stream=7, device=0),
    X("user_annotation", "Optimizer.step#SGD.step", 1, 500.0, 300.0),
    X("cpu_op", "aten::add_", 1, 510.0, 20.0),
    X("cuda_runtime", "cudaLaunchKernel", 1, 515.0, 3.0, correlation=3),
    X("kernel", "sgd_add", 7, 600.0, 5.0, correlation=3, stream=7, device=0),
    # backward thread 2: fwdbwd flow from aten::linear ends here
    X("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", 2, 300.0, 150.0),
    X("cpu_op", "AddmmBackward0", 2, 305.0, 100.0, **{"Sequence number": 42}),
    X("cpu_op", "aten::mm", 2, 310.0, 60.0),
    X("cuda_runtime", "cudaLaunchKernel", 2, 320.0, 6.0, correlation=4),
    X("kernel", "gemm_bwd", 7, 400.0, 30.0, correlation=4, stream=7, device=0),
    {"ph": "s", "cat": "fwdbwd", "name": "fwdbwd", "id": 9, "pid": 100, "tid": 1, "ts": 10.0},
    {"ph": "f", "cat": "fwdbwd", "name": "fwdbwd", "id": 9, "pid": 100, "tid": 2, "ts": 305.0, "bp": "e"},
    # a kernel without any launch (no runtime event, no flow): op_id NULL
    X("kernel", "orphan", 7, 700.0, 7.0, correlation=99, stream=7, device=0),
    # a runtime call outside every op: launch known, op NULL
    X("cuda_runtime", "cudaLaunchKernel", 1, 900.0, 2.0, correlation=5),
    X("kernel", "after_ops", 7, 950.0, 3.0, correlation=5, stream=7, device=0),
    X("gpu_user_annotation", "ProfilerStep#7", 7, 200.0, 760.0),
]


@pytest.fixture(scope="module")
def kineto_db(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("kin")
    db = tmp / "k.duckdb"
    ingest_paths(db, micro_kineto(tmp, KINETO))
    return db


def ns(us):
    return BASE_NS + int(us * 1000)


def test_kineto_ops_nest_per_thread(kineto_db):
    got = rows(kineto_db, "SELECT o.name, o.tid, o.depth, p.name, o.step, o.is_backward FROM op AS o "
                          "LEFT JOIN op AS p ON p.op_id = o.parent_op_id ORDER BY o.op_id")
    assert got == [
        ("aten::linear", "1", 0, None, 7, False),
        ("aten::t", "1", 1, "aten::linear", 7, False),
        ("aten::addmm", "1", 1, "aten::linear", 7, False),
        ("autograd::engine::evaluate_function: AddmmBackward0", "2", 0, None, 7, True),
        ("AddmmBackward0", "2", 1, "autograd::engine::evaluate_function: AddmmBackward0", 7, True),
        ("aten::mm", "2", 2, "AddmmBackward0", 7, True),
        ("Optimizer.step#SGD.step", "1", 0, None, 7, False),
        ("aten::add_", "1", 1, "Optimizer.step#SGD.step", 7, False),
    ]
    assert rows(kineto_db, "SELECT input_dims, input_types, sequence_number FROM op WHERE name = 'aten::linear'") == \
        [("[[8,16],[4,16],[4]]", '["float","float","float"]', 42)]


def test_kineto_kernels_attributed_by_correlation(kineto_db):
    got = rows(kineto_db, "SELECT k.name, o.name, k.launch_name, k.launch_tid, k.launch_ts_ns, k.launch_dur_ns "
                          "FROM kernel AS k LEFT JOIN op AS o USING (op_id) ORDER BY k.ts_ns")
    assert got == [
        ("gemm", "aten::addmm", "cudaLaunchKernel", "1", ns(30), 8000),
        ("bias_add", "aten::linear", "cudaLaunchKernel", "1", ns(80), 4000),
        ("gemm_bwd", "aten::mm", "cudaLaunchKernel", "2", ns(320), 6000),
        ("sgd_add", "aten::add_", "cudaLaunchKernel", "1", ns(515), 3000),
        ("orphan", None, None, None, None, None),
        ("after_ops", None, "cudaLaunchKernel", "1", ns(900), 2000),
    ]
    got = rows(kineto_db, "SELECT name, kernel_count, kernel_total_count, device_self_ns, device_total_ns FROM op "
                          "ORDER BY op_id")
    assert got == [
        ("aten::linear", 1, 2, 10000, 50000),
        ("aten::t", 0, 0, 0, 0),
        ("aten::addmm", 1, 1, 40000, 40000),
        ("autograd::engine::evaluate_function: AddmmBackward0", 0, 1, 0, 30000),
        ("AddmmBackward0", 0, 1, 0, 30000),
        ("aten::mm", 1, 1, 30000, 30000),
        ("Optimizer.step#SGD.step", 0, 1, 0, 5000),
        ("aten::add_", 1, 1, 5000, 5000),
    ]


def test_kineto_flow_fallback_without_runtime_events(tmp_path):
    """ac2g flows alone (no cuda_runtime events, e.g. a trace cut before the launches) give the
    launch point; without flows and runtime events the kernel keeps op_id NULL."""
    events = [
        X("cpu_op", "aten::relu", 1, 10.0, 50.0),
        {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 11, "pid": 100, "tid": 1, "ts": 20.0},
        {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 11, "pid": 0, "tid": 7, "ts": 100.0, "bp": "e"},
        X("kernel", "relu_kernel", 7, 100.0, 9.0, correlation=11, stream=7, device=0),
        X("kernel", "lonely", 7, 200.0, 9.0, correlation=12, stream=7, device=0),
    ]
    db = tmp_path / "f.duckdb"
    ingest_paths(db, micro_kineto(tmp_path, events))
    assert rows(db, "SELECT k.name, o.name, k.launch_name, k.launch_tid, k.launch_ts_ns FROM kernel AS k "
                    "LEFT JOIN op AS o USING (op_id) ORDER BY k.ts_ns") == [
        ("relu_kernel", "aten::relu", None, "1", ns(20)),
        ("lonely", None, None, None, None),
    ]
    # no fwdbwd flow in the trace: is_backward unknown
    assert rows(db, "SELECT is_backward, step FROM op") == [(None, None)]


def test_check_reports_kernels_without_a_launching_op(kineto_db):
    got = rows(kineto_db, "SELECT severity, rank, value_ns, message FROM check_finding "
                          "WHERE check_name = 'kernels_without_op'")
    assert got == [("warning", 0, 10000, "2 of 6 kernels (10.5 % of device time) have no launching framework op "
                                         "(kernel.op_id NULL)")]


def test_rederive_keeps_other_sources_and_is_stable(tmp_path):
    """A re-derive of the rank rebuilds the same trace rows and leaves rows of another source
    (the Ascend DB reader's) alone."""
    import duckdb

    from tracedb.ingestion import derive
    db = tmp_path / "r.duckdb"
    ingest_paths(db, micro_kineto(tmp_path, KINETO))
    before = rows(db, "SELECT * EXCLUDE (file_id) FROM op ORDER BY op_id")
    kernels = rows(db, "SELECT kernel_id, op_id, launch_ts_ns FROM kernel ORDER BY kernel_id")
    con = duckdb.connect(str(db))
    con.execute("INSERT INTO op (run_id, rank, file_id, op_id, ts_ns, dur_ns, name, depth, source) "
                "VALUES (1, 0, 1, 1000, 1, 1, 'from_db', 0, 'ascend_db')")
    derive.install_session(con)
    derive.run(con, 1, 0)
    con.close()
    assert rows(db, "SELECT * EXCLUDE (file_id) FROM op WHERE source <> 'ascend_db' ORDER BY op_id") == before
    assert rows(db, "SELECT name, kernel_count, device_total_ns FROM op WHERE source = 'ascend_db'") == \
        [("from_db", 0, 0)]
    assert rows(db, "SELECT kernel_id, op_id, launch_ts_ns FROM kernel ORDER BY kernel_id") == kernels


def test_module_tree_forward_backward_optimizer(tmp_path):
    """table module (derive/125) on a micro Kineto trace: nn.Module events nest by time, the
    optimizer op is a module, the autograd op a fwdbwd flow ends at is a backward module named
    after the innermost module running at the flow start; kernels count in the module of their
    launching op. Values worked out by hand from the events below."""
    events = KINETO + [
        X("python_function", "nn.Module: Net_0", 1, 5.0, 195.0),
        X("python_function", "nn.Module: Linear_0", 1, 8.0, 112.0),     # holds aten::linear, t, addmm
        X("python_function", "nn.Module: Head_0", 1, 150.0, 30.0),       # no op inside
        X("python_function", "train", 1, 1.0, 990.0),                    # not a module
        # a second flow, starting outside every module: no backward module
        {"ph": "s", "cat": "fwdbwd", "name": "fwdbwd", "id": 10, "pid": 100, "tid": 1, "ts": 2.0},
        {"ph": "f", "cat": "fwdbwd", "name": "fwdbwd", "id": 10, "pid": 100, "tid": 2, "ts": 300.0, "bp": "e"},
    ]
    db = tmp_path / "m.duckdb"
    ingest_paths(db, micro_kineto(tmp_path, events))
    got = rows(db, """
        SELECT m.module_path, m.kind, m.module_level, p.module_path, m.step, m.ts_ns, m.dur_ns, m.op_count,
               m.kernel_count, m.device_self_ns, m.device_total_ns
        FROM module AS m LEFT JOIN module AS p ON p.run_id = m.run_id AND p.rank = m.rank
                                             AND p.module_id = m.parent_module_id
        ORDER BY m.module_id""")
    assert got == [
        ("Net_0", "forward", 1, None, 7, ns(5), 195_000, 0, 0, 0, 50_000),
        # gemm (40 us, launched in aten::addmm) and bias_add (10 us, launched in aten::linear)
        ("Net_0/Linear_0", "forward", 2, "Net_0", 7, ns(8), 112_000, 3, 2, 50_000, 50_000),
        ("Net_0/Head_0", "forward", 2, "Net_0", 7, ns(150), 30_000, 0, 0, 0, 0),
        # Optimizer.step#SGD.step and aten::add_ (sgd_add 5 us)
        ("Optimizer.step#SGD.step", "optimizer", 1, None, 7, ns(500), 300_000, 2, 1, 5_000, 5_000),
        # flow 9 starts at 10 us inside Linear_0 and ends at AddmmBackward0 (305 us, 100 us): it
        # holds AddmmBackward0 and aten::mm (gemm_bwd 30 us); evaluate_function starts before it
        ("[ BACKWARD ]/Net_0/Linear_0", "backward", 3, None, 7, ns(305), 100_000, 2, 1, 30_000, 30_000),
    ]
