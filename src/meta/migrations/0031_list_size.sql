-- Listing files by size reads an index keyed on list_size: a file's size,
-- 0 for a folder. A folder's size is the sum below it and changes with
-- every upload into its subtree; keeping it out of the listing index
-- leaves those updates to the row alone (PostgreSQL's 0031 says why that
-- matters there; here it saves rewriting an index entry per ancestor).
ALTER TABLE nodes ADD COLUMN list_size INTEGER
  GENERATED ALWAYS AS (CASE WHEN kind = 0 THEN 0 ELSE size END) VIRTUAL;
DROP INDEX nodes_list_size;
CREATE INDEX nodes_list_size ON nodes (parent_id, kind, list_size, sort_key, id)
  WHERE trash_root IS NULL;
