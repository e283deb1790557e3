// Searches: node names, and file contents through the text index.
//
// One capability of the MetaStore (meta_store.h): SearchReads are part of every
// transaction, SearchWrites of write transactions. A transaction object must
// not escape its callback; see meta_store.h for concurrency.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "meta/digest.h"
#include "meta/nodes_txn.h"
#include "util/status.h"

namespace nubo::meta {

struct SearchFilter {
  std::string needle;  // case-folded NFC substring of name_key; empty: any
  // The needle as an FTS5 trigram phrase when it has three characters or
  // more (the name index answers it); empty: scan with instr().
  std::string name_match;
  std::optional<NodeKind> kind;
  std::string mime_prefix;
  std::optional<uint64_t> min_size, max_size;
  std::optional<int64_t> modified_after_ms, modified_before_ms;
};

// One full-text match: the node, its rank (bm25; lower is better).
struct TextHit {
  NodeRow node;
  double rank = 0;
};

class SearchReads {
 public:
  virtual ~SearchReads() = default;

  // Live nodes of the drive matching `filter`, by (sort_key, id) after `after`.
  virtual Result<std::vector<NodeRow>> SearchNodes(
      int64_t drive_id, const SearchFilter& filter,
      const std::optional<std::pair<std::string, int64_t>>& after, size_t limit,
      int64_t viewer) = 0;
  // Live files in any of `drive_ids` whose text matches `match` (an AND of
  // FTS5 phrases, as search::FtsQuery writes it), best first by BM25 rank
  // then id, after `after`; at most `limit`.
  virtual Result<std::vector<TextHit>> SearchText(
      const std::vector<int64_t>& drive_ids, const std::string& match,
      const std::optional<std::pair<double, int64_t>>& after, size_t limit, int64_t viewer) = 0;
  // The highlighted excerpt of each node's text: matched runs between \x02
  // and \x03, from the first of `matches` the node's text matches. Nodes
  // that match none (or have no text) are left out.
  virtual Result<std::vector<std::pair<int64_t, std::string>>> TextSnippets(
      const std::vector<std::string>& matches, const std::vector<int64_t>& node_ids) = 0;
  // Whether the node has extracted text (tests, the admin page).
  virtual Result<bool> HasText(int64_t node_id) = 0;
};

class SearchWrites {
 public:
  virtual ~SearchWrites() = default;

  // Replaces the node's extracted text (empty: none).
  virtual Status PutText(int64_t node_id, const std::string& text) = 0;
  // One bounded step (about `pages` pages written) of merging the
  // full-text index's segments into one when it has more than a few; true
  // when it did work (call again, in a new transaction, until false).
  virtual Result<bool> CompactTextIndex(int64_t pages) = 0;
};

}  // namespace nubo::meta
