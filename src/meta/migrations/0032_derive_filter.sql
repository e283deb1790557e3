-- A new file, or new content, queues a derive job only when the job can do
-- something for it: the triggers ask nubo_derive_wanted(name, mime), a
-- function each of the server's connections registers (the same test as
-- media::DeriveWanted). Before, every file got a job that its upload then
-- deleted in the same transaction: a row in jobs and its three indexes,
-- written and removed for nothing.
DROP TRIGGER nodes_media_insert;
CREATE TRIGGER nodes_media_insert AFTER INSERT ON nodes
BEGIN
  INSERT INTO node_names (rowid, name_key) VALUES (NEW.id, NEW.name_key);
  INSERT INTO jobs (kind, node_id) SELECT 'derive', NEW.id
    WHERE NEW.kind = 1 AND nubo_derive_wanted(NEW.name, NEW.mime)
    ON CONFLICT (kind, node_id) DO UPDATE SET gen = gen + 1, run_at = 0, attempts = 0;
END;

DROP TRIGGER nodes_media_content;
CREATE TRIGGER nodes_media_content AFTER UPDATE OF manifest_id ON nodes
  WHEN NEW.manifest_id IS NOT OLD.manifest_id AND NEW.kind = 1
BEGIN
  DELETE FROM doc_text WHERE rowid = NEW.id;
  INSERT INTO jobs (kind, node_id) SELECT 'derive', NEW.id
    WHERE nubo_derive_wanted(NEW.name, NEW.mime)
    ON CONFLICT (kind, node_id) DO UPDATE SET gen = gen + 1, run_at = 0, attempts = 0;
END;
