// MetaStore: nubo's metadata, behind explicit transactions.
//
// Domain code talks to typed operations (this header), never to SQL, so a
// PostgreSQL backend can implement the same interface; the conformance
// suite (meta/meta_store_conformance_test.cc) holds every backend to it.
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
#include <string>
#include <vector>

#include "util/blake3_hash.h"
#include "util/status.h"

namespace nubo::meta {

using Digest = Blake3Digest;

struct ManifestRow {
  int64_t id = 0;
  Digest hash{};      // BLAKE3 of the whole content
  uint64_t size = 0;  // bytes
  int64_t refs = 0;   // referencing rows (pins; later nodes, versions, upload sessions)
};

struct ManifestChunk {
  uint32_t seq = 0;     // 0-based order in the manifest
  Digest hash{};
  uint64_t offset = 0;  // of the chunk's first byte in the content
  uint32_t size = 0;
};

struct ChunkRow {
  Digest hash{};
  uint64_t size = 0;
  int64_t refs = 0;  // distinct manifests listing the chunk
  std::optional<int64_t> orphaned_at_ms;  // set when refs dropped to 0
};

struct UserRow {
  int64_t id = 0;
  std::string public_id;
  std::string username;
  std::optional<std::string> email;
  std::string display_name;
  std::string password_hash;  // Argon2id encoded; empty: no password login
  std::string role;           // "admin" | "user"
  bool active = true;
  std::optional<int64_t> quota_bytes;
  int64_t credentials_version = 0;
  int64_t created_at_ms = 0;
  std::optional<int64_t> last_login_at_ms;
};

struct AppPasswordRow {
  int64_t id = 0;
  int64_t user_id = 0;
  std::string label;
  Digest secret_hash{};
  int64_t created_at_ms = 0;
  std::optional<int64_t> last_used_at_ms;
};

struct SessionRow {
  int64_t id = 0;
  std::string public_id;
  int64_t user_id = 0;
  std::string family_id;      // every rotation of one sign-in shares it
  Digest refresh_hash{};      // BLAKE3 of the current refresh token
  int64_t created_at_ms = 0;
  int64_t expires_at_ms = 0;
  std::optional<int64_t> revoked_at_ms;
  std::string user_agent;
  std::string ip;
};

class ReadTxn {
 public:
  virtual ~ReadTxn() = default;

  virtual Result<std::optional<ManifestRow>> FindManifest(const Digest& hash) = 0;
  virtual Result<std::optional<ManifestRow>> GetManifest(int64_t id) = 0;
  // The manifest's chunk list in order.
  virtual Result<std::vector<ManifestChunk>> ManifestChunks(int64_t manifest_id) = 0;
  virtual Result<std::optional<ChunkRow>> GetChunk(const Digest& hash) = 0;

  // Keyset pages (ascending), for fsck and GC: at most `limit` rows after
  // the given key (none: from the start).
  virtual Result<std::vector<ManifestRow>> ListManifests(int64_t after_id, size_t limit) = 0;
  virtual Result<std::vector<ChunkRow>> ListChunks(const std::optional<Digest>& after,
                                                   size_t limit) = 0;
  // Chunks with refs = 0 orphaned at or before `before_ms`.
  virtual Result<std::vector<ChunkRow>> ListOrphanChunks(int64_t before_ms, size_t limit) = 0;

  // Pins: named references to manifests held by tools and tests (fixtures,
  // imports). Nodes, versions and upload sessions will be referencing
  // tables of their own, counted the same way.
  virtual Result<std::optional<int64_t>> GetPin(const std::string& name) = 0;
  // (name, manifest id) pairs with name > `after`, by name.
  virtual Result<std::vector<std::pair<std::string, int64_t>>> ListPins(const std::string& after,
                                                                       size_t limit) = 0;
  // Number of referencing rows per manifest (for fsck), keyed by id.
  virtual Result<std::vector<std::pair<int64_t, int64_t>>> CountManifestReferences() = 0;
  // Number of distinct manifests listing each chunk (for fsck).
  virtual Result<std::vector<std::pair<Digest, int64_t>>> CountChunkReferences() = 0;

