// RFC 4918 §9.1 PROPFIND. The multistatus streams: the target's response
// first, then its members page by page from the keyset listing, each page
// serialized only when the transport asks for more bytes — memory is one
// page whatever the folder size, and the first byte leaves early. Depth
// infinity is refused with propfind-finite-depth (§9.1) unless enabled.
#include <algorithm>
#include <climits>
#include <cstring>
#include <unordered_map>
#include <utility>

#include "auth/tokens.h"
#include "dav/context.h"
#include "dav/props.h"
#include "dav/request_headers.h"
#include "dav/xml_reader.h"
#include "dav/xml_writer.h"
#include "files/names.h"
#include "util/strings.h"

namespace nubo::dav {

namespace {

using meta::NodeRow;

struct PropRequest {
  enum class Kind { kAllprop, kPropname, kProp } kind = Kind::kAllprop;
  std::vector<std::pair<std::string, std::string>> props;    // kProp
  std::vector<std::pair<std::string, std::string>> include;  // allprop's <include>
};

Result<PropRequest> ParseBody(const std::string& body, const DavOptions& opt) {
  PropRequest r;
  if (body.empty()) return r;  // §9.1: no body means allprop
  XmlLimits limits;
  limits.max_bytes = opt.max_xml_body;
  NUBO_ASSIGN_OR_RETURN(XmlElement root, ParseXml(body, limits));
  if (root.ns != kDavNs || root.name != "propfind") {
    return Status::InvalidArgument("the body must be a DAV:propfind element");
  }
  bool seen = false;
  for (const XmlElement& e : root.children) {
    if (e.ns != kDavNs) continue;  // §17: unknown elements are ignored
    if (e.name == "allprop" || e.name == "propname" || e.name == "prop") {
      if (seen) return Status::InvalidArgument("propfind must hold one of allprop, propname, prop");
      seen = true;
    }
    if (e.name == "allprop") r.kind = PropRequest::Kind::kAllprop;
    if (e.name == "propname") r.kind = PropRequest::Kind::kPropname;
    if (e.name == "prop") {
      r.kind = PropRequest::Kind::kProp;
      for (const XmlElement& p : e.children) r.props.emplace_back(p.ns, p.name);
    }
    if (e.name == "include") {
      for (const XmlElement& p : e.children) r.include.emplace_back(p.ns, p.name);
    }
  }
  if (!seen) return Status::InvalidArgument("propfind must hold one of allprop, propname, prop");
  return r;
}

// The live properties a listed member's meta::ListColumns::kBasic fields
// (name, kind, size, type, times, content hash, change number) and the
// folder's drive are enough for; the rest of each is read apart, by node
// id (locks, shares, favourites, checksums, permissions, dead
// properties). Not DAV:sync-token, which names the member's public id. A
// property not named here reads every column.
bool ReadsBasicFields(const LiveProp& p) {
  struct Name {
    std::string_view ns, name;
  };
  static constexpr Name kBasic[] = {{kDavNs, "resourcetype"},
                                    {kDavNs, "getcontentlength"},
                                    {kDavNs, "getcontenttype"},
                                    {kDavNs, "getetag"},
                                    {kDavNs, "getlastmodified"},
                                    {kDavNs, "creationdate"},
                                    {kDavNs, "displayname"},
                                    {kDavNs, "supportedlock"},
                                    {kDavNs, "lockdiscovery"},
                                    {kDavNs, "supported-report-set"},
                                    {kDavNs, "quota-used-bytes"},
                                    {kDavNs, "quota-available-bytes"},
                                    {kOcNs, "fileid"},
                                    {kOcNs, "id"},
                                    {kOcNs, "permissions"},
                                    {kOcNs, "size"},
                                    {kOcNs, "favorite"},
                                    {kOcNs, "owner-id"},
                                    {kOcNs, "owner-display-name"},
                                    {kOcNs, "checksums"},
                                    {kOcNs, "share-types"},
                                    {kOcNs, "data-fingerprint"},
                                    {kNcNs, "has-preview"},
                                    {kNcNs, "mount-type"},
                                    {kNcNs, "is-encrypted"}};
  return std::any_of(std::begin(kBasic), std::end(kBasic),
                     [&](const Name& n) { return n.ns == p.ns && n.name == p.name; });
}

// RFC 6578 sync-collection on a folder: where to start, how deep, how many.
struct SyncSpec {
  files::SyncPosition after;
  bool initial = false;         // no token: the members, no removals (§3.8)
  bool infinite = false;        // sync-level infinite: changed subfolders answer 403 (§3.3)
  std::optional<size_t> limit;  // DAV:limit/DAV:nresults (§3.6)
};

class PropfindSource final : public http::BodySource {
 public:
  // `c` is copied: the body is read after the handler returned.
  // `favorites`: the REPORT oc:filter-files answer instead (the caller's
  // favorites in this tree, wherever they lie in it).
  PropfindSource(const DavContext& c, PropRequest pr, Depth depth, bool favorites = false)
      : c_(c),
        pr_(std::move(pr)),
        depth_(depth),
        favorites_report_(favorites),
        env_(c_, favorites || (depth != Depth::kZero && c.target.node && c.target.node->folder())) {
    // What every response asks for, resolved once rather than per node.
    need_dead_ = pr_.kind != PropRequest::Kind::kProp;
    for (const auto& [ns, name] : pr_.props) {
      const LiveProp* p = FindLiveProp(ns, name);
      asked_.push_back(p);
      need_dead_ |= p == nullptr;
      favorites_ |= ns == kOcNs && name == "favorite";
      checksums_ |= ns == kOcNs && name == "checksums";
      share_types_ |= ns == kOcNs && name == "share-types";
    }
    if (pr_.kind == PropRequest::Kind::kAllprop) {
      for (const LiveProp& p : LiveProps()) {
        bool included = p.in_allprop;
        for (const auto& [ns, name] : pr_.include) included |= (ns == p.ns && name == p.name);
        if (included) allprop_.push_back(&p);
      }
    }
    // A Depth 1 listing whose live properties need no more than the basic
    // columns reads only those (a deeper walk needs each folder's public
    // id; dead properties and propname's names are found by node id).
    basic_columns_ = depth_ == Depth::kOne;
    for (const LiveProp* p : pr_.kind == PropRequest::Kind::kAllprop ? allprop_ : asked_) {
      basic_columns_ = basic_columns_ && (p == nullptr || ReadsBasicFields(*p));
    }
  }

