"""Every reader through the CLI in processes of its own, as users run tracedb.

The rest of the suite ingests in-process, where the test run has imported the duckdb package;
tracedb's commands load DuckDB's engine module alone, which with DuckDB 2.0 lacks what the
package sets up (an Arrow scan failed only from the CLI). Here each input is ingested by
``python -m tracedb.cli`` in a fresh interpreter, one input of each format family the readers
handle, and every format the input holds must be recorded with its rows."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT, corpus_path, rows

pytestmark = [pytest.mark.corpus, pytest.mark.process]

# input → the formats of its files (from the file names; metadata formats write no rows)
INPUTS = {
    "msinsight/test/data/pytorch/text/level1": {
        "trace_view", "kernel_details", "communication", "communication_matrix", "memory_record",
        "npu_module_mem", "operator_memory", "step_trace_time", "profiler_info", "profiler_metadata"},
    "msinsight/test/data/pytorch/db/level1": {"ascend_db", "analysis_db", "profiler_info"},
    "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz": {"kineto"},
    "mindinsight/tests/utils/resource/profiler": {"msprof_timeline", "step_trace_raw", "minddata_pipeline"},
    "mindinsight/tests/utils/resource/cluster_propose": {"hccl_raw", "step_trace_raw"},
    "mindinsight/tests/utils/resource/run_2/normal_run/profiler": {
        "mindspore_timeline", "step_trace_raw", "step_trace_point"},
    "mindspore/tests/ut/data/profiler_data/profiler": {"hccl_trace", "hccl_raw", "step_trace_raw"},
    "flameox/tests/fixtures/nsight_systems/nsight-2025.5.2.sqlite": {"nsys"},
}
NO_ROWS = {"profiler_info", "profiler_metadata"}


def test_every_reader_ingests_from_the_cli(tmp_path):
    db = tmp_path / "t.duckdb"
    for i, rel in enumerate(INPUTS):
        res = subprocess.run([sys.executable, "-m", "tracedb.cli", "-q", "ingest", "--db", str(db), "--run",
                              f"r{i}", str(corpus_path(rel))], capture_output=True, text=True, timeout=300, cwd=ROOT)
        assert res.returncode == 0, (rel, res.stderr)
    for i, (rel, formats) in enumerate(INPUTS.items()):
        got = dict(rows(db, "SELECT format, sum(row_count) FROM source_file JOIN run USING (run_id) "
                            "WHERE run_name = ? GROUP BY format", [f"r{i}"]))
        assert set(got) == formats, rel
        assert all(n > 0 for f, n in got.items() if f not in NO_ROWS), (rel, got)
