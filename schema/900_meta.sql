-- What is in this file: settings and the catalogue of installed views and macros.

CREATE TABLE IF NOT EXISTS tracedb_meta (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR
);
COMMENT ON TABLE tracedb_meta IS 'Key/value settings of this database: schema_version, storage_version, tracedb_version; schema_hash and library_hash (the schema files and view library last applied: an ingest re-applies them only when they changed).';
COMMENT ON COLUMN tracedb_meta.key IS 'Setting name.';
COMMENT ON COLUMN tracedb_meta.value IS 'Setting value as text.';

CREATE TABLE IF NOT EXISTS tracedb_object (
    name        VARCHAR PRIMARY KEY,
    kind        VARCHAR NOT NULL,
    schema_name VARCHAR NOT NULL,
    topic       VARCHAR,
    grain       VARCHAR,
    description VARCHAR,
    parameters  VARCHAR,
    source_file VARCHAR
);
COMMENT ON TABLE tracedb_object IS 'Catalogue of the installed view library: every public view and table macro (macros are invisible to .tables and BI metadata), with its header documentation.';
COMMENT ON COLUMN tracedb_object.name IS 'View or macro name.';
COMMENT ON COLUMN tracedb_object.kind IS 'view or table_macro.';
COMMENT ON COLUMN tracedb_object.schema_name IS 'main for public objects, tracedb_internal for helpers.';
COMMENT ON COLUMN tracedb_object.topic IS 'Folder under queries/ (step, compare, ...).';
COMMENT ON COLUMN tracedb_object.grain IS 'One row per ... (header "Grain:").';
COMMENT ON COLUMN tracedb_object.description IS 'Full header text: summary, grain, source, reference, units.';
COMMENT ON COLUMN tracedb_object.parameters IS 'Macro parameters, comma separated; NULL for views.';
COMMENT ON COLUMN tracedb_object.source_file IS 'SQL file under queries/ that defines the object.';
