// RFC 4918 §9.1 PROPFIND. The multistatus streams: the target's response
// first, then its members page by page from the keyset listing, each page
// serialized only when the transport asks for more bytes — memory is one
// page whatever the folder size, and the first byte leaves early. Depth
// infinity is refused with propfind-finite-depth (§9.1) unless enabled.
#include <cstring>
#include <utility>

#include "dav/context.h"
#include "dav/props.h"
#include "dav/request_headers.h"
#include "dav/xml_reader.h"
#include "dav/xml_writer.h"

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

class PropfindSource final : public http::BodySource {
 public:
  // `c` is copied: the body is read after the handler returned.
  PropfindSource(const DavContext& c, PropRequest pr, Depth depth)
      : c_(c), pr_(std::move(pr)), depth_(depth) {}

  std::optional<uint64_t> Size() const override { return std::nullopt; }

  Result<size_t> Read(char* buf, size_t cap) override {
    while (pos_ == w_.buffer().size()) {
      w_.buffer().clear();
      pos_ = 0;
      if (done_) return size_t{0};
      NUBO_RETURN_IF_ERROR(Produce());
    }
    size_t n = std::min(cap, w_.buffer().size() - pos_);
    std::memcpy(buf, w_.buffer().data() + pos_, n);
    pos_ += n;
    return n;
  }

 private:
  struct Frame {
    std::string folder_id;
    std::vector<std::string> segs;
    std::string path_key;
    std::string cursor;
  };

  Status Produce() {
    if (!started_) {
      started_ = true;
      w_.Open(kDavNs, "multistatus", {{"d", std::string(kDavNs)}});
      const NodeRow& n = *c_.target.node;
      WriteResponse(n, c_.segments, c_.target.path_key);
      if (depth_ != Depth::kZero && n.folder()) {
        frames_.push_back(Frame{n.public_id, c_.segments, c_.target.path_key, ""});
      }
      return Status::Ok();
    }
    if (!frames_.empty()) {
      Frame f = std::move(frames_.back());
      frames_.pop_back();
      NUBO_ASSIGN_OR_RETURN(
          files::Page page,
          c_.files.List(c_.user, f.folder_id, meta::NodeSort::kName, false, f.cursor, 200));
      std::vector<Frame> below;
      for (const NodeRow& n : page.items) {
        std::vector<std::string> segs = f.segs;
        segs.push_back(n.name);
        std::string key = (f.path_key == "/" ? "" : f.path_key) + "/" + n.name_key;
        WriteResponse(n, segs, key);
        if (depth_ == Depth::kInfinity && n.folder())
          below.push_back(Frame{n.public_id, segs, key, ""});
      }
      if (!page.next_cursor.empty()) {
        f.cursor = page.next_cursor;
        frames_.push_back(std::move(f));
      }
      for (auto& b : below) frames_.push_back(std::move(b));
      return Status::Ok();
    }
    w_.Close();
    done_ = true;
    return Status::Ok();
  }

  void WriteStatus(int code) {
    w_.Leaf(kDavNs, "status", code == 200 ? "HTTP/1.1 200 OK" : "HTTP/1.1 404 Not Found");
  }

  void WriteResponse(const NodeRow& n, const std::vector<std::string>& segs,
                     const std::string& path_key) {
    PropEnv env(c_, n, path_key);
    w_.Open(kDavNs, "response");
    w_.Leaf(kDavNs, "href", c_.Href(segs, n.folder()));
    std::vector<meta::DeadProp> dead;
    bool need_dead = pr_.kind != PropRequest::Kind::kProp;
    for (const auto& [ns, name] : pr_.props) need_dead |= !FindLiveProp(ns, name);
    if (need_dead) {
      (void)c_.files.meta().Read([&](meta::ReadTxn& t) -> Status {
        NUBO_ASSIGN_OR_RETURN(dead, t.ListDeadProps(n.id));
        return Status::Ok();
      });
    }
    std::vector<std::pair<std::string, std::string>> missing;
    w_.Open(kDavNs, "propstat");
    w_.Open(kDavNs, "prop");
    if (pr_.kind == PropRequest::Kind::kPropname) {
      for (const LiveProp& p : LiveProps()) {
        if (p.applies(n)) w_.Empty(p.ns, p.name);
      }
      for (const auto& d : dead) w_.Empty(d.ns, d.name);
    } else if (pr_.kind == PropRequest::Kind::kAllprop) {
      for (const LiveProp& p : LiveProps()) {
        bool included = p.in_allprop;
        for (const auto& [ns, name] : pr_.include) included |= (ns == p.ns && name == p.name);
        if (included && p.applies(n)) p.write(w_, env);
      }
      for (const auto& d : dead) WriteDead(d);
    } else {
      for (const auto& [ns, name] : pr_.props) {
        if (const LiveProp* p = FindLiveProp(ns, name)) {
          if (p->applies(n)) {
            p->write(w_, env);
          } else {
            missing.emplace_back(ns, name);
          }
          continue;
        }
        bool found = false;
        for (const auto& d : dead) {
          if (d.ns == ns && d.name == name) {
            WriteDead(d);
            found = true;
            break;
          }
        }
        if (!found) missing.emplace_back(ns, name);
      }
    }
    w_.Close();  // prop
    WriteStatus(200);
    w_.Close();  // propstat
    if (!missing.empty()) {
      w_.Open(kDavNs, "propstat");
      w_.Open(kDavNs, "prop");
      for (const auto& [ns, name] : missing) w_.Empty(ns, name);
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
  XmlWriter w_;
  size_t pos_ = 0;
  bool started_ = false, done_ = false;
  std::vector<Frame> frames_;  // folders still to list (depth-first)
};

}  // namespace

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
  r.source = std::make_unique<PropfindSource>(c, std::move(*pr), *depth);
  return r;
}

}  // namespace nubo::dav