  // A sync-collection REPORT's answer (the folder's changes, then its token).
  PropfindSource(const DavContext& c, PropRequest pr, SyncSpec sync)
      : PropfindSource(c, std::move(pr), Depth::kOne) {
    sync_ = sync;
  }

  std::optional<uint64_t> Size() const override { return std::nullopt; }
  // A folder's members at Depth 1: a few hundred bytes each (S1's four
  // properties take ~350), so a big folder starts in a big block.
  std::optional<uint64_t> SizeHint() const override {
    const NodeRow* n = c_.target.node ? &*c_.target.node : nullptr;
    if (depth_ != Depth::kOne || favorites_report_ || sync_ || !n || !n->folder()) {
      return std::nullopt;
    }
    return 1024 + 300 * static_cast<uint64_t>(std::max<int64_t>(n->child_count, 0));
  }

  // The whole document at once, for responses known to be small.
  Result<std::string> Drain() {
    while (!done_) NUBO_RETURN_IF_ERROR(Produce());
    return std::move(w_.buffer());
  }

  Result<size_t> Read(char* buf, size_t cap) override {
    // Each read fills the transport's buffer with whole pages (fewer
    // hand-offs between threads per response); the first one runs in the
    // handler's own hop and leaves with the headers. Each byte is copied
    // once, from the writer's buffer into `buf`.
    std::string& out = w_.buffer();
    size_t n = 0;
    for (;;) {
      const size_t take = std::min(cap - n, out.size() - pos_);
      std::memcpy(buf + n, out.data() + pos_, take);
      n += take;
      pos_ += take;
      if (pos_ == out.size()) {
        out.clear();
        pos_ = 0;
      }
      if (n == cap || done_) break;
      if (pos_ == 0) NUBO_RETURN_IF_ERROR(Produce());
    }
    return n;
  }

