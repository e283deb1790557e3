-- Tiny files kept in the metadata store (storage.inline_max): a chunk
-- whose bytes are in `data` has no file in the chunk store. One commit of
-- the metadata makes such an upload durable (no chunk file to create,
-- sync and rename). The row still counts its manifests like any chunk, so
-- dedup, copies, versions and GC treat it the same; deleting the row
-- frees the bytes in the same transaction.
ALTER TABLE chunks ADD COLUMN data BLOB;
