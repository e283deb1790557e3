-- The token count of every doc_text row (what FTS5 keeps one row each in
-- doc_text_docsize), packed 1,024 to a row: ranking a common word needs the
-- count of every matching document, and reading 100,000 rows of
-- doc_text_docsize cost 10-17 ms where a hundred packed rows cost well
-- under one. bucket = rowid >> 10; slot = rowid & 1023 at 4 bytes
-- little-endian; 0 (or past the blob's end) = unknown, read
-- doc_text_docsize instead. Written with the text (sqlite_search.cc);
-- a deleted row's slot is never read again (its rowid matches nothing).
CREATE TABLE doc_sizes (bucket INTEGER PRIMARY KEY, sizes BLOB NOT NULL);
INSERT INTO doc_sizes (bucket, sizes)
  SELECT id >> 10, nubo_pack_sizes(id & 1023, sz) FROM doc_text_docsize GROUP BY id >> 10;