  bool Exhausted() const override { return done_ && pos_ == w_.buffer().size(); }

 private:
  static constexpr size_t kPage = 200;

  struct Frame {
    std::string folder_id;
    std::string href;  // percent-encoded, ends in "/"
    std::string path_key;
    std::string cursor;
    int64_t home_folder = 0;  // a folder of the caller's own tree: its id (received shares join)
  };

  Status Produce() {
    if (favorites_report_) return ProduceFavorites();
    if (sync_) return ProduceSync();
    if (!started_) {
      started_ = true;
      w_.Open(kDavNs, "multistatus",
              {{"d", std::string(kDavNs)}, {"oc", std::string(kOcNs)}, {"nc", std::string(kNcNs)}});
      NodeRow& n = *c_.target.node;
      const bool home = c_.target.home_drive_id && n.drive_id == c_.target.home_drive_id;
      // Folders of the caller's own tree carry the received shares below
      // them in their ETags (Resolve worked them out for a PROPFIND).
      if (home && n.folder()) env_.SetMountTags(&c_.target.mount_tags);
      // A mount point shows the name it has in the caller's tree.
      if (c_.target.at_mount) n.name = c_.segments.back();
      std::string href = c_.TargetHref();
      dead_.clear();
      if (need_dead_) {
        NUBO_ASSIGN_OR_RETURN(auto props, c_.files.DeadProps(c_.who(), n));
        if (!props.empty()) dead_[n.id] = std::move(props);
      }
      WriteResponse(n, href, c_.target.path_key, c_.target.at_mount);
      if (depth_ != Depth::kZero && n.folder()) {
        frames_.push_back(
            Frame{n.public_id, std::move(href), c_.target.path_key, "", home ? n.id : 0});
      }
      return Status::Ok();
    }
    if (!frames_.empty()) {
      Frame f = std::move(frames_.back());
      frames_.pop_back();
      NUBO_ASSIGN_OR_RETURN(files::Page page,
                            c_.files.List(c_.who(), f.folder_id, meta::NodeSort::kName, false,
                                          f.cursor, c_.opt.listing_page,
                                          files::ListOptions{.bare = true,
                                                             .dead_props = need_dead_,
                                                             .favorites = favorites_,
                                                             .checksums = checksums_,
                                                             .share_types = share_types_,
                                                             .basic_columns = basic_columns_,
                                                             .reuse = &spare_rows_}));
      dead_.clear();
      for (auto& r : page.dead_props) dead_[r.node_id].push_back(std::move(r.prop));
      if (checksums_) env_.SetChecksums(&page.checksums);
      if (share_types_) env_.SetShareTypes(&page.share_types);
      std::vector<Frame> below;
      const std::string_view parent_key =
          f.path_key == "/" ? std::string_view() : std::string_view(f.path_key);
      std::string href, key;
      for (const NodeRow& n : page.items) {
        // The folder's href is encoded once; each member adds its segment.
        href = f.href;
        AppendEncodedSegment(href, n.name);
        if (n.folder()) href += '/';
        key = parent_key;
        key += '/';
        key += n.name_key;
        WriteResponse(n, href, key);
        if (depth_ == Depth::kInfinity && n.folder())
          below.push_back(Frame{n.public_id, href, key, "", f.home_folder ? n.id : 0});
      }
      env_.SetChecksums(nullptr);  // the page ends here
      env_.SetShareTypes(nullptr);
      if (!page.next_cursor.empty()) {
        f.cursor = page.next_cursor;
        frames_.push_back(std::move(f));
      } else if (f.home_folder) {
        // The folder's own members are all out: the received shares that
        // appear in it follow, under the names they have there (their
        // keys are paths of the caller's tree, where no lock of theirs is).
        if (!mounts_) {
          // Once per response (a Depth-infinity listing meets many
          // folders); resolving the target may have worked them out.
          if (c_.target.mounts) {
            mounts_ = std::move(*c_.target.mounts);
            c_.target.mounts.reset();
          } else {
            auto all = c_.files.Mounts(c_.who());
            if (!all.ok()) return all.status();
            mounts_ = std::move(*all);
          }
          for (files::Mount& m : *mounts_) m.node.name = m.name;
        }
        dead_.clear();
        if (need_dead_) {
          // The dead properties of this folder's shares in one read.
          std::vector<int64_t> here;
          for (const files::Mount& m : *mounts_) {
            if (m.parent_id == f.home_folder) here.push_back(m.node.id);
          }
          if (!here.empty()) {
            auto props = c_.files.MountDeadProps(c_.who(), here);
            if (!props.ok()) return props.status();
            dead_.swap(*props);
          }
        }
        for (const files::Mount& m : *mounts_) {
          if (m.parent_id != f.home_folder) continue;
          const NodeRow& n = m.node;
          href = f.href;
          AppendEncodedSegment(href, n.name);
          if (n.folder()) href += '/';
          key = parent_key;
          key += '/';
          key += files::NameKey(n.name);
          WriteResponse(n, href, key, true);
          if (depth_ == Depth::kInfinity && n.folder())
            below.push_back(Frame{n.public_id, href, key, ""});
        }
      }
      for (auto& b : below) frames_.push_back(std::move(b));
      spare_rows_ = std::move(page.items);
      return Status::Ok();
    }
    w_.Close();
    done_ = true;
    return Status::Ok();
  }

