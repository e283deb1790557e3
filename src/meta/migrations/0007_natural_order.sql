-- Listings in natural name order, and folders that know their item count.
--
-- sort_key: the name's ICU collation key (root locale, numeric ordering,
-- secondary strength: "a2" < "A3" < "a10", case-insensitive), computed by
-- the files domain (files/names.h SortKey) whenever a name is set. Rows
-- written before this migration get theirs from the server at start-up
-- (Files::FillSortKeys) before it serves. Keys compare bytewise, so the
-- listing indexes order by them like by any BLOB.
ALTER TABLE nodes ADD COLUMN sort_key BLOB;
DROP INDEX nodes_list_name;
DROP INDEX nodes_list_size;
DROP INDEX nodes_list_mtime;
DROP INDEX nodes_list_mime;
CREATE INDEX nodes_list_name ON nodes (parent_id, kind, sort_key, id) WHERE trash_root IS NULL;
CREATE INDEX nodes_list_size ON nodes (parent_id, kind, size, sort_key, id) WHERE trash_root IS NULL;
CREATE INDEX nodes_list_mtime ON nodes (parent_id, kind, mtime, sort_key, id) WHERE trash_root IS NULL;
CREATE INDEX nodes_list_mime ON nodes (parent_id, kind, mime, sort_key, id) WHERE trash_root IS NULL;
DROP INDEX nodes_by_drive_name;
CREATE INDEX nodes_by_drive_name ON nodes (drive_id, sort_key, id) WHERE trash_root IS NULL;
CREATE INDEX nodes_without_sort_key ON nodes (id) WHERE sort_key IS NULL;

-- child_count: a folder's live children (trash_root IS NULL), kept by the
-- triggers below in the statement that changes a child, whatever changes
-- it (insert, delete, move, trash, restore), so a listing's header is
-- exact without counting. A trashed folder's children are not live: its
-- count reads 0 until it is restored. fsck recomputes it.
ALTER TABLE nodes ADD COLUMN child_count INTEGER NOT NULL DEFAULT 0;
UPDATE nodes SET child_count = (
  SELECT COUNT(*) FROM nodes c WHERE c.parent_id = nodes.id AND c.trash_root IS NULL)
  WHERE kind = 0;

CREATE TRIGGER nodes_count_insert AFTER INSERT ON nodes
  WHEN NEW.parent_id IS NOT NULL AND NEW.trash_root IS NULL
BEGIN
  UPDATE nodes SET child_count = child_count + 1 WHERE id = NEW.parent_id;
END;

CREATE TRIGGER nodes_count_delete AFTER DELETE ON nodes
  WHEN OLD.parent_id IS NOT NULL AND OLD.trash_root IS NULL
BEGIN
  UPDATE nodes SET child_count = child_count - 1 WHERE id = OLD.parent_id;
END;

CREATE TRIGGER nodes_count_update AFTER UPDATE OF parent_id, trash_root ON nodes
  WHEN OLD.parent_id IS NOT NEW.parent_id OR OLD.trash_root IS NOT NEW.trash_root
BEGIN
  UPDATE nodes SET child_count = child_count - 1
    WHERE id = OLD.parent_id AND OLD.trash_root IS NULL;
  UPDATE nodes SET child_count = child_count + 1
    WHERE id = NEW.parent_id AND NEW.trash_root IS NULL;
END;
