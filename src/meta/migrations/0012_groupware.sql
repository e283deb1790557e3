-- Calendars and address books (docs/groupware.md).
--
-- A collection belongs to one account; its objects are iCalendar or vCard
-- texts stored whole (they are small, bounded by groupware.max_object_size)
-- with what queries need beside them: the UID (unique per collection,
-- RFC 4791 §5.3.2.1 no-uid-conflict) and, for calendar objects, the span
-- of all their instances, so that a time-range query is an index scan.
-- sync_seq counts every change in the collection: an object's modseq and a
-- tombstone's are the sequence number of the change that made them, and a
-- sync token names a sequence number (RFC 6578). Tokens below sync_floor
-- are too old (their tombstones were pruned).
CREATE TABLE dav_collections (
  id INTEGER PRIMARY KEY,
  public_id TEXT NOT NULL UNIQUE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind INTEGER NOT NULL,                 -- PERSISTED: 1 calendar, 2 address book, 3 scheduling
                                         -- inbox, 4 scheduling outbox (messages for a mail gateway)
  name TEXT NOT NULL,                    -- the URL segment
  display_name TEXT NOT NULL DEFAULT '',
  description TEXT NOT NULL DEFAULT '',
  color TEXT NOT NULL DEFAULT '',
  sort_order INTEGER NOT NULL DEFAULT 0,
  timezone TEXT NOT NULL DEFAULT '',     -- a VCALENDAR with one VTIMEZONE, or ''
  components INTEGER NOT NULL DEFAULT 0, -- calendars: kCompEvent|kCompTodo|… bits
  sync_seq INTEGER NOT NULL DEFAULT 0,
  sync_floor INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  UNIQUE (user_id, kind, name)
);

CREATE TABLE dav_objects (
  id INTEGER PRIMARY KEY,
  collection_id INTEGER NOT NULL REFERENCES dav_collections (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  uid TEXT NOT NULL,
  component TEXT NOT NULL DEFAULT '',    -- VEVENT, VTODO, VJOURNAL, VFREEBUSY, VCARD
  data BLOB NOT NULL,
  etag TEXT NOT NULL,
  first_start INTEGER,                   -- ms; NULL: unbounded before
  last_end INTEGER,                      -- ms; NULL: unbounded after
  modseq INTEGER NOT NULL,
  mtime INTEGER NOT NULL,
  UNIQUE (collection_id, name),
  UNIQUE (collection_id, uid)
);
CREATE INDEX dav_objects_by_start ON dav_objects (collection_id, first_start);
CREATE INDEX dav_objects_by_seq ON dav_objects (collection_id, modseq);

CREATE TABLE dav_tombstones (
  collection_id INTEGER NOT NULL REFERENCES dav_collections (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  modseq INTEGER NOT NULL,
  PRIMARY KEY (collection_id, name)
);
CREATE INDEX dav_tombstones_by_seq ON dav_tombstones (collection_id, modseq);

-- Properties clients set on a collection that nubo does not interpret
-- (RFC 4918 dead properties), kept as context-free XML.
CREATE TABLE dav_collection_props (
  collection_id INTEGER NOT NULL REFERENCES dav_collections (id) ON DELETE CASCADE,
  ns TEXT NOT NULL,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (collection_id, ns, name)
);