  Status ProduceFavorites() {
    if (!started_) {
      started_ = true;
      w_.Open(kDavNs, "multistatus",
              {{"d", std::string(kDavNs)}, {"oc", std::string(kOcNs)}, {"nc", std::string(kNcNs)}});
    }
    NUBO_ASSIGN_OR_RETURN(files::Page page, c_.files.ListFavorites(c_.who(), fav_cursor_, kPage));
    // Only what lies in this tree has a URL in it; the paths of those come
    // from one read.
    std::vector<NodeRow> here;
    for (NodeRow& n : page.items) {
      if (n.drive_id == c_.target.drive_id) here.push_back(std::move(n));
    }
    NUBO_ASSIGN_OR_RETURN(auto paths, c_.files.Paths(c_.who(), here));
    for (size_t i = 0; i < here.size(); ++i) {
      const NodeRow& n = here[i];
      const std::vector<NodeRow>& path = paths[i];
      // The URL below this tree's root: in a share's tree, only what lies
      // below the shared node has one. Keys (how locks address nodes) are
      // the drive's full paths.
      std::vector<std::string> segs;
      std::string key;
      bool inside = c_.share_root.empty();
      if (!inside) key = ShareRootKey();
      for (const NodeRow& a : path) {
        if (!inside) {
          inside = a.public_id == c_.share_root;
          continue;
        }
        if (!a.parent_id) continue;  // the drive root
        segs.push_back(a.name);
        key += "/" + a.name_key;
      }
      if (!inside) continue;  // outside the shared node (or the node itself: no member of it)
      segs.push_back(n.name);
      key += "/" + n.name_key;
      dead_.clear();
      if (need_dead_) {
        NUBO_ASSIGN_OR_RETURN(auto props, c_.files.DeadProps(c_.who(), n));
        if (!props.empty()) dead_[n.id] = std::move(props);
      }
      WriteResponse(n, c_.Href(segs, n.folder()), key);
    }
    fav_cursor_ = page.next_cursor;
    if (fav_cursor_.empty()) {
      w_.Close();
      done_ = true;
    }
    return Status::Ok();
  }

