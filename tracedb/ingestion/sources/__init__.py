"""What every reader shares: streaming JSON into DuckDB (FIFO, splice, slices, metadata scan),
the one ``read_csv`` option string and header checks, path quoting, and the translation of
DuckDB read errors into one-line :class:`~tracedb.errors.InputError` messages."""
