-- Every upload adds its bytes to the size of each folder above it. While
-- size was a column of nodes_list_size, each of those updates changed an
-- indexed column, so PostgreSQL could not make it a heap-only (HOT)
-- update: it wrote a new entry into every index of nodes (ten, a GIN one
-- among them) for the root and the parent of every file uploaded, and the
-- dead versions piled up in all of them until vacuum. The listing index
-- now keys files on list_size, which is 0 for every folder, so a folder's
-- size changes outside every index. (The column is stored: a generated
-- column is computed when its row is written, and an unchanged value of
-- an indexed column does not prevent HOT.)
ALTER TABLE nodes ADD COLUMN list_size bigint
  GENERATED ALWAYS AS (CASE WHEN kind = 0 THEN 0 ELSE size END) STORED;
DROP INDEX nodes_list_size;
CREATE INDEX nodes_list_size ON nodes (parent_id, kind, list_size, sort_key, id)
  WHERE trash_root IS NULL;
