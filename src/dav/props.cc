#include "dav/props.h"

#include <ctime>

#include "util/time.h"

namespace nubo::dav {

namespace {

using meta::NodeRow;

bool Always(const NodeRow&) { return true; }
bool FileOnly(const NodeRow& n) { return !n.folder(); }
bool FolderOnly(const NodeRow& n) { return n.folder(); }

// RFC 3339 (§15.1 creationdate).
std::string Rfc3339(int64_t ms) {
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void WriteLockEntry(XmlWriter& w, std::string_view scope) {
  w.Open(kDavNs, "lockentry");
  w.Open(kDavNs, "lockscope");
  w.Empty(kDavNs, scope);
  w.Close();
  w.Open(kDavNs, "locktype");
  w.Empty(kDavNs, "write");
  w.Close();
  w.Close();
}

const std::vector<LiveProp> kLive = {
    {kDavNs, "resourcetype", true, Always,
     [](XmlWriter& w, PropEnv& e) {
       if (e.node().folder()) {
         w.Open(kDavNs, "resourcetype");
         w.Empty(kDavNs, "collection");
         w.Close();
       } else {
         w.Empty(kDavNs, "resourcetype");
       }
     }},
    {kDavNs, "getcontentlength", true, FileOnly,
     [](XmlWriter& w, PropEnv& e) {
       w.Leaf(kDavNs, "getcontentlength", std::to_string(e.node().size));
     }},
    {kDavNs, "getcontenttype", true, FileOnly,
     [](XmlWriter& w, PropEnv& e) { w.Leaf(kDavNs, "getcontenttype", e.node().mime); }},
    {kDavNs, "getetag", true, Always,
     [](XmlWriter& w, PropEnv& e) { w.Leaf(kDavNs, "getetag", files::NodeETag(e.node())); }},
    {kDavNs, "getlastmodified", true, Always,
     [](XmlWriter& w, PropEnv& e) {
       w.Leaf(kDavNs, "getlastmodified",
              FormatHttpDate(static_cast<std::time_t>(e.node().mtime_ms / 1000)));
     }},
    {kDavNs, "creationdate", true, Always,
     [](XmlWriter& w, PropEnv& e) { w.Leaf(kDavNs, "creationdate", Rfc3339(e.node().ctime_ms)); }},
    {kDavNs, "displayname", true, Always,
     [](XmlWriter& w, PropEnv& e) { w.Leaf(kDavNs, "displayname", e.node().name); }},
    {kDavNs, "supportedlock", true, Always,
     [](XmlWriter& w, PropEnv&) {
       w.Open(kDavNs, "supportedlock");
       WriteLockEntry(w, "exclusive");
       WriteLockEntry(w, "shared");
       w.Close();
     }},
    {kDavNs, "lockdiscovery", true, Always,
     [](XmlWriter& w, PropEnv& e) {
       const auto& locks = e.Locks();
       if (locks.empty()) {
         w.Empty(kDavNs, "lockdiscovery");
         return;
       }
       w.Open(kDavNs, "lockdiscovery");
       for (const auto& l : locks) WriteActiveLock(w, l);
       w.Close();
     }},
    // RFC 4331: on collections, not part of allprop (§3: they may be costly).
    {kDavNs, "quota-used-bytes", false, FolderOnly,
     [](XmlWriter& w, PropEnv& e) {
       w.Leaf(kDavNs, "quota-used-bytes", std::to_string(e.Usage().used_bytes));
     }},
    {kDavNs, "quota-available-bytes", false, FolderOnly,
     [](XmlWriter& w, PropEnv& e) {
       const auto& u = e.Usage();
       // Without a quota: what the disk holds is not ours to promise; a
       // large number tells clients there is room.
       int64_t avail =
           u.quota_bytes ? std::max<int64_t>(0, *u.quota_bytes - static_cast<int64_t>(u.used_bytes))
                         : (int64_t{1} << 50);
       w.Leaf(kDavNs, "quota-available-bytes", std::to_string(avail));
     }},
};

}  // namespace

const std::vector<meta::DavLockRow>& PropEnv::Locks() {
  if (!locks_) {
    auto l = CoveringLocks(c_.files, node_.drive_id, path_key_);
    locks_ = l.ok() ? std::move(*l) : std::vector<meta::DavLockRow>{};
  }
  return *locks_;
}

const files::Usage& PropEnv::Usage() {
  if (!usage_) {
    auto u = c_.files.GetUsage(c_.user);
    usage_ = u.ok() ? *u : files::Usage{};
  }
  return *usage_;
}

const std::vector<LiveProp>& LiveProps() { return kLive; }

const LiveProp* FindLiveProp(std::string_view ns, std::string_view name) {
  for (const LiveProp& p : kLive) {
    if (p.ns == ns && p.name == name) return &p;
  }
  return nullptr;
}

void WriteActiveLock(XmlWriter& w, const meta::DavLockRow& l) {
  w.Open(kDavNs, "activelock");
  w.Open(kDavNs, "locktype");
  w.Empty(kDavNs, "write");
  w.Close();
  w.Open(kDavNs, "lockscope");
  w.Empty(kDavNs, l.exclusive ? "exclusive" : "shared");
  w.Close();
  w.Leaf(kDavNs, "depth", l.depth_infinity ? "infinity" : "0");
  if (!l.owner_xml.empty()) {
    w.Open(kDavNs, "owner");
    w.Raw(l.owner_xml);
    w.Close();
  }
  w.Leaf(kDavNs, "timeout", "Second-" + std::to_string(l.timeout_s));
  w.Open(kDavNs, "locktoken");
  w.Leaf(kDavNs, "href", l.token);
  w.Close();
  w.Open(kDavNs, "lockroot");
  w.Leaf(kDavNs, "href", l.root_href);
  w.Close();
  w.Close();
}

}  // namespace nubo::dav
