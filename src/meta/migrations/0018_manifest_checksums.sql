-- Checksums a client sent with the content and the server verified as the
-- bytes arrived ("SHA1:<hex> MD5:<hex>", at most one per algorithm), for
-- Nextcloud clients: oc:checksums and the OC-Checksum answer header. They
-- describe the content, so they live with its manifest: copies share them,
-- and they go when the manifest goes. NULL: none known.
ALTER TABLE manifests ADD COLUMN checksums TEXT;
