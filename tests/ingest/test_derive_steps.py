"""The derive steps are the files derive.STEPS names, not whatever the installed folder holds."""
from __future__ import annotations

import shutil

from tracedb.ingestion import derive

from conftest import ROOT


def test_the_step_list_is_the_derive_folder():
    """Every numbered file of derive/ is a step, in file-name order (a new step must be added
    to derive.STEPS, or it never runs)."""
    assert list(derive.STEPS) == sorted(p.stem for p in (ROOT / "derive").glob("[0-9]*.sql"))


def test_a_stale_file_of_an_earlier_install_never_runs(tmp_path, monkeypatch):
    """A package built from a checkout with an old build/ ships the files renamed or removed
    since (derive/100_kernel_launch.sql beside its two halves, which every ingest ran as well):
    only the listed steps are read."""
    folder = tmp_path / "_derive"
    shutil.copytree(ROOT / "derive", folder)
    (folder / "100_kernel_launch.sql").write_text("SELECT error('a stale step ran');\n")
    monkeypatch.setattr(derive, "sql_dir", lambda name: folder)
    derive._steps.cache_clear()
    try:
        steps = derive._steps()
    finally:
        derive._steps.cache_clear()
    assert [s.name for s in steps] == list(derive.STEPS)
    assert all("stale" not in s.sql for s in steps)
