"""The DuckDB messages of real storage failures (captured from the runs of
tests/store/test_write_faults.py and tests/store/test_damaged_database.py, DuckDB 2.0) and the one
line each becomes; and a reader's error boundary that wraps a full disk does not blame the input."""
from __future__ import annotations

import duckdb
import pytest

from tracedb.errors import InputError, TracedbError
from tracedb.store.faults import storage_error
from tracedb.store.session import writing

DB = "/data/t.duckdb"
CASES = [
    (duckdb.TransactionException('TransactionContext Error: Failed to commit: Could not write file '
                                 '"/data/t.duckdb.wal": File too large'),
     'cannot write the database: the file-size limit (ulimit -f) was reached (Could not write file '
     '"/data/t.duckdb.wal": File too large)'),
    (duckdb.TransactionException('TransactionContext Error: Failed to commit: Cannot open file '
                                 '"/data/t.duckdb.wal": Permission denied'),
     'cannot write the database: permission denied (Cannot open file "/data/t.duckdb.wal": Permission denied)'),
    (duckdb.FatalException('FATAL Error: Failed to create checkpoint because of error: Could not write file '
                           '"/data/t.duckdb": No space left on device'),
     'cannot write the database: the disk is full (Could not write file "/data/t.duckdb": No space left on device)'),
    (duckdb.FatalException('FATAL Error: Failed to rollback transaction. Cannot continue operation.\n'
                           'Original Error: Data Corruption Error: Corrupt database file: computed checksum 1 does '
                           'not match stored checksum 2 in block at location 7090176\nRollback Error: …'),
     'the database file is damaged (Corrupt database file: computed checksum 1 does not match stored checksum 2 '
     'in block at location 7090176)'),
]


@pytest.mark.parametrize("error, said", CASES)
def test_storage_failure_in_one_line(error, said):
    err = storage_error(error, DB)
    assert str(err).startswith(f"{DB}: {said}; nothing was written: the database is as it was.")
    assert "\n" not in str(err)


def test_another_files_failure_is_not_the_databases():
    """read_csv of an unreadable file with --write: not "cannot write the database"."""
    assert storage_error(duckdb.IOException('IO Error: Cannot open file "/etc/shadow": Permission denied'), DB) is None


def test_full_disk_behind_a_readers_error_is_the_databases(tmp_path):
    """A large reader's INSERT writes blocks into the database before COMMIT; its error boundary
    said "trace_view.json: cannot parse: Could not write file DB: File too large … re-export it"."""
    db = tmp_path / "t.duckdb"
    full = duckdb.IOException(f'IO Error: Could not write file "{db}": No space left on device')
    with pytest.raises(TracedbError) as caught:
        with writing(db):
            try:
                raise full
            except duckdb.Error as e:
                raise InputError("cannot parse: …", file="trace_view.json") from e
    assert str(caught.value).startswith(f"{db}: cannot write the database: the disk is full")
    assert not db.exists()                        # the file it created is removed