  // One step of a sync-collection: the next changes in the folder's change
  // order, each a member's properties (or 403 for a subfolder at sync-level
  // infinite: its own sync reports what changed below it) or a removed
  // name's 404; then the token of where the answer stopped (§3.5). A
  // client's DAV:limit cuts it with 507 on the folder (§3.6).
  Status ProduceSync() {
    SyncSpec& s = *sync_;
    const NodeRow& folder = *c_.target.node;
    if (!started_) {
      started_ = true;
      w_.Open(kDavNs, "multistatus",
              {{"d", std::string(kDavNs)}, {"oc", std::string(kOcNs)}, {"nc", std::string(kNcNs)}});
      base_href_ = c_.TargetHref();
      if (base_href_.empty() || base_href_.back() != '/') base_href_ += '/';
      base_key_ = c_.target.path_key == "/" ? std::string() : c_.target.path_key;
    }
    size_t step = kPage;
    if (s.limit) step = std::min(step, *s.limit - sent_ + 1);  // one more: is there more?
    NUBO_ASSIGN_OR_RETURN(
        files::SyncBatch b,
        c_.files.SyncChanges(c_.who(), folder.public_id, s.after, s.initial, through_, step,
                             files::ListOptions{.bare = true,
                                                .dead_props = need_dead_,
                                                .favorites = favorites_,
                                                .checksums = checksums_,
                                                .share_types = share_types_}));
    through_ = b.through;
    dead_.clear();
    for (auto& r : b.page.dead_props) dead_[r.node_id].push_back(std::move(r.prop));
    if (checksums_) env_.SetChecksums(&b.page.checksums);
    if (share_types_) env_.SetShareTypes(&b.page.share_types);
    size_t item = 0, removal = 0;
    std::string href, key;
    for (const bool gone : b.order) {
      const NodeRow* n = gone ? nullptr : &b.page.items[item++];
      const meta::TombstoneRow* t = gone ? &b.removed[removal++] : nullptr;
      if (t && t->name.empty()) {  // taken again by a member reported here
        s.after = {t->seq, 0};
        continue;
      }
      if (s.limit && sent_ == *s.limit) return EndSync(true);
      href = base_href_;
      AppendEncodedSegment(href, t ? t->name : n->name);
      if (t ? t->folder : n->folder()) href += '/';
      if (t) {
        WriteStatusOnly(href, "HTTP/1.1 404 Not Found");
        s.after = {t->seq, 0};
      } else if (s.infinite && n->folder()) {
        WriteStatusOnly(href, "HTTP/1.1 403 Forbidden", "sync-traversal-supported");
        s.after = {n->tree_seq, n->id};
      } else {
        key = base_key_;
        key += '/';
        key += n->name_key;
        WriteResponse(*n, href, key);
        s.after = {n->tree_seq, n->id};
      }
      ++sent_;
    }
    env_.SetChecksums(nullptr);
    env_.SetShareTypes(nullptr);
    if (!b.more) return EndSync(false);
    return Status::Ok();
  }

  Status EndSync(bool truncated) {
    env_.SetChecksums(nullptr);
    env_.SetShareTypes(nullptr);
    const std::string& id = c_.target.node->public_id;
    if (truncated) {
      WriteStatusOnly(base_href_, "HTTP/1.1 507 Insufficient Storage",
                      "number-of-matches-within-limits");
      w_.Leaf(kDavNs, "sync-token",
              SignedFolderSyncToken(c_, id, sync_->after.seq, sync_->after.id));
    } else {
      w_.Leaf(kDavNs, "sync-token", SignedFolderSyncToken(c_, id, *through_));
    }
    w_.Close();
    done_ = true;
    return Status::Ok();
  }

  void WriteStatusOnly(const std::string& href, std::string_view status,
                       std::string_view condition = "") {
    w_.Open(kDavNs, "response");
    w_.Leaf(kDavNs, "href", href);
    w_.Leaf(kDavNs, "status", status);
    if (!condition.empty()) {
      w_.Open(kDavNs, "error");
      w_.Empty(kDavNs, condition);
      w_.Close();
    }
    w_.Close();
  }

  // The drive path key of a share tree's root: the target's, without the
  // segments below the root.
  std::string ShareRootKey() const {
    std::string key = c_.target.path_key;
    for (size_t i = 0; i < c_.segments.size(); ++i) {
      const size_t slash = key.rfind('/');
      key.resize(slash == std::string::npos ? 0 : slash);
    }
    return key == "/" ? std::string() : key;
  }

  void WriteStatus(int code) {
    w_.Leaf(kDavNs, "status", code == 200 ? "HTTP/1.1 200 OK" : "HTTP/1.1 404 Not Found");
  }

