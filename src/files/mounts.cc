// Received shares in the recipient's own tree (docs/sharing.md, "Received
// shares in your own tree"). A share is not copied or linked into the
// recipient's drive: where it appears is computed from the grants that
// reach the recipient, plus a share_mounts row once the recipient renamed
// or moved it. So a grant, its revocation, a group joined or left, an
// expiry or a move out of the shared folder shows at once, with no rows to
// keep in step, and nothing the recipient does to a mount point touches the
// owner's tree.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "files/access.h"
#include "files/files.h"
#include "files/locks.h"
#include "files/names.h"
#include "util/time.h"

namespace nubo::files {

using meta::NodeRow;

namespace {

// A recipient sees at most this many received shares in its tree (the
// REST "shared with me" list pages through all of them).
constexpr size_t kMaxMounts = 1000;

// FNV-1a, 64 bits: a stable digest (ETags must survive restarts) of the
// mounted shares' ETags; not a security boundary.
uint64_t Fnv1a(std::string_view s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// The folders from each mount's parent up to the root (parent first),
// looked up once per parent (shares mostly sit in one folder, one level
// down) and parent by parent: primary-key probes, where Ancestors' walk
// builds a temporary table on every poll of the root.
using Chains = std::unordered_map<int64_t, std::vector<NodeRow>>;
Result<const std::vector<NodeRow>*> ChainOf(meta::ReadTxn& t, Chains& chains, int64_t parent_id) {
  auto c = chains.find(parent_id);
  if (c == chains.end()) {
    std::vector<NodeRow> up;
    for (int64_t at = parent_id; up.size() <= kMaxDepth;) {
      NUBO_ASSIGN_OR_RETURN(auto n, t.GetNode(at, 0));
      if (!n) break;
      up.push_back(std::move(*n));
      if (!up.back().parent_id) break;
      at = *up.back().parent_id;
    }
    c = chains.emplace(parent_id, std::move(up)).first;
  }
  return &c->second;
}

}  // namespace

Result<std::vector<Mount>> Files::AllMounts(meta::ReadTxn& t, authz::Checker& check,
                                            const Principal& who, const meta::DriveRow& home,
                                            bool with_hidden) {
  std::vector<Mount> out;
  if (who.link() || !who.user_id) return out;
  // Most requests come from someone nothing is shared with: index probes
  // answer that, where resolving groups and the listing below build
  // temporary tables.
  NUBO_ASSIGN_OR_RETURN(bool may, t.MayHoldGrants(who.user_id));
  if (!may) return out;
  NUBO_ASSIGN_OR_RETURN(const std::vector<int64_t>* groups, check.Groups());
  NUBO_ASSIGN_OR_RETURN(auto shared,
                        t.ListSharedWith(who.user_id, *groups, UnixMillis(), 0, kMaxMounts));
  if (shared.empty()) return out;
  // The share folder: the configured path if it is a folder, else the root.
  int64_t share_folder = home.root_id;
  {
    int64_t at = home.root_id;
    bool found = true;
    for (const std::string& seg : options_.share_folder) {
      NUBO_ASSIGN_OR_RETURN(auto n, t.FindChild(at, NameKey(seg), 0));
      if (!n || !n->folder()) {
        found = false;
        break;
      }
      at = n->id;
    }
    if (found) share_folder = at;
  }
  NUBO_ASSIGN_OR_RETURN(auto rows, t.ListShareMounts(who.user_id));
  std::map<int64_t, meta::ShareMountRow> placed;
  for (auto& r : rows) placed.emplace(r.node_id, std::move(r));
  std::map<int64_t, bool> parent_ok;  // a placed parent: a live folder of `home`
  std::vector<Mount> hidden;          // with_hidden: after the others
  // The shared nodes in one statement (a recipient of a thousand shares
  // would otherwise pay a thousand lookups on every request to their tree).
  std::unordered_map<int64_t, NodeRow> nodes;
  {
    std::vector<int64_t> ids;
    ids.reserve(shared.size());
    for (const meta::SharedNode& s : shared) ids.push_back(s.node_id);
    NUBO_ASSIGN_OR_RETURN(auto rows, t.GetNodes(ids, who.user_id));
    for (NodeRow& r : rows) nodes.emplace(r.id, std::move(r));
  }
  {
    // Reshares are checked below: their grant lookups in one statement.
    std::vector<const NodeRow*> reshared;
    for (const meta::SharedNode& s : shared) {
      auto n = nodes.find(s.node_id);
      if (!s.owner_made && n != nodes.end() && n->second.live()) reshared.push_back(&n->second);
    }
    NUBO_RETURN_IF_ERROR(check.Prime(reshared));
  }
  for (const meta::SharedNode& s : shared) {
    auto found = nodes.find(s.node_id);
    if (found == nodes.end()) continue;
    std::optional<NodeRow> n = std::move(found->second);
    if (!n->live() || n->drive_id == home.id) continue;
    // A grant its drive's owner made holds as long as it exists (the
    // listing left out expired ones); a reshare only while its maker may
    // still share, which the checker decides.
    if (!s.owner_made && !check.On(*n).ok()) continue;
    Mount m;
    m.parent_id = share_folder;
    m.name = n->name;
    if (auto p = placed.find(n->id); p != placed.end()) {
      const auto& row = p->second;
      if (row.hidden) {
        // Removed from the tree by its recipient: no name, no place.
        if (!with_hidden) continue;
        m.hidden = true;
        m.placed = !row.name.empty();
        if (m.placed) {
          m.name = row.name;
          m.parent_id = row.parent_id.value_or(share_folder);
        }
        m.node = std::move(*n);
        hidden.push_back(std::move(m));
        continue;
      }
      bool ok = !row.name.empty();
      if (row.parent_id) {
        auto known = parent_ok.find(*row.parent_id);
        if (known == parent_ok.end()) {
          NUBO_ASSIGN_OR_RETURN(auto parent, t.GetNode(*row.parent_id, 0));
          ok = parent && parent->live() && parent->folder() && parent->drive_id == home.id;
          parent_ok.emplace(*row.parent_id, ok);
        } else {
          ok = known->second;
        }
      }
      if (ok) {
        m.parent_id = row.parent_id.value_or(share_folder);
        m.name = row.name;
        m.placed = true;
      }
    }
    m.node = std::move(*n);
    out.push_back(std::move(m));
  }
  // Names: own items keep theirs; then shares the recipient placed, then
  // the others, each in the order the shared nodes were made; a taken name
  // is numbered as a restore numbers it ("Docs (2)", "report (2).pdf").
  std::stable_sort(out.begin(), out.end(),
                   [](const Mount& a, const Mount& b) { return a.placed > b.placed; });
  // Which of the names the recipient's own items hold: one statement per
  // folder the shares appear in (most often one, the share folder); only
  // a numbered name is looked up on its own.
  std::set<std::pair<int64_t, std::string>> own;
  {
    std::map<int64_t, std::vector<std::string>> asked;
    for (const Mount& m : out) asked[m.parent_id].push_back(NameKey(m.name));
    for (const auto& [parent, keys] : asked) {
      NUBO_ASSIGN_OR_RETURN(auto held, t.TakenChildKeys(parent, keys));
      for (std::string& key : held) own.emplace(parent, std::move(key));
    }
  }
  std::set<std::pair<int64_t, std::string>> taken;
  for (Mount& m : out) {
    std::string name = m.name;
    for (int k = 2;; ++k) {
      const std::string key = NameKey(name);
      bool free = !taken.count({m.parent_id, key});
      if (free && k == 2) {
        free = !own.count({m.parent_id, key});
      } else if (free) {
        NUBO_ASSIGN_OR_RETURN(auto held, t.FindChild(m.parent_id, key, 0));
        free = !held;
      }
      if (free || k > 1000) break;
      name = NumberedName(m.name, m.node.folder(), k);
    }
    taken.insert({m.parent_id, NameKey(name)});
    m.name = std::move(name);
  }
  std::sort(out.begin(), out.end(), [](const Mount& a, const Mount& b) {
    return std::tie(a.parent_id, a.name) < std::tie(b.parent_id, b.name);
  });
  for (Mount& m : hidden) out.push_back(std::move(m));
  return out;
}

Result<std::vector<Mount>> Files::Mounts(const Principal& who) {
  std::vector<Mount> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(auto home, DriveFor(t, who, "", static_cast<int>(Action::kList)));
    NUBO_ASSIGN_OR_RETURN(out, AllMounts(t, check, who, home));
    return Status::Ok();
  }));
  return out;
}

