#include "auth/authz.h"

namespace nubo::authz {

const char* ActionName(Action a) {
  switch (a) {
    case Action::kRead: return "read";
    case Action::kList: return "list";
    case Action::kCreate: return "create";
    case Action::kModify: return "modify";
    case Action::kDelete: return "delete";
    case Action::kShare: return "share";
    case Action::kManage: return "manage";
    case Action::kAdmin: return "admin";
  }
  return "?";
}

Status NodeHidden() { return Status::NotFound("no such file or folder"); }

Result<std::optional<int64_t>> Checker::Owner(int64_t drive_id) {
  if (auto it = owners_.find(drive_id); it != owners_.end()) return it->second;
  NUBO_ASSIGN_OR_RETURN(auto d, txn_.GetDrive(drive_id));
  std::optional<int64_t> owner = d ? d->owner_id : std::nullopt;
  owners_.emplace(drive_id, owner);
  return owner;
}

Result<Perms> Checker::OnDrive(int64_t drive_id) {
  // A credential without the files scope sees no files at all (a
  // calendar-only app password), exactly as if there were none.
  if (who_.anonymous() || !who_.Has(auth::kScopeFiles)) return NodeHidden();
  NUBO_ASSIGN_OR_RETURN(auto owner, Owner(drive_id));
  if (owner && *owner == who_.user_id) return Perms::AllNode();
  return NodeHidden();
}

Result<Perms> Checker::On(const meta::NodeRow& node) { return OnDrive(node.drive_id); }

namespace {

Status Denied(Action a) {
  return Status::PermissionDenied(std::string("you may not ") + ActionName(a) + " here");
}

}  // namespace

Status Checker::Require(const meta::NodeRow& node, Action a) {
  NUBO_ASSIGN_OR_RETURN(Perms p, On(node));
  return p.Has(a) ? Status::Ok() : Denied(a);
}

Status Checker::RequireDrive(int64_t drive_id, Action a) {
  NUBO_ASSIGN_OR_RETURN(Perms p, OnDrive(drive_id));
  return p.Has(a) ? Status::Ok() : Denied(a);
}

Status Check(meta::ReadTxn& txn, const auth::Principal& who, const meta::NodeRow& node, Action a) {
  return Checker(txn, who).Require(node, a);
}

Status CheckScope(const auth::Principal& who, uint32_t scope) {
  if (who.anonymous()) return Status::Unauthenticated("authentication required");
  if (who.Has(scope)) return Status::Ok();
  if (who.credential == auth::Credential::kAppPassword) {
    return Status::PermissionDenied(
        "app passwords may not do this; sign in with your account password");
  }
  return Status::PermissionDenied("this credential may not do this");
}

Status CheckAdmin(const auth::Principal& who) {
  if (who.anonymous()) return Status::Unauthenticated("authentication required");
  if (!who.admin) return Status::PermissionDenied("administrators only");
  return CheckScope(who, auth::kScopeAdmin);
}

}  // namespace nubo::authz