  void WriteResponse(const NodeRow& n, const std::string& href, const std::string& path_key,
                     bool mount_point = false) {
    env_.Reset(n, path_key, mount_point);
    w_.Open(kDavNs, "response");
    w_.Leaf(kDavNs, "href", href);
    static const std::vector<meta::DeadProp> kNone;
    auto it = dead_.find(n.id);
    const std::vector<meta::DeadProp>& dead = it == dead_.end() ? kNone : it->second;
    missing_.clear();
    w_.Open(kDavNs, "propstat");
    w_.Open(kDavNs, "prop");
    if (pr_.kind == PropRequest::Kind::kPropname) {
      for (const LiveProp& p : LiveProps()) {
        if (p.applies(n)) w_.Empty(p.ns, p.name);
      }
      for (const auto& d : dead) w_.Empty(d.ns, d.name);
    } else if (pr_.kind == PropRequest::Kind::kAllprop) {
      for (const LiveProp* p : allprop_) {
        if (p->applies(n)) p->write(w_, env_);
      }
      for (const auto& d : dead) WriteDead(d);
    } else {
      for (size_t i = 0; i < pr_.props.size(); ++i) {
        if (const LiveProp* p = asked_[i]) {
          if (p->applies(n)) {
            p->write(w_, env_);
          } else {
            missing_.push_back(i);
          }
          continue;
        }
        const auto& [ns, name] = pr_.props[i];
        auto d = std::find_if(dead.begin(), dead.end(),
                              [&](const auto& x) { return x.ns == ns && x.name == name; });
        if (d != dead.end()) {
          WriteDead(*d);
        } else {
          missing_.push_back(i);
        }
      }
    }
    w_.Close();  // prop
    WriteStatus(200);
    w_.Close();  // propstat
    if (!missing_.empty()) {
      w_.Open(kDavNs, "propstat");
      w_.Open(kDavNs, "prop");
      for (size_t i : missing_) w_.Empty(pr_.props[i].first, pr_.props[i].second);
      w_.Close();
      WriteStatus(404);
      w_.Close();
    }
    w_.Close();  // response
  }

  void WriteDead(const meta::DeadProp& d) {
    if (d.value.empty()) {
      w_.Empty(d.ns, d.name);
      return;
    }
    w_.Open(d.ns, d.name);
    w_.Raw(d.value);
    w_.Close();
  }

