#include "files/mime.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace nubo::files {
namespace {

// A PNG signature and IHDR chunk start (RFC 2083 §3.1, §4.1.1).
constexpr char kPngBytes[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0";
const std::string kPng(kPngBytes, sizeof(kPngBytes) - 1);

TEST(Mime, ExtensionIsCaseInsensitive) {
  EXPECT_EQ(MimeFromExtension("photo.JPG"), "image/jpeg");
  EXPECT_EQ(MimeFromExtension("photo.jpeg"), "image/jpeg");
  EXPECT_EQ(MimeFromExtension("Movies/Holiday.MKV"), "video/x-matroska");
  EXPECT_EQ(MimeFromExtension("IMG_0001.HEIC"), "image/heic");
}

TEST(Mime, CommonTypes) {
  struct Case {
    const char* name;
    const char* mime;
  } cases[] = {
      {"a.avif", "image/avif"},
      {"a.webp", "image/webp"},
      {"a.svg", "image/svg+xml"},
      {"a.png", "image/png"},
      {"a.gif", "image/gif"},
      {"a.flac", "audio/flac"},
      {"a.opus", "audio/ogg"},
      {"a.m4a", "audio/mp4"},
      {"a.mp3", "audio/mpeg"},
      {"a.webm", "video/webm"},
      {"a.mov", "video/quicktime"},
      {"a.mp4", "video/mp4"},
      {"a.pdf", "application/pdf"},
      {"a.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
      {"a.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
      {"a.odt", "application/vnd.oasis.opendocument.text"},
      {"a.ics", "text/calendar"},
      {"a.vcf", "text/vcard"},
      {"a.md", "text/markdown"},
      {"a.txt", "text/plain"},
      {"a.js", "text/javascript"},
      {"a.html", "text/html"},
      {"a.zip", "application/zip"},
      {"a.7z", "application/x-7z-compressed"},
      {"backup.tar.gz", "application/gzip"},  // the last extension decides
      {"a.zst", "application/zstd"},
      {"firmware.BIN", "application/octet-stream"},
  };
  for (const Case& c : cases) EXPECT_EQ(MimeFromExtension(c.name), c.mime) << c.name;
}

TEST(Mime, NoOrUnknownExtension) {
  EXPECT_EQ(MimeFromExtension("README"), "");
  EXPECT_EQ(MimeFromExtension(".bashrc"), "");  // a hidden file, not a "bashrc" type
  EXPECT_EQ(MimeFromExtension("dots."), "");
  EXPECT_EQ(MimeFromExtension("v1.0/README"), "");  // a dot in a folder name is no extension
  EXPECT_EQ(MimeFromExtension("a.nosuchext"), "");
  EXPECT_EQ(MimeFromExtension("a.ts"), "");  // TypeScript or MPEG-TS: left to sniffing
  EXPECT_EQ(MimeFromExtension(""), "");
}

TEST(Mime, DetectPrefersExtensionThenMagic) {
  EXPECT_EQ(DetectMime("notes.txt", kPng), "text/plain");  // the user's choice wins
  EXPECT_EQ(DetectMime("upload.xyz", kPng), "image/png");
  EXPECT_EQ(DetectMime("scan", "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n"), "application/pdf");
  EXPECT_EQ(DetectMime("LICENSE", "Permission is hereby granted, free of charge,\n"), "text/plain");
  EXPECT_EQ(DetectMime("blob", std::string("\x1f\x8b\x08\0\0\0\0\0\0\x03", 10)),
            "application/gzip");
}

TEST(Mime, DetectFallsBackToOctetStream) {
  EXPECT_EQ(DetectMime("empty", ""), "application/octet-stream");
  EXPECT_EQ(DetectMime("empty.png", ""), "image/png");
  std::string noise(4096, '\0');
  uint32_t x = 12345;
  for (char& c : noise) {
    x = x * 1103515245 + 12345;
    c = static_cast<char>(x >> 24);
  }
  EXPECT_EQ(DetectMime("noise", noise), "application/octet-stream");
  // More than 4 KiB is accepted and ignored past the head.
  EXPECT_EQ(DetectMime("big", kPng + std::string(10000, 'x')), "image/png");
}

TEST(Mime, DetectIsThreadSafe) {
  std::vector<std::thread> threads;
  std::vector<std::string> got(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&got, t] {
      for (int i = 0; i < 50; ++i) got[t] = DetectMime("f", kPng);
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& g : got) EXPECT_EQ(g, "image/png");
}

TEST(Mime, InlineSafe) {
  for (const char* yes :
       {"image/png", "image/JPEG", "image/webp", "audio/ogg", "video/mp4", "application/pdf",
        "text/plain", "text/plain; charset=utf-8", " Text/Plain ;charset=x"}) {
    EXPECT_TRUE(InlineSafe(yes)) << yes;
  }
  for (const char* no :
       {"image/svg+xml", "IMAGE/SVG+XML", "image/svg+xml; charset=utf-8", "text/html",
        "application/xhtml+xml", "application/xml", "text/xml", "text/javascript",
        "application/javascript", "text/css", "text/markdown", "application/octet-stream", "image/",
        "", "text/plain-but-not", "application/pdfx"}) {
    EXPECT_FALSE(InlineSafe(no)) << no;
  }
}

TEST(Mime, AlreadyCompressed) {
  for (const char* yes : {"image/jpeg",
                          "image/png",
                          "image/webp",
                          "image/heic",
                          "image/avif",
                          "audio/mpeg",
                          "audio/flac",
                          "audio/ogg",
                          "video/mp4",
                          "video/x-matroska",
                          "application/zip",
                          "application/gzip",
                          "application/x-xz",
                          "application/zstd",
                          "application/x-7z-compressed",
                          "application/vnd.rar",
                          "application/x-bzip2",
                          "application/pdf",
                          "application/vnd.oasis.opendocument.text",
                          "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                          "application/vnd.ms-excel.sheet.macroEnabled.12",
                          "application/epub+zip"}) {
    EXPECT_TRUE(AlreadyCompressed(yes)) << yes;
  }
  for (const char* no : {"image/bmp", "image/svg+xml", "image/tiff", "audio/wav", "audio/x-wav",
                         "text/plain", "application/json", "application/x-tar",
                         "application/msword", "application/octet-stream", ""}) {
    EXPECT_FALSE(AlreadyCompressed(no)) << no;
  }
  // Table and classifier agree on typical names.
  EXPECT_TRUE(AlreadyCompressed(MimeFromExtension("IMG_1234.JPG")));
  EXPECT_FALSE(AlreadyCompressed(MimeFromExtension("notes.txt")));
}

}  // namespace
}  // namespace nubo::files
