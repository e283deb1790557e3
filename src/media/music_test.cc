#include "media/music.h"

#include <gtest/gtest.h>

namespace nubo::media {
namespace {

TEST(ParseTrackFacts, ReadsTagsAndGroupsCaseInsensitively) {
  meta::NodeRow n;
  n.id = 4;
  n.drive_id = 2;
  n.name = "01 intro.mp3";
  auto t = ParseTrackFacts(
      "title=Intro\nartist=Björk feat. X\nalbumartist=BJÖRK\nalbum=Homogenic\ntrack=3/12\n"
      "disc=2/2\nyear=1997\ngenre=Electronic\nduration_ms=215000\n",
      n);
  EXPECT_EQ(t.node_id, 4);
  EXPECT_EQ(t.title, "Intro");
  EXPECT_EQ(t.artist, "Björk feat. X");
  EXPECT_EQ(t.album_artist, "BJÖRK");
  EXPECT_EQ(t.track_no, 3);
  EXPECT_EQ(t.disc_no, 2);
  EXPECT_EQ(t.year, 1997);
  EXPECT_EQ(t.duration_ms, 215000);
  meta::TrackRow other = ParseTrackFacts("albumartist=björk\nalbum=HOMOGENIC\n", n);
  EXPECT_EQ(other.artist_key, t.artist_key);  // one artist, one album in the library
  EXPECT_EQ(other.album_key, t.album_key);
}

TEST(ParseTrackFacts, UntaggedFilesStillHaveATitle) {
  meta::NodeRow n;
  n.name = "Field recording.flac";
  auto t = ParseTrackFacts("track=x\nduration_ms=12a\nbogus\n", n);
  EXPECT_EQ(t.title, "Field recording");
  EXPECT_EQ(t.track_no, 0);
  EXPECT_EQ(t.duration_ms, 12);
  EXPECT_EQ(t.album_artist, "");
  EXPECT_EQ(ParseTrackFacts("track=99999999\n", n).track_no, 9999);
}

TEST(IsAudio, ByTypeOrExtension) {
  EXPECT_TRUE(IsAudio("a.bin", "audio/mpeg"));
  EXPECT_TRUE(IsAudio("song.FLAC", "application/octet-stream"));
  EXPECT_FALSE(IsAudio("clip.mp4", "video/mp4"));
  EXPECT_EQ(AudioSuffix("x.Mp3"), ".mp3");
  EXPECT_EQ(AudioSuffix("x.exe"), "");
}

}  // namespace
}  // namespace nubo::media