Result<std::unordered_map<int64_t, std::string>> Files::TagsOf(meta::ReadTxn& t,
                                                               const std::vector<Mount>& all) {
  std::unordered_map<int64_t, std::string> out;
  if (all.empty()) return out;
  // Each folder from a mount's parent up to the root folds in the mount's
  // name and ETag (mounts are sorted, so the digest is stable).
  std::unordered_map<int64_t, uint64_t> digest;
  Chains chains;
  for (const Mount& m : all) {
    NUBO_ASSIGN_OR_RETURN(const std::vector<NodeRow>* chain, ChainOf(t, chains, m.parent_id));
    const std::string part = m.name + '\n' + NodeETag(m.node) + '\n';
    for (const NodeRow& f : *chain) {
      auto [it, fresh] = digest.emplace(f.id, 1469598103934665603ull);
      it->second = Fnv1a(part, it->second);
    }
  }
  static constexpr char kHex[] = "0123456789abcdef";
  for (const auto& [id, h] : digest) {
    std::string s(16, '0');
    for (int i = 0; i < 16; ++i) s[i] = kHex[(h >> (60 - 4 * i)) & 0xF];
    out.emplace(id, std::move(s));
  }
  return out;
}

Result<std::unordered_map<int64_t, std::string>> Files::MountPaths(const Principal& who) {
  std::unordered_map<int64_t, std::string> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(auto home, DriveFor(t, who, "", static_cast<int>(Action::kList)));
    NUBO_ASSIGN_OR_RETURN(auto all, AllMounts(t, check, who, home));
    Chains chains;
    for (const Mount& m : all) {
      NUBO_ASSIGN_OR_RETURN(const std::vector<NodeRow>* chain, ChainOf(t, chains, m.parent_id));
      std::string path;
      for (auto it = chain->rbegin(); it != chain->rend(); ++it) {
        if (it->parent_id) path += "/" + it->name;
      }
      out.emplace(m.node.id, path + "/" + m.name);
    }
    return Status::Ok();
  }));
  return out;
}

