"""Writing the database out: Parquet with a views.sql (:mod:`.parquet`) and Chrome trace JSON for Perfetto (:mod:`.perfetto`)."""
