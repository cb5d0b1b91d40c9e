"""The database file: opening it (:mod:`.db`), sessions and their errors (:mod:`.session`), the
schema (:mod:`.schema`), the view library (:mod:`.library`) and the template a new file starts
from (:mod:`.template`). Knows DuckDB; knows no command."""
