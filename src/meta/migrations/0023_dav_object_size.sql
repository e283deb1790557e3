-- A calendar object's or vCard's length in bytes as a column: listings
-- answer getcontentlength without reading the text (length(data) made
-- SQLite copy every object's text into memory to measure it).
ALTER TABLE dav_objects ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
UPDATE dav_objects SET size = length(data);
-- Every listing column but the text, in listing order: a PROPFIND or
-- addressbook-query of thousands of members reads this index alone
-- instead of seeking the table row of each member.
CREATE INDEX dav_objects_listing ON dav_objects (collection_id, name, etag, size, mtime, modseq,
  component, uid, first_start, last_end);
