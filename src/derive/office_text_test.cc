#include "derive/office_text.h"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace nubo::derive {
namespace {

// A ZIP built in memory with libarchive, as an office suite writes one.
std::string Zip(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::vector<char> buf(1 << 20);
  size_t used = 0;
  archive* a = archive_write_new();
  archive_write_set_format_zip(a);
  EXPECT_EQ(archive_write_open_memory(a, buf.data(), buf.size(), &used), ARCHIVE_OK);
  for (const auto& [name, data] : entries) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_size(e, static_cast<la_int64_t>(data.size()));
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_write_header(a, e);
    archive_write_data(a, data.data(), data.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
  return std::string(buf.data(), used);
}

TEST(OfficeText, ReadsDocxRunsAndParagraphs) {
  std::string doc =
      "<?xml version=\"1.0\"?><w:document "
      "xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body>"
      "<w:p><w:r><w:t>Quarterly</w:t></w:r><w:r><w:t xml:space=\"preserve\"> re</w:t></w:r>"
      "<w:r><w:t>port</w:t></w:r></w:p><w:p><w:r><w:instrText>IGNORED</w:instrText><w:t>"
      "Second &amp; last</w:t></w:r></w:p></w:body></w:document>";
  auto text = OfficeText(Zip({{"[Content_Types].xml", "<Types/>"}, {"word/document.xml", doc}}));
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, "Quarterly report Second & last");
}

TEST(OfficeText, ReadsSharedStringsSlidesAndOdf) {
  auto xlsx = OfficeText(Zip({{"xl/sharedStrings.xml",
                               "<sst xmlns=\"x\"><si><t>Revenue</t></si><si><r><t>Cost</t></r>"
                               "</si></sst>"}}));
  ASSERT_TRUE(xlsx.ok());
  EXPECT_EQ(*xlsx, "Revenue Cost");
  auto pptx = OfficeText(Zip({{"ppt/slides/slide1.xml",
                               "<p:sld xmlns:p=\"p\" xmlns:a=\"a\"><a:p><a:r><a:t>Title</a:t></a:r>"
                               "</a:p></p:sld>"},
                              {"ppt/slides/_rels/slide1.xml.rels", "<Relationships/>"}}));
  ASSERT_TRUE(pptx.ok());
  EXPECT_EQ(*pptx, "Title");
  auto odt = OfficeText(Zip({{"mimetype", "application/vnd.oasis.opendocument.text"},
                             {"content.xml",
                              "<office:document-content xmlns:office=\"o\" xmlns:text=\"t\">"
                              "<office:body><text:h>Heading</text:h><text:p>One<text:s/>two"
                              "</text:p></office:body></office:document-content>"}}));
  ASSERT_TRUE(odt.ok());
  EXPECT_EQ(*odt, "Heading One two");
}

TEST(OfficeText, RefusesWhatIsNotAnOfficeDocument) {
  EXPECT_FALSE(OfficeText("not a zip at all").ok());
  EXPECT_FALSE(OfficeText(Zip({{"readme.txt", "hello"}})).ok());
}

TEST(OfficeText, EntitiesAndDoctypesAreNotExpanded) {
  // A billion-laughs document: the DOCTYPE stops the part, nothing expands.
  std::string bomb =
      "<?xml version=\"1.0\"?><!DOCTYPE d [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b "
      "\"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]><w:document xmlns:w=\"w\"><w:p><w:t>&b;</w:t></w:p>"
      "</w:document>";
  auto text = OfficeText(Zip({{"word/document.xml", bomb}}));
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->find("aaaa"), std::string::npos);
}

TEST(OfficeText, TextIsBounded) {
  std::string many = "<w:document xmlns:w=\"w\">";
  for (int i = 0; i < 2000; ++i) many += "<w:p><w:t>wordé wordé wordé</w:t></w:p>";
  many += "</w:document>";
  OfficeLimits l;
  l.max_text = 1001;
  auto text = OfficeText(Zip({{"word/document.xml", many}}), l);
  ASSERT_TRUE(text.ok());
  EXPECT_LE(text->size(), 1001u);
  // Cut on a character boundary: still valid UTF-8 at the end.
  EXPECT_NE(static_cast<unsigned char>(text->back()) & 0xC0, 0xC0);
}

}  // namespace
}  // namespace nubo::derive
