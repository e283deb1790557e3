// The live property table (RFC 4918 §15, RFC 4331 quotas) and the
// property writers shared by PROPFIND, PROPPATCH and LOCK. Internal to
// src/dav. Not thread-safe (per request).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dav/context.h"
#include "dav/xml_reader.h"
#include "dav/xml_writer.h"
#include "meta/meta_store.h"

namespace nubo::dav {

// Lazily loaded facts about one node for its live properties.
class PropEnv {
 public:
  PropEnv(DavContext& c, const meta::NodeRow& node, std::string path_key)
      : c_(c), node_(node), path_key_(std::move(path_key)) {}
  const meta::NodeRow& node() const { return node_; }
  DavContext& ctx() { return c_; }
  const std::vector<meta::DavLockRow>& Locks();
  const files::Usage& Usage();

 private:
  DavContext& c_;
  const meta::NodeRow& node_;
  std::string path_key_;
  std::optional<std::vector<meta::DavLockRow>> locks_;
  std::optional<files::Usage> usage_;
};

struct LiveProp {
  std::string_view ns;
  std::string_view name;
  bool in_allprop;                            // §9.1: returned by allprop
  bool (*applies)(const meta::NodeRow&);      // absent on this node → 404 in propstat
  void (*write)(XmlWriter& w, PropEnv& env);  // writes the whole property element
};

const std::vector<LiveProp>& LiveProps();
const LiveProp* FindLiveProp(std::string_view ns, std::string_view name);

// <D:activelock> for `l` (LOCK responses and lockdiscovery).
void WriteActiveLock(XmlWriter& w, const meta::DavLockRow& l);

}  // namespace nubo::dav
