"""Declarative raw-column → table-column maps, per format and version (data, not code)."""
