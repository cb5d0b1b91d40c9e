"""A parallel (split) read that fails aborts the whole transaction; the ingest starts again
reading every file in one piece and ends with exactly the rows of a plain ingest."""
from __future__ import annotations

import pytest

from conftest import corpus_path, rows
from tracedb import api
from tracedb.ingestion.readers import READERS, SplitReadFailed

pytestmark = pytest.mark.corpus          # every test reads ../shared/corpus

L1 = "msinsight/test/data/pytorch/text/level1/rank0_ascend_pt"
COUNTS = ("SELECT (SELECT count(*) FROM source_file), (SELECT count(*) FROM event), "
          "(SELECT count(*) FROM kernel), (SELECT count(*) FROM op), (SELECT max(file_id) FROM source_file)")


def test_failed_split_read_is_read_again_in_one_piece(tmp_path, monkeypatch):
    rank = corpus_path(L1)
    plain = tmp_path / "plain.duckdb"
    api.ingest([rank], plain, run="r")
    want = rows(plain, COUNTS)
    assert want[0][1] == 10_112                       # trace_view.json events of this rank

    reader = READERS["trace_view"]
    attempts = []

    def flaky(con, f):
        attempts.append(f.split)
        n = reader.read(con, f)                       # rows written, then the split read "fails"
        if f.split:
            raise SplitReadFailed("cut inside an event")
        return n

    monkeypatch.setitem(READERS, "trace_view", reader._replace(read=flaky))
    said = []
    retried = tmp_path / "retried.duckdb"
    api.ingest([rank], retried, run="r", progress=said.append)
    assert attempts == [True, False]
    assert any("reading the files again in one piece" in s for s in said)
    assert rows(retried, COUNTS) == want              # the first attempt's rows are gone
