"""Comparing two runs: msprof-analyze's op alignment (:mod:`.align`, pure), its storage in
``op_match`` / ``module_match`` (:mod:`.store`), and the ``tracedb compare`` command
(:mod:`.command`, with its threads in :mod:`.concurrency`)."""
