-- A calendar object's or vCard's length in bytes as a column: listings
-- answer getcontentlength without reading the text (length(data) made
-- SQLite copy every object's text into memory to measure it).
ALTER TABLE dav_objects ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
UPDATE dav_objects SET size = length(data);
