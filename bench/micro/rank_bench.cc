// BEFORE/AFTER of full-text ranking's buffer reuse and quick instance
// count, from one run (bench/README.md, scenario rank): RankText with both
// off (BEFORE: fresh buffers for every query, each instance counted through
// FTS5's API, one xPhraseNext() call each), with the buffers reused, and
// with both on (AFTER: instances counted from the position list's bytes).
// All serve the same SQLite file in turn, query by query, the order
// rotating. Gate: for every query all answer the same ids and bm25 values.
//
// Corpus: --docs documents (default 100,000) of 150-500 words drawn from a
// Zipf-like vocabulary of 20,000 words, as the media scenario builds its
// documents (bench/media.py), written straight into doc_text.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "meta/migrations.h"
#include "meta/sqlite/sqlite_conn.h"
#include "meta/sqlite/sqlite_search.h"
#include "util/ids.h"

namespace {

namespace fs = std::filesystem;
using namespace nubo;
using namespace nubo::meta::sqlite;
using Ranked = std::vector<std::pair<int64_t, double>>;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "rank_bench: %s\n", what.c_str());
  std::exit(1);
}

void Check(const Status& st, const char* what) {
  if (!st.ok()) Die(std::string(what) + ": " + st.ToString());
}

std::string MigrationSql(int version) {
  for (const auto& m : meta::Migrations()) {
    if (m.version == version) return std::string(m.sql);
  }
  Die("no migration " + std::to_string(version));
}

Ranked Rank(Conn& c, const std::string& match, RankTuning tuning) {
  Ranked out;
  Check(RankText(
            c, match, std::nullopt, 20,
            [&](int64_t id, double rank) -> Result<bool> {
              out.emplace_back(id, rank);
              return true;
            },
            tuning),
        "RankText");
  return out;
}

double Pct(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  int docs = 100000;
  int reps = 100;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--docs")) docs = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
  }
  if (docs < 1000 || reps < 5) Die("usage: rank_bench [--docs N>=1000] [--reps N>=5]");
  const fs::path dir = fs::temp_directory_path() / ("nubo-rankbench-" + RandomHex(6));
  fs::create_directories(dir);
  int rc = 0;
  {
    auto opened = Conn::Open((dir / "t.db").string(), 1000);
    if (!opened.ok()) Die(opened.status().ToString());
    Conn& c = **opened;
    // doc_text as migration 0014 creates it, then 0024 and 0025 as shipped.
    Check(c.Exec("CREATE VIRTUAL TABLE doc_text USING fts5 "
                 "(body, tokenize = 'unicode61 remove_diacritics 2')"),
          "create doc_text");
    Check(c.Exec(MigrationSql(24).c_str()), "migration 24");
    Check(c.Exec(MigrationSql(25).c_str()), "migration 25");

    std::mt19937 rng(11);
    std::vector<std::string> vocab;
    {
      std::uniform_int_distribution<int> len(4, 9);
      std::uniform_int_distribution<int> letter('a', 'z');
      std::vector<std::string> words;
      while (words.size() < 20000) {
        std::string w;
        for (int k = len(rng); k > 0; --k) w += static_cast<char>(letter(rng));
        words.push_back(w);
      }
      std::sort(words.begin(), words.end());
      words.erase(std::unique(words.begin(), words.end()), words.end());
      vocab = words;
    }
    std::vector<double> weights;
    for (size_t i = 0; i < vocab.size(); ++i) weights.push_back(1.0 / static_cast<double>(i + 1));
    std::discrete_distribution<size_t> pick(weights.begin(), weights.end());
    std::uniform_int_distribution<int> words(150, 500);
    auto t0 = std::chrono::steady_clock::now();
    Check(c.Exec("BEGIN"), "begin");
    for (int d = 1; d <= docs; ++d) {
      std::string body;
      for (int k = words(rng); k > 0; --k) body += vocab[pick(rng)] + " ";
      auto s = c.Prepare("INSERT INTO doc_text (rowid, body) VALUES (?, ?)");
      if (!s.ok()) Die(s.status().ToString());
      s->Bind(1, d).Bind(2, body);
      Check(s->Exec(), "insert");
      Check(StoreTextSize(c, d), "doc size");
    }
    Check(c.Exec("COMMIT"), "commit");
    // One segment, as maintenance leaves a served index.
    Check(c.Exec("INSERT INTO doc_text (doc_text) VALUES ('optimize')"), "optimize");
    const double built =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    // The shapes of media.py's queries (as search::FtsQuery writes them).
    std::uniform_int_distribution<size_t> common(0, 19);
    std::uniform_int_distribution<size_t> mid(500, 2999);
    const RankTuning kSetups[3] = {{.quick_count = false, .reuse_buffers = false},
                                   {.quick_count = false, .reuse_buffers = true},
                                   {.quick_count = true, .reuse_buffers = true}};
    struct Row {
      const char* label;
      std::vector<std::string> queries;
      std::vector<double> ms[3];
    };
    std::vector<Row> rows = {{"a common word (one of the 20 most frequent)", {}, {}},
                             {"two mid-frequency words", {}, {}},
                             {"a common and a mid-frequency word", {}, {}}};
    for (int i = 0; i < reps; ++i) {
      rows[0].queries.push_back("\"" + vocab[common(rng)] + "\"");
      rows[1].queries.push_back("\"" + vocab[mid(rng)] + "\" \"" + vocab[mid(rng)] + "\"");
      rows[2].queries.push_back("\"" + vocab[common(rng)] + "\" \"" + vocab[mid(rng)] + "\"");
    }
    for (Row& row : rows) {
      for (size_t k = 0; k < row.queries.size(); ++k) {
        const std::string& q = row.queries[k];
        (void)Rank(c, q, {});  // warm the page cache
        Ranked got[3];
        for (size_t turn = 0; turn < 3; ++turn) {
          const size_t setup = (turn + k) % 3;  // who goes first rotates
          auto t = std::chrono::steady_clock::now();
          got[setup] = Rank(c, q, kSetups[setup]);
          row.ms[setup].push_back(
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t)
                  .count());
        }
        if (got[0] != got[1] || got[0] != got[2] || got[0].empty()) {
          std::fprintf(stderr, "gate: %s answered differently (%zu, %zu, %zu rows)\n", q.c_str(),
                       got[0].size(), got[1].size(), got[2].size());
          rc = 1;
        }
      }
    }
    std::printf(
        "# rank: %d documents (built and merged in %.1f s), %d queries per row, limit 20\n\n", docs,
        built, reps);
    std::printf(
        "| query | BEFORE p50 / p95 ms | buffers reused p50 / p95 ms | AFTER (and quick count) "
        "p50 / p95 ms | AFTER / BEFORE (p50) |\n");
    std::printf("|---|---|---|---|---|\n");
    for (const Row& row : rows) {
      std::printf("| %s | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.2f |\n", row.label,
                  Pct(row.ms[0], 0.5), Pct(row.ms[0], 0.95), Pct(row.ms[1], 0.5),
                  Pct(row.ms[1], 0.95), Pct(row.ms[2], 0.5), Pct(row.ms[2], 0.95),
                  Pct(row.ms[2], 0.5) / Pct(row.ms[0], 0.5));
    }
    std::printf("\ngate (same ids and bm25 values from all three, every query): %s\n",
                rc == 0 ? "passed" : "FAILED");
  }
  fs::remove_all(dir);
  return rc;
}
