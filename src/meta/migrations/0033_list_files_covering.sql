-- A listing by name reads its files from an index that holds every column
-- a WebDAV listing needs of them (meta::ListColumns::kBasic), so it never
-- looks up the rows themselves: walking the old key (parent, kind,
-- sort_key, id) fetched each file's row by id, in name order, which is
-- not the table's order, and a 10,000-file folder's rows and index do not
-- fit a connection's page cache, so most of those fetches read a page
-- from the file again.
--
-- Only files are in it (kind = 1): a folder's size, time and change
-- number change with every upload below it, and as columns of this index
-- each of those updates would rewrite an entry per ancestor. Folders keep
-- an index of their own with the old key. kind and trash_root end the
-- key so that every column the statements name is in the index.
DROP INDEX nodes_list_name;
CREATE INDEX nodes_list_folders ON nodes (parent_id, sort_key, id)
  WHERE trash_root IS NULL AND kind = 0;
CREATE INDEX nodes_list_files ON nodes (parent_id, sort_key, id, name, name_key, manifest_id,
  size, mime, mtime, ctime, tree_seq, content_hash, kind, trash_root)
  WHERE trash_root IS NULL AND kind = 1;