Status Files::PlaceMount(const Principal& who, int64_t node_id, const NodeRow& parent,
                         const std::string& name, const std::vector<std::string>& lock_tokens) {
  NUBO_ASSIGN_OR_RETURN(std::string valid, ValidateName(name));
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(auto home, DriveFor(t, who, "", static_cast<int>(Action::kList)));
    NUBO_ASSIGN_OR_RETURN(auto to, t.GetNode(parent.id, 0));
    if (!to || !to->live() || !to->folder() || to->drive_id != home.id) {
      return Status::Conflict("the destination folder does not exist in your own files");
    }
    NUBO_ASSIGN_OR_RETURN(auto all, AllMounts(t, check, who, home));
    const std::string key = NameKey(valid);
    const Mount* mine = nullptr;
    for (const Mount& m : all) {
      if (m.node.id == node_id) {
        mine = &m;
      } else if (m.parent_id == to->id && NameKey(m.name) == key) {
        return Status::AlreadyExists("\"" + valid + "\" already exists in this folder");
      }
    }
    if (!mine) return NodeNotFound();
    NUBO_ASSIGN_OR_RETURN(auto own, t.FindChild(to->id, key, 0));
    if (own) return Status::AlreadyExists("\"" + valid + "\" already exists in this folder");
    // The mount point leaves one folder's members and joins another's: a
    // lock on either (or above, depth infinity) asks for its token, as for
    // any MOVE (RFC 4918 §7.4, §9.9.4).
    NUBO_ASSIGN_OR_RETURN(auto from, t.GetNode(mine->parent_id, 0));
    if (from) NUBO_RETURN_IF_ERROR(CheckNewMemberLocks(t, who, *from, mine->name, lock_tokens));
    NUBO_RETURN_IF_ERROR(CheckNewMemberLocks(t, who, *to, valid, lock_tokens));
    meta::ShareMountRow row{who.user_id, node_id, to->id, valid};
    return t.PutShareMount(row);
  });
}

Status Files::HideMount(const Principal& who, std::string_view node_id, bool hidden,
                        const std::vector<std::string>& lock_tokens) {
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(auto home, DriveFor(t, who, "", static_cast<int>(Action::kList)));
    if (node_id.size() > 64) return NodeNotFound();
    NUBO_ASSIGN_OR_RETURN(auto n, t.GetNodeByPublicId(std::string(node_id), 0));
    if (!n) return NodeNotFound();
    NUBO_ASSIGN_OR_RETURN(auto all, AllMounts(t, check, who, home, /*with_hidden=*/true));
    const Mount* mine = nullptr;
    for (const Mount& m : all) {
      if (m.node.id == n->id) mine = &m;
    }
    // Not a share of the caller's (or not one its tree can show).
    if (!mine) return NodeNotFound();
    if (mine->hidden == hidden) return Status::Ok();
    NUBO_ASSIGN_OR_RETURN(auto rows, t.ListShareMounts(who.user_id));
    std::optional<meta::ShareMountRow> row;
    for (auto& r : rows) {
      if (r.node_id == n->id) row = std::move(r);
    }
    if (hidden) {
      // The mount point leaves its folder's members: a lock there (or
      // above, depth infinity) asks for its token (RFC 4918 §7.4).
      NUBO_ASSIGN_OR_RETURN(auto from, t.GetNode(mine->parent_id, 0));
      if (from) NUBO_RETURN_IF_ERROR(CheckNewMemberLocks(t, who, *from, mine->name, lock_tokens));
      if (!row) row = meta::ShareMountRow{who.user_id, n->id, std::nullopt, ""};
      row->hidden = true;
      return t.PutShareMount(*row);
    }
    // Shown again where it was, under the name it had (numbered if that is
    // taken now); a share never placed has no row left.
    if (!row || row->name.empty()) return t.DeleteShareMount(who.user_id, n->id);
    row->hidden = false;
    return t.PutShareMount(*row);
  });
}

}  // namespace nubo::files
