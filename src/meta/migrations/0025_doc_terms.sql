-- The terms of the full-text index, one row per instance, in term order:
-- the ranking asks it whether any term longer than a query's last word
-- starts with it (a prefix query then means the word alone, and FTS5 need
-- not merge document lists for it). A view of doc_text's index, no storage.
CREATE VIRTUAL TABLE doc_text_terms USING fts5vocab(doc_text, instance);
