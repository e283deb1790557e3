// MetaStore: nubo's metadata, behind explicit transactions.
//
// Domain code talks to typed operations, never to SQL, so every engine
// implements the same interface; the conformance suite
// (meta/meta_store_conformance_test.cc) holds each of them to it. The
// operations are declared by capability, one header each (content_txn.h,
// accounts_txn.h, nodes_txn.h, dav_txn.h, sharing_txn.h, search_txn.h,
// history_txn.h, groupware_txn.h, media_txn.h, music_txn.h, nc_txn.h):
// their Reads interfaces make up ReadTxn, their Writes WriteTxn. Code that
// needs only one capability's rows includes that header alone.
//
// Concurrency: Write transactions are serialized (one writer, as SQLite
// allows and as keeps reference counting simple); Read transactions run
// concurrently on a snapshot. A transaction object must not escape its
// callback. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "meta/accounts_txn.h"
#include "meta/content_txn.h"
#include "meta/dav_txn.h"
#include "meta/digest.h"
#include "meta/groupware_txn.h"
#include "meta/history_txn.h"
#include "meta/media_txn.h"
#include "meta/music_txn.h"
#include "meta/nc_txn.h"
#include "meta/nodes_txn.h"
#include "meta/search_txn.h"
#include "meta/sharing_txn.h"
#include "util/status.h"

namespace nubo::meta {

// Every read of every capability, on one consistent snapshot.
class ReadTxn : public ContentReads,
                public AccountReads,
                public NodeReads,
                public DavReads,
                public SharingReads,
                public SearchReads,
                public HistoryReads,
                public GroupwareReads,
                public MediaReads,
                public MusicReads,
                public NcReads {
 public:
  ~ReadTxn() override = default;
};

// A write transaction reads what it wrote before.
class WriteTxn : public ReadTxn,
                 public ContentWrites,
                 public AccountWrites,
                 public NodeWrites,
                 public DavWrites,
                 public SharingWrites,
                 public SearchWrites,
                 public HistoryWrites,
                 public GroupwareWrites,
                 public MediaWrites,
                 public MusicWrites,
                 public NcWrites {
 public:
  ~WriteTxn() override = default;
};

class MetaStore {
 public:
  virtual ~MetaStore() = default;

  // Runs `fn` in a read transaction over one consistent snapshot.
  virtual Status Read(const std::function<Status(ReadTxn&)>& fn) = 0;
  // Runs `fn` in the (serialized) write transaction; commits iff `fn`
  // returns OK and the commit is durable, else rolls back and returns the
  // error. Aborted when another process held the database too long.
  // Concurrent calls may share one transaction and one durable commit
  // (group commit): each `fn` still sees the writes queued before it and
  // fails alone, but may run on another caller's thread — and more than
  // once: a run whose transaction was rolled back (another write of its
  // batch failed, or PostgreSQL undid it) is run again from the start, so
  // `fn` overwrites what it hands out, and acts on nothing outside the
  // transaction.
  virtual Status Write(const std::function<Status(WriteTxn&)>& fn) = 0;

  // Highest applied migration.
  virtual Result<int> SchemaVersion() = 0;

  // A number that tells a reader whether the database may have changed.
  // When a write of this store commits after a call returned s, every call
  // that starts after the Write returned answers a larger number; a commit
  // by another process (another store on the same database) does the same
  // for every call that starts a short, engine-defined time after it
  // (SQLite: 1 ms). Calls may also differ without a write in between (a
  // cache keyed by it then misses, never answers stale). nullopt: the
  // engine cannot tell cheaply (PostgreSQL: another node's write leaves
  // no trace here), so nothing may be cached by it.
  virtual std::optional<uint64_t> ChangeStamp() { return std::nullopt; }

  // Gathers planner statistics for tables that have grown without any
  // (PostgreSQL in its first minutes on a new database, before
  // autovacuum's first analyze: without statistics a prepared statement
  // can settle on a plan that reads a whole folder to find one name, and
  // keep it). Cheap when nothing is due; other engines need nothing.
  virtual Status RefreshStatistics() { return Status::Ok(); }

  // Write calls served and the durable commits that served them (fewer
  // when concurrent writes shared a commit), for /metrics; `reruns`: the
  // shared transactions rolled back and run again write by write because
  // one of their writes failed (SQLite; PostgreSQL runs savepoints).
  struct WriteStats {
    uint64_t writes = 0;
    uint64_t commits = 0;
    uint64_t reruns = 0;
  };
  virtual WriteStats Stats() const = 0;
};

}  // namespace nubo::meta