  // Users. Names compare case-insensitively.
  virtual Result<std::optional<UserRow>> GetUserByName(const std::string& username) = 0;
  virtual Result<std::optional<UserRow>> GetUser(int64_t id) = 0;
  // Users with lower(username) > `after_key` (and starting with `prefix`,
  // compared case-insensitively, when given), by name.
  virtual Result<std::vector<UserRow>> ListUsers(const std::string& after_key, size_t limit,
                                                 const std::string& prefix = "") = 0;
  virtual Result<int64_t> CountUsers() = 0;
  virtual Result<int64_t> CountActiveAdmins() = 0;

  virtual Result<std::optional<AppPasswordRow>> FindAppPassword(const Digest& secret_hash) = 0;
  virtual Result<std::vector<AppPasswordRow>> ListAppPasswords(int64_t user_id) = 0;

  virtual Result<std::optional<SessionRow>> FindSessionByRefresh(const Digest& refresh_hash) = 0;
  virtual Result<std::optional<SessionRow>> GetSession(const std::string& public_id) = 0;
  // Live (not revoked, not expired at `now_ms`) sessions of a user, newest first.
  virtual Result<std::vector<SessionRow>> ListSessions(int64_t user_id, int64_t now_ms) = 0;

  virtual Result<std::optional<std::string>> GetSetting(const std::string& key) = 0;
};

class WriteTxn : public ReadTxn {
 public:
  // New manifest with refs = 0 and its chunk list. AlreadyExists if the hash is known.
  virtual Result<int64_t> InsertManifest(const Digest& hash, uint64_t size,
                                         const std::vector<ManifestChunk>& chunks) = 0;
  virtual Status SetManifestRefs(int64_t id, int64_t refs) = 0;
  // Removes the manifest and its chunk list.
  virtual Status DeleteManifest(int64_t id) = 0;

  virtual Status InsertChunk(const ChunkRow& row) = 0;
  virtual Status SetChunkRefs(const Digest& hash, int64_t refs,
                              std::optional<int64_t> orphaned_at_ms) = 0;
  virtual Status DeleteChunk(const Digest& hash) = 0;

  // AlreadyExists if `name` is pinned.
  virtual Status InsertPin(const std::string& name, int64_t manifest_id) = 0;
  virtual Status DeletePin(const std::string& name) = 0;

  // AlreadyExists when the name (case-insensitively) or email is taken.
  // Fills `row.id`.
  virtual Status InsertUser(UserRow& row) = 0;
  // Writes every mutable field of `row` (matched by id). NotFound if gone.
  virtual Status UpdateUser(const UserRow& row) = 0;

  virtual Result<int64_t> InsertAppPassword(const AppPasswordRow& row) = 0;
  virtual Status DeleteAppPassword(int64_t user_id, int64_t id) = 0;
  virtual Status TouchAppPassword(int64_t id, int64_t now_ms) = 0;

  // Fills `row.id`.
  virtual Status InsertSession(SessionRow& row) = 0;
  virtual Status RevokeSession(int64_t id, int64_t now_ms) = 0;
  virtual Status RevokeSessionFamily(const std::string& family_id, int64_t now_ms) = 0;
  // Every live session of the user except `keep_id` (0: none kept).
  virtual Status RevokeUserSessions(int64_t user_id, int64_t keep_id, int64_t now_ms) = 0;

  virtual Status SetSetting(const std::string& key, const std::string& value) = 0;
  // Inserts `key` only if absent; returns the stored value either way.
  virtual Result<std::string> SetSettingIfAbsent(const std::string& key, const std::string& value) = 0;
};

class MetaStore {
 public:
  virtual ~MetaStore() = default;

  // Runs `fn` in a read transaction over one consistent snapshot.
  virtual Status Read(const std::function<Status(ReadTxn&)>& fn) = 0;
  // Runs `fn` in the (serialized) write transaction; commits iff `fn`
  // returns OK and the commit is durable, else rolls back and returns the
  // error. Aborted when another process held the database too long.
  virtual Status Write(const std::function<Status(WriteTxn&)>& fn) = 0;

  // Highest applied migration.
  virtual Result<int> SchemaVersion() = 0;
};

}  // namespace nubo::meta
