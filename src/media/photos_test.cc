#include "media/photos.h"

#include <gtest/gtest.h>

namespace nubo::media {
namespace {

TEST(ParseExifDateTime, ReadsTheCameraClockAsUtc) {
  EXPECT_EQ(ParseExifDateTime("1970:01:01 00:00:00"), 0);
  EXPECT_EQ(ParseExifDateTime("2024:02:29 13:45:30"), 1709214330000);
  EXPECT_EQ(ParseExifDateTime("2000:03:01 00:00:00"), 951868800000);
}

TEST(ParseExifDateTime, RefusesWhatIsNotADate) {
  for (const char* s : {"", "2023:02:29 00:00:00", "2024:13:01 00:00:00", "2024:00:10 00:00:00",
                        "0000:00:00 00:00:00", "    :  :     :  :  ", "2024-01-01 00:00:00",
                        "2024:01:01 24:00:00", "1700:01:01 00:00:00", "2024:01:32 00:00:00"}) {
    EXPECT_FALSE(ParseExifDateTime(s).has_value()) << s;
  }
}

TEST(ParsePhotoFacts, TakesWhatIsValidAndIgnoresTheRest) {
  meta::NodeRow n;
  n.id = 7;
  n.drive_id = 3;
  n.mtime_ms = 123;
  auto p = ParsePhotoFacts(
      "taken=2021:06:05 10:11:12\ncamera=Canon EOS R5  \nlat=48.8583701\nlon=2.2944813\n"
      "width=4000\nheight=6000\norientation=6\nbogus=1\nnoequals\n",
      n);
  EXPECT_EQ(p.node_id, 7);
  EXPECT_EQ(p.drive_id, 3);
  EXPECT_TRUE(p.taken_exact);
  EXPECT_EQ(p.taken_at_ms, *ParseExifDateTime("2021:06:05 10:11:12"));
  EXPECT_EQ(p.camera, "Canon EOS R5");
  ASSERT_TRUE(p.lat && p.lon);
  EXPECT_NEAR(*p.lat, 48.85837, 1e-5);
  EXPECT_EQ(p.width, 4000);
  EXPECT_EQ(p.height, 6000);
  EXPECT_EQ(p.orientation, 6);
}

TEST(ParsePhotoFacts, FallsBackToTheFileTimeAndDropsBadPositions) {
  meta::NodeRow n;
  n.mtime_ms = 555;
  auto p = ParsePhotoFacts("taken=garbage\nlat=91\nlon=10\norientation=9\nwidth=-5\n", n);
  EXPECT_FALSE(p.taken_exact);
  EXPECT_EQ(p.taken_at_ms, 555);
  EXPECT_FALSE(p.lat.has_value());
  EXPECT_EQ(p.orientation, 1);
  EXPECT_EQ(p.width, 0);
  auto zero = ParsePhotoFacts("lat=0\nlon=0\n", n);
  EXPECT_FALSE(zero.lat.has_value());
  auto half = ParsePhotoFacts("lat=10\n", n);
  EXPECT_FALSE(half.lat.has_value());
  auto camera = ParsePhotoFacts(std::string("camera=a\xff\x01"
                                            "b\n"),
                                n);
  EXPECT_EQ(camera.camera, "a  b");
}

TEST(IsPhoto, RasterImagesOnly) {
  EXPECT_TRUE(IsPhoto("image/jpeg"));
  EXPECT_TRUE(IsPhoto("image/heic"));
  EXPECT_FALSE(IsPhoto("image/svg+xml"));
  EXPECT_FALSE(IsPhoto("application/pdf"));
}

}  // namespace
}  // namespace nubo::media
