-- The name index (SQLite's FTS5 trigram table node_names): a GIN index of
-- the trigrams of every live node's folded name, through the pg_trgm
-- extension, so that a name search for a needle of three characters or
-- more reads the names that contain its trigrams instead of every name of
-- the drive. The index only narrows: the search still tests each name for
-- the exact substring.
--
-- pg_trgm ships with PostgreSQL and is a trusted extension (version 13
-- on): a role that may create objects in the database may install it. A
-- role that may not, or a server built without it, keeps a working name
-- search that scans the drive; the migration says so and goes on.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
EXCEPTION WHEN insufficient_privilege OR undefined_file THEN
  RAISE WARNING 'pg_trgm is not available (%): name search will scan each drive', SQLERRM;
END $$;

-- The operator class named in the extension's own schema: an
-- administrator may have installed pg_trgm in one that is not on nubo's
-- search path. fastupdate off: a new name goes into the index at once
-- rather than into a pending list that every search would read in full
-- until a vacuum merges it (as for doc_text_terms, migration 28).
DO $$
DECLARE
  ext_schema name;
BEGIN
  SELECT n.nspname INTO ext_schema FROM pg_extension e
    JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
  IF ext_schema IS NOT NULL THEN
    EXECUTE format('CREATE INDEX nodes_name_trgm ON nodes USING gin (name_key %I.gin_trgm_ops) '
                   'WITH (fastupdate = off) WHERE trash_root IS NULL', ext_schema);
  END IF;
END $$;