  DavContext c_;
  PropRequest pr_;
  Depth depth_;
  bool favorites_report_ = false;
  std::string fav_cursor_;
  PropEnv env_;  // refers to c_
  XmlWriter w_;
  size_t pos_ = 0;
  bool started_ = false, done_ = false;
  // The last page's rows: the next page is written over them.
  std::vector<NodeRow> spare_rows_;
  bool need_dead_ = false;
  bool favorites_ = false;                // oc:favorite asked: listings fill the caller's flag
  bool checksums_ = false;                // oc:checksums asked: listings read them per page
  bool share_types_ = false;              // oc:share-types asked: the same
  bool basic_columns_ = false;            // members read with ListColumns::kBasic
  std::vector<const LiveProp*> asked_;    // per pr_.props entry; nullptr: a dead property
  std::vector<const LiveProp*> allprop_;  // allprop (+ include), in table order
  std::unordered_map<int64_t, std::vector<meta::DeadProp>> dead_;  // of the page being written
  std::vector<size_t> missing_;                                    // indexes into pr_.props
  std::vector<Frame> frames_;  // folders still to list (depth-first)
  // The caller's received shares as they appear in its own tree, named
  // there; loaded when the first own folder's members are out.
  std::optional<std::vector<files::Mount>> mounts_;
  // sync-collection: what was asked, how far the answer got.
  std::optional<SyncSpec> sync_;
  std::optional<int64_t> through_;  // the folder's change number when the sync began
  size_t sent_ = 0;                 // responses written (DAV:limit counts them)
  std::string base_href_, base_key_;
};

constexpr std::string_view kSyncTokenPrefix = "http://nubo.dev/ns/sync/files/";

// RFC 6578 §3.2 sync-collection on a folder.
http::Response HandleSync(DavContext& c, const XmlElement& root) {
  // §3.2: the Depth header, if any, is 0 (the scope is sync-level).
  if (auto d = c.req.headers.Get("Depth"); d && Trim(*d) != "0") return DavError(400);
  if (!c.target.node->folder()) return DavError(403, "supported-report");
  SyncSpec spec;
  const XmlElement* token = root.Child(kDavNs, "sync-token");
  const std::string_view text = token ? Trim(token->text) : std::string_view();
  if (text.empty()) {
    spec.initial = true;
  } else {
    auto pos = VerifyFolderSyncToken(c, text, c.target.node->public_id);
    if (!pos) return DavError(403, "valid-sync-token");
    spec.after = *pos;
  }
  const XmlElement* level = root.Child(kDavNs, "sync-level");
  const std::string_view lv = level ? Trim(level->text) : std::string_view("1");
  if (lv != "1" && lv != "infinite") {
    return DavError(Status::InvalidArgument("sync-level must be 1 or infinite"));
  }
  spec.infinite = lv == "infinite";
  if (const XmlElement* l = root.Child(kDavNs, "limit")) {
    const XmlElement* n = l->Child(kDavNs, "nresults");
    auto v = n ? ParseUint64(Trim(n->text)) : std::nullopt;
    if (!v || *v == 0 || *v > 1000000) {
      return DavError(Status::InvalidArgument("DAV:limit needs nresults from 1 to 1000000"));
    }
    spec.limit = static_cast<size_t>(*v);
  }
  const XmlElement* prop = root.Child(kDavNs, "prop");
  if (!prop) return DavError(Status::InvalidArgument("sync-collection needs a DAV:prop"));
  PropRequest pr;
  pr.kind = PropRequest::Kind::kProp;
  for (const XmlElement& p : prop->children) pr.props.emplace_back(p.ns, p.name);
  // The token must be answerable now: checked before the 207 goes out.
  auto probe = c.files.SyncChanges(c.who(), c.target.node->public_id, spec.after, spec.initial,
                                   std::nullopt, 1);
  if (!probe.ok()) {
    if (probe.status().code() == Code::kInvalidArgument) return DavError(403, "valid-sync-token");
    return DavError(probe.status());
  }
  http::Response r;
  r.status = 207;
  r.headers.Set("Content-Type", "application/xml; charset=utf-8");
  r.source = std::make_unique<PropfindSource>(c, std::move(pr), spec);
  return r;
}

}  // namespace

http::Response HandleReport(DavContext& c) {
  // The one REPORT of the files trees: Nextcloud's oc:filter-files with the
  // favorite rule (the clients' favorites view).
  if (!c.target.node) return DavError(404);
  XmlLimits limits;
  limits.max_bytes = c.opt.max_xml_body;
  auto root = ParseXml(c.req.body, limits);
  if (!root.ok()) return DavError(root.status());
  if (root->ns == kDavNs && root->name == "sync-collection") return HandleSync(c, *root);
  if (root->ns != kOcNs || root->name != "filter-files") {
    return DavError(403, "supported-report");  // RFC 3253 §3.6
  }
  const XmlElement* rules = root->Child(kOcNs, "filter-rules");
  const XmlElement* fav = rules ? rules->Child(kOcNs, "favorite") : nullptr;
  if (!fav || fav->text != "1") {
    return DavError(Status::InvalidArgument("only the favorite filter rule is supported"));
  }
  PropRequest pr;
  pr.kind = PropRequest::Kind::kProp;
  if (const XmlElement* prop = root->Child(kDavNs, "prop")) {
    for (const XmlElement& p : prop->children) pr.props.emplace_back(p.ns, p.name);
  }
  if (pr.props.empty()) pr.kind = PropRequest::Kind::kAllprop;
  http::Response r;
  r.status = 207;
  r.headers.Set("Content-Type", "application/xml; charset=utf-8");
  r.source = std::make_unique<PropfindSource>(c, std::move(pr), Depth::kOne, true);
  return r;
}

std::string FolderSyncToken(std::string_view folder_public_id, int64_t seq,
                            std::optional<int64_t> id) {
  std::string out(kSyncTokenPrefix);
  out += folder_public_id;
  out += '/';
  out += std::to_string(seq);
  if (id) {
    out += '.';
    out += std::to_string(*id);
  }
  return out;
}

std::optional<files::SyncPosition> ParseFolderSyncToken(std::string_view token,
                                                        std::string_view folder_public_id) {
  if (token.substr(0, kSyncTokenPrefix.size()) != kSyncTokenPrefix) return std::nullopt;
  token.remove_prefix(kSyncTokenPrefix.size());
  if (token.substr(0, folder_public_id.size()) != folder_public_id) return std::nullopt;
  token.remove_prefix(folder_public_id.size());
  if (token.empty() || token.front() != '/') return std::nullopt;
  token.remove_prefix(1);
  const size_t dot = token.find('.');
  auto seq = ParseUint64(token.substr(0, dot));
  if (!seq || *seq > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  files::SyncPosition p{static_cast<int64_t>(*seq), INT64_MAX};
  if (dot != std::string_view::npos) {
    auto id = ParseUint64(token.substr(dot + 1));
    if (!id || *id > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    p.id = static_cast<int64_t>(*id);
  }
  return p;
}

namespace {

// Whom a token is for: an account, or a public link (its own id).
std::string SyncTokenHolder(const auth::Principal& who) {
  return who.link() ? "l" + std::to_string(who.link_id) : "u" + std::to_string(who.user_id);
}

}  // namespace

std::string SignedFolderSyncToken(const DavContext& c, std::string_view folder_public_id,
                                  int64_t seq, std::optional<int64_t> id) {
  std::string token = FolderSyncToken(folder_public_id, seq, id);
  if (!c.opt.signer) return token;
  const std::string mac = c.opt.signer->Mac("dav-sync", SyncTokenHolder(c.who()) + " " + token);
  return token + "-" + mac;
}

std::optional<files::SyncPosition> VerifyFolderSyncToken(const DavContext& c,
                                                         std::string_view token,
                                                         std::string_view folder_public_id) {
  if (c.opt.signer) {
    const size_t dash = token.rfind('-');
    if (dash == std::string_view::npos) return std::nullopt;
    const std::string_view body = token.substr(0, dash);
    if (!c.opt.signer->MacMatches("dav-sync", SyncTokenHolder(c.who()) + " " + std::string(body),
                                  token.substr(dash + 1))) {
      return std::nullopt;
    }
    token = body;
  }
  return ParseFolderSyncToken(token, folder_public_id);
}

http::Response HandlePropfind(DavContext& c) {
  auto depth = ParseDepth(c.req.headers.Get("Depth"), Depth::kInfinity);
  if (!depth.ok()) return DavError(400);
  if (*depth == Depth::kInfinity && !c.opt.allow_depth_infinity) {
    return DavError(403, "propfind-finite-depth");
  }
  if (!c.target.node) return DavError(404);
  auto pr = ParseBody(c.req.body, c.opt);
  if (!pr.ok()) return DavError(pr.status());
  http::Response r;
  r.status = 207;
  r.headers.Set("Content-Type", "application/xml; charset=utf-8");
  // Named properties other than DAV:lockdiscovery come from the database
  // alone; a lock's remaining life changes with the clock (an expired
  // lock vanishes without a write), and allprop includes it (§15.8).
  const bool from_store_alone = pr->kind == PropRequest::Kind::kProp &&
                                std::none_of(pr->props.begin(), pr->props.end(), [](const auto& p) {
                                  return p.first == kDavNs && p.second == "lockdiscovery";
                                });
  auto source = std::make_unique<PropfindSource>(c, std::move(*pr), *depth);
  if (*depth == Depth::kZero || !c.target.node->folder()) {
    // One response (a sync client's poll): written here and sent whole,
    // without the hand-offs between threads that a streamed body costs
    // per read.
    auto body = source->Drain();
    if (!body.ok()) return DavError(body.status());
    r.body = std::move(*body);
    c.poll_cacheable = from_store_alone;
    return r;
  }
  r.source = std::move(source);
  return r;
}

}  // namespace nubo::dav
