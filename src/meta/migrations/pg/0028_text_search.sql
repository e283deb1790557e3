-- The content index (SQLite's FTS5 doc_text): each document's words as a
-- tsvector kept beside its text, and an inverted (GIN) index over them.
-- The 'simple' configuration folds case and keeps every word as written
-- (no stemming, no stop words), as SQLite's unicode61 tokenizer does
-- (which also folds diacritics; this one does not).
--
-- A tsvector holds at most 1 MiB: a document of up to 1 MiB of extracted
-- text with that many distinct words (random tokens, hex dumps) would fail
-- its insert, and with it the job that indexes it. Such a document is
-- indexed by its first 64 KiB instead.
CREATE FUNCTION nubo_text_terms(body text) RETURNS tsvector LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN to_tsvector('simple', body);
EXCEPTION WHEN program_limit_exceeded THEN
  RETURN to_tsvector('simple', left(body, 65536));
END $$;
ALTER TABLE doc_text ADD COLUMN terms tsvector GENERATED ALWAYS AS (nubo_text_terms(body)) STORED;
-- fastupdate off: new documents go into the index itself, not into a
-- pending list that every search would scan in full until a vacuum
-- merges it (measured: 2,000 fresh documents made each search read them
-- all). Documents are indexed by background jobs, which can wait.
CREATE INDEX doc_text_terms ON doc_text USING gin (terms) WITH (fastupdate = off);
