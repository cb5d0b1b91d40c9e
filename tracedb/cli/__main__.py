"""``python -m tracedb.cli``: the ``tracedb`` command."""
from . import main

main()
