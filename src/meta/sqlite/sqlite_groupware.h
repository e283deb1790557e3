// The SQLite backend's calendars and address books: the statements behind
// the MetaStore's groupware methods, run on the transaction's connection.
// Internal to meta/sqlite.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "meta/meta_store.h"
#include "meta/sqlite/sqlite_conn.h"

namespace nubo::meta::sqlite {

Result<std::optional<DavCollectionRow>> GetDavCollection(sql::Conn& c, int64_t user_id, int kind,
                                                         const std::string& name);
Result<std::vector<DavCollectionRow>> ListDavCollections(sql::Conn& c, int64_t user_id, int kind);
Result<std::vector<DavShareRow>> ListDavShares(sql::Conn& c, int64_t collection_id);
Result<std::optional<bool>> DavShareAccess(sql::Conn& c, int64_t collection_id, int64_t user_id,
                                           const std::vector<int64_t>& groups);
Result<std::vector<SharedDavCollection>> ListDavCollectionsSharedWith(
    sql::Conn& c, int64_t user_id, const std::vector<int64_t>& groups, int kind);
Status SetDavShare(sql::Conn& c, int64_t collection_id, bool is_group, int64_t grantee_id,
                   bool read_only, int64_t at_ms);
Result<bool> RemoveDavShare(sql::Conn& c, int64_t collection_id, bool is_group, int64_t grantee_id);
Result<std::optional<DavObjectRow>> GetDavObject(sql::Conn& c, int64_t collection_id,
                                                 const std::string& name);
Result<std::optional<DavObjectRow>> GetDavObjectByUid(sql::Conn& c, int64_t collection_id,
                                                      const std::string& uid);
Status ScanDavObjects(sql::Conn& c, int64_t collection_id, const std::string& after_name,
                      size_t limit, bool with_data,
                      const std::function<Status(const DavObjectRow&)>& fn);
Result<std::vector<DavObjectRow>> ListDavObjectsInRange(sql::Conn& c, int64_t collection_id,
                                                        std::optional<int64_t> start_ms,
                                                        std::optional<int64_t> end_ms,
                                                        const std::string& after_name,
                                                        size_t limit);
Result<std::vector<DavChange>> DavChangesSince(sql::Conn& c, int64_t collection_id,
                                               int64_t since_seq, size_t limit);
Result<std::vector<DavDeadProp>> ListDavCollectionProps(sql::Conn& c, int64_t collection_id);

Status InsertDavCollection(sql::Conn& c, DavCollectionRow& row);
Status UpdateDavCollection(sql::Conn& c, const DavCollectionRow& row);
Status DeleteDavCollection(sql::Conn& c, int64_t id);
Status PutDavObject(sql::Conn& c, DavObjectRow& row);
Status DeleteDavObject(sql::Conn& c, int64_t collection_id, const std::string& name);
Status SetDavCollectionProp(sql::Conn& c, int64_t collection_id, const std::string& ns,
                            const std::string& name, const std::optional<std::string>& value);

}  // namespace nubo::meta::sqlite
