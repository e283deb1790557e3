-- SQLite's 0033 gives listings of files an index holding the columns they
-- read. PostgreSQL keeps nodes_list_name: a folder's size and change
-- number change with every upload below it, and a column of any index of
-- nodes (an INCLUDE column too) that changes rules out a heap-only (HOT)
-- update (0031 says what that costs); an index-only scan would also pay
-- off only for pages the visibility map marks all-visible. The version
-- number stays the same on both engines.
COMMENT ON INDEX nodes_list_name IS
  'listings by name (SQLite has a covering index of files instead: its migration 0033)';
