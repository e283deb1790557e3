// Rows the MetaStore tests start from (test-only): one account with its
// personal drive, and a drive's root folder.
#pragma once

#include <string>

#include "meta/meta_store.h"
#include "util/status.h"

namespace nubo::meta::test_rows {

// User "alice" (public id u1) and her personal drive d1, filled in.
inline Status InsertAliceAndDrive(WriteTxn& t, UserRow& u, DriveRow& d) {
  u.public_id = "u1";
  u.username = u.display_name = "alice";
  u.role = "user";
  NUBO_RETURN_IF_ERROR(t.InsertUser(u));
  d.public_id = "d1";
  d.kind = "personal";
  d.name = "Personal";
  d.owner_id = u.id;
  return t.InsertDrive(d);
}

// The drive's root folder ("root" unless told).
inline Status InsertRoot(WriteTxn& t, const DriveRow& d, NodeRow& root,
                         const std::string& public_id = "root") {
  root.public_id = public_id;
  root.drive_id = d.id;
  root.mime = "inode/directory";
  NUBO_RETURN_IF_ERROR(t.InsertNode(root));
  return t.SetDriveRoot(d.id, root.id);
}

}  // namespace nubo::meta::test_rows
