// Rows the MetaStore tests start from (test-only): one account with its
// personal drive, a drive's root folder, and folders below it.
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

// Alice, her drive and its root folder, for tests that need only the root.
inline Status InsertAliceWithRoot(WriteTxn& t, NodeRow& root) {
  UserRow u;
  DriveRow d;
  NUBO_RETURN_IF_ERROR(InsertAliceAndDrive(t, u, d));
  return InsertRoot(t, d, root);
}

// A folder in `parent` named `name` (its name key and sort key too).
inline Status InsertFolder(WriteTxn& t, const NodeRow& parent, const std::string& public_id,
                           const std::string& name, NodeRow& n) {
  n.public_id = public_id;
  n.drive_id = parent.drive_id;
  n.parent_id = parent.id;
  n.name = n.name_key = n.sort_key = name;
  n.mime = "inode/directory";
  return t.InsertNode(n);
}

}  // namespace nubo::meta::test_rows
