"""MkDocs hook: fill the generated sections of a page (CLI reference, view index and reference,
included files) from the code and the SQL at build time; see tracedb/docs.py."""
from pathlib import Path

from tracedb.docs import fill


def on_page_markdown(markdown, page, config, files):
    return fill(markdown, Path(config.config_file_path).parent)
