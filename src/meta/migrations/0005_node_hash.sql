-- A file's content hash beside its manifest id. Every listing row needs it
-- (it is the ETag), and reaching it through manifests cost a random page
-- read per row. Only InsertNode and UpdateNode write manifest_id, and both
-- set content_hash from the manifest in the same statement; fsck checks
-- that the two agree.
ALTER TABLE nodes ADD COLUMN content_hash BLOB;
UPDATE nodes SET content_hash = (SELECT m.hash FROM manifests m WHERE m.id = nodes.manifest_id)
  WHERE manifest_id IS NOT NULL;
