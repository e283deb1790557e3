#include "media/thumbnails.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "auth/test_support.h"
#include "blob/mem/mem_chunk_store.h"

namespace nubo::media {
namespace {

namespace fs = std::filesystem;

void Touch(const fs::path& p, std::chrono::hours age) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << "x";
  fs::last_write_time(p, fs::file_time_type::clock::now() - age);
}

struct Fixture {
  Fixture() {
    o.tmp_dir = (db.dir / "tmp").string();
    o.derived_dir = (db.dir / "derived").string();
    o.helper = "/nonexistent/nubo-derive";
    fs::create_directories(o.tmp_dir);
  }
  auth::testing::TempMeta db;
  blob::MemChunkStore chunks;
  ThumbnailOptions o;
};

// Maintenance removes what a crash can leave behind — a derived file whose
// row was never written, a copy of content made for a helper that was
// killed — once it is older than the grace period, and nothing else.
TEST(ThumbnailsTest, MaintenanceSweepsWhatACrashLeftOnly) {
  Fixture f;
  auto& db = f.db;
  Thumbnails t(*db.store, f.chunks, f.o);
  const std::string hex(64, 'a');
  const fs::path old_stray = db.dir / "derived" / "aa" / (hex + "-1.webp");
  const fs::path new_stray = db.dir / "derived" / "aa" / (hex + "-2.webp");
  const fs::path not_derived = db.dir / "derived" / "aa" / "notes.txt";
  const fs::path old_copy = db.dir / "tmp" / "derive-Ab12Cd.jpg";
  const fs::path new_copy = db.dir / "tmp" / "derive-Zz99Yy.pdf";
  const fs::path old_chunk_temp = db.dir / "tmp" / "chunk-123";
  Touch(old_stray, std::chrono::hours(2));
  Touch(new_stray, std::chrono::hours(0));
  Touch(not_derived, std::chrono::hours(2));
  Touch(old_copy, std::chrono::hours(2));
  Touch(new_copy, std::chrono::hours(0));
  Touch(old_chunk_temp, std::chrono::hours(2));
  auto n = t.CollectOrphans(3600 * 1000);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 2);
  EXPECT_FALSE(fs::exists(old_stray));
  EXPECT_FALSE(fs::exists(old_copy));
  EXPECT_TRUE(fs::exists(new_stray));       // may be a thumbnail being made right now
  EXPECT_TRUE(fs::exists(new_copy));        // a helper may be reading it
  EXPECT_TRUE(fs::exists(not_derived));     // not ours to judge
  EXPECT_TRUE(fs::exists(old_chunk_temp));  // the chunk store sweeps its own
}

// A copy that several helpers read in turn is as young as its last use:
// the sweep must not take it from under the next helper of a long job.
TEST(ThumbnailsTest, ACopyInUseIsNotSwept) {
  Fixture f;
  Thumbnails t(*f.db.store, f.chunks, f.o);
  const std::vector<meta::ManifestChunk> none;
  meta::NodeRow song;
  song.name = "Song.MP3";
  song.mime = "audio/mpeg";
  std::string path;
  {
    ContentCopy copy(t, song, none);
    auto p = copy.Path();
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    path = *p;
    EXPECT_EQ(fs::path(path).extension(), ".mp3");  // what TagLib goes by
    EXPECT_EQ(t.copies(), 1u);
    // The first helper ran long.
    fs::last_write_time(path, fs::file_time_type::clock::now() - std::chrono::hours(2));
    auto again = copy.Path();  // the next helper's turn
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, path);
    EXPECT_EQ(t.copies(), 1u);
    auto n = t.CollectOrphans(3600 * 1000);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_EQ(*n, 0);
    EXPECT_TRUE(fs::exists(path));
  }
  EXPECT_FALSE(fs::exists(path));  // gone with the job
}

}  // namespace
}  // namespace nubo::media
