-- A received share its recipient removed from its own tree (WebDAV DELETE
-- of the mount point, as Nextcloud clients do when the folder is deleted
-- on the desktop): hidden = 1 keeps it out of the tree; the grant is
-- untouched and "shared with me" shows it again on request. A row with an
-- empty name was made only to hide a share its recipient never placed.
ALTER TABLE share_mounts ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0 CHECK (hidden IN (0, 1));
