// ZIP downloads: a lazy depth-first walk of the selected subtrees that
// feeds ZipStream one entry at a time, so memory stays bounded by the walk's
// depth and one page of children, whatever the tree's size.
#include "content/reader.h"
#include "files/access.h"
#include "files/files.h"
#include "files/mime.h"
#include "files/zip_stream.h"

namespace nubo::files {

using meta::NodeRow;

namespace {

// A name as a ZIP entry component. Backslashes are legal in names here
// (Linux, macOS) but Windows extractors split entry names on them, so
// "..\\..\\x" would climb out of the extraction folder ("zip slip"):
// they become "_".
std::string ZipName(const std::string& name) {
  std::string out = name;
  for (char& ch : out) {
    if (ch == '\\') ch = '_';
  }
  return out;
}

class ManifestContent final : public ZipContent {
 public:
  explicit ManifestContent(content::ManifestReader r) : r_(std::move(r)) {}
  Result<size_t> Read(char* buf, size_t cap) override { return r_.Read(buf, cap); }

 private:
  content::ManifestReader r_;
};

class TreeEntries final : public ZipEntries {
 public:
  TreeEntries(meta::MetaStore& meta, blob::ChunkStore& chunks, Principal who,
              std::vector<NodeRow> tops)
      : meta_(meta), chunks_(chunks), who_(std::move(who)), tops_(std::move(tops)) {}

  Result<std::optional<ZipEntry>> Next() override {
    for (;;) {
      if (!pending_.empty()) {
        Item it = std::move(pending_.front());
        pending_.erase(pending_.begin());
        if (it.node.folder()) stack_.push_back(Frame{it.node, it.path, 0, false});
        return std::optional<ZipEntry>(Entry(it));
      }
      if (!stack_.empty()) {
        Frame& f = stack_.back();
        if (f.done) {
          stack_.pop_back();
          continue;
        }
        // Next page of this folder's children (live only: a trashed
        // subtree is invisible here as everywhere).
        // Each page is its own read: the folder is authorized again, so
        // access that ends during a long download ends the archive.
        std::vector<NodeRow> kids;
        const NodeRow& folder = f.folder;
        const int64_t after = f.after;
        NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
          NUBO_RETURN_IF_ERROR(authz::Check(t, who_, folder, Action::kList));
          NUBO_ASSIGN_OR_RETURN(kids, t.ListChildrenById(folder.id, after, kPage, false));
          return Status::Ok();
        }));
        if (kids.size() < kPage) f.done = true;
        if (!kids.empty()) f.after = kids.back().id;
        const std::string prefix = f.path + "/";
        // Children are visited before the frame's next page; pending_ holds
        // one page at most, and the stack grows only with depth.
        for (NodeRow& k : kids) pending_.push_back(Item{prefix + ZipName(k.name), std::move(k)});
        continue;
      }
      if (next_top_ < tops_.size()) {
        NodeRow& top = tops_[next_top_++];
        pending_.push_back(Item{ZipName(top.name), top});
        continue;
      }
      return std::optional<ZipEntry>();
    }
  }

 private:
  static constexpr size_t kPage = 256;
  struct Item {
    std::string path;
    NodeRow node;
  };
  struct Frame {
    NodeRow folder;
    std::string path;
    int64_t after;
    bool done;
  };

  ZipEntry Entry(const Item& it) {
    ZipEntry e;
    e.path = it.path;
    e.folder = it.node.folder();
    e.mtime_ms = it.node.mtime_ms;
    if (!e.folder) {
      e.size = it.node.size;
      e.store = AlreadyCompressed(it.node.mime);
      const int64_t manifest = *it.node.manifest_id;
      const uint64_t size = it.node.size;
      meta::MetaStore* meta = &meta_;
      blob::ChunkStore* store = &chunks_;
      e.open = [meta, store, manifest, size]() -> Result<std::unique_ptr<ZipContent>> {
        std::vector<meta::ManifestChunk> chunks;
        NUBO_RETURN_IF_ERROR(meta->Read([&](meta::ReadTxn& t) -> Status {
          NUBO_ASSIGN_OR_RETURN(chunks, t.ManifestChunks(manifest));
          return Status::Ok();
        }));
        NUBO_ASSIGN_OR_RETURN(auto r, content::ManifestReader::Open(*store, std::move(chunks),
                                                                    size, 0, size));
        return std::unique_ptr<ZipContent>(new ManifestContent(std::move(r)));
      };
    }
    return e;
  }

  meta::MetaStore& meta_;
  blob::ChunkStore& chunks_;
  Principal who_;
  std::vector<NodeRow> tops_;
  size_t next_top_ = 0;
  std::vector<Item> pending_;
  std::vector<Frame> stack_;
};

}  // namespace

Result<std::unique_ptr<ZipEntries>> Files::ZipNodes(const Principal& who,
                                                    const std::vector<std::string>& ids) {
  if (ids.empty()) return Status::InvalidArgument("nothing selected");
  if (ids.size() > 1000) return Status::InvalidArgument("at most 1000 ids per archive");
  std::vector<NodeRow> tops;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    for (const std::string& id : ids) {
      NUBO_ASSIGN_OR_RETURN(NodeRow n, Access(t, who, id, Want::kLive, Action::kRead));
      if (!n.parent_id) n.name = "files";  // the drive root has no name
      tops.push_back(std::move(n));
    }
    return Status::Ok();
  }));
  return std::unique_ptr<ZipEntries>(new TreeEntries(meta_, chunks_, who, std::move(tops)));
}

}  // namespace nubo::files
