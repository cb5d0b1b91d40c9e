"""Queries: planning a view name or SQL (:mod:`.plan`) and reading its rows (:mod:`.rows`)."""
