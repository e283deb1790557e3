// nubo-derive: the media helper. The server runs it in a bounded process
// (jobs/isolate.h) for everything that feeds hostile bytes to a large
// decoder — images and PDFs through libvips, PDF text through poppler,
// office documents through libarchive and expat — so that the server never
// links those libraries. One call, one file in, one file out:
//
//   nubo-derive thumb IN OUT BOX MAX_PIXELS   WebP fitting BOX×BOX
//   nubo-derive text pdf|office IN OUT MAX_BYTES
//
// Exit status: 0 done; 3 the input cannot be decoded (no derived data is
// possible: not retried); 4 over a limit (likewise); 2 usage; anything
// else (crash, signal) a failure that may be retried.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vips/vips.h>

#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-page.h>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "derive/office_text.h"

#if defined(__SANITIZE_ADDRESS__)
// The decoders' libraries keep caches until exit; under the sanitizers the
// helper's exit status must still say whether it did its work.
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }
#endif

namespace {

constexpr int kDone = 0, kUsage = 2, kUndecodable = 3, kTooLarge = 4, kFailed = 5;

bool WriteAll(const char* path, const std::string& data) {
  FILE* f = std::fopen(path, "wb");
  if (!f) return false;
  bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  return std::fclose(f) == 0 && ok;
}

int Thumb(const char* in, const char* out, int box, double max_pixels) {
  if (VIPS_INIT("nubo-derive")) return kFailed;
  vips_cache_set_max(0);
  // Only the loaders meant for untrusted input (no ImageMagick, FITS,
  // MATLAB or OpenSlide): hostile files meet the well-kept decoders only.
  vips_block_untrusted_set(TRUE);
  // PDF pages through poppler: the same library the text extraction uses,
  // inside the same bounded process.
  vips_operation_block_set("VipsForeignLoadPdf", FALSE);
  // The header alone first: its size decides before any pixel is decoded
  // (a small file may claim billions of pixels).
  VipsImage* head = vips_image_new_from_file(in, "access", VIPS_ACCESS_SEQUENTIAL, nullptr);
  if (!head) {
    std::fprintf(stderr, "%s", vips_error_buffer());
    return kUndecodable;
  }
  double pixels = static_cast<double>(head->Xsize) * head->Ysize;
  g_object_unref(head);
  if (pixels > max_pixels) {
    std::fprintf(stderr, "image of %.0f pixels is over the limit\n", pixels);
    return kTooLarge;
  }
  VipsImage* thumb = nullptr;
  // vips_thumbnail shrinks on load where the format allows (JPEG, WebP,
  // PDF, SVG) and turns by the EXIF orientation.
  if (vips_thumbnail(in, &thumb, box, "height", box, "size", VIPS_SIZE_DOWN, nullptr)) {
    std::fprintf(stderr, "%s", vips_error_buffer());
    return kUndecodable;
  }
  int rc = vips_webpsave(thumb, out, "Q", 80, "strip", TRUE, nullptr);
  g_object_unref(thumb);
  if (rc) {
    std::fprintf(stderr, "%s", vips_error_buffer());
    return kFailed;
  }
  return kDone;
}

void Quiet(const std::string&, void*) {}

int PdfText(const char* in, const char* out, size_t max) {
  poppler::set_debug_error_function(Quiet, nullptr);
  std::unique_ptr<poppler::document> doc(poppler::document::load_from_file(in));
  if (!doc || doc->is_locked()) return kUndecodable;
  std::string text;
  const int pages = doc->pages();
  for (int i = 0; i < pages && text.size() < max; ++i) {
    std::unique_ptr<poppler::page> page(doc->create_page(i));
    if (!page) continue;
    poppler::byte_array bytes = page->text().to_utf8();
    text.append(bytes.begin(), bytes.end());
    text += '\n';
  }
  if (text.size() > max) {
    size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text.resize(cut);
  }
  return WriteAll(out, text) ? kDone : kFailed;
}

int OfficeText(const char* in, const char* out, size_t max) {
  int fd = open(in, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return kFailed;
  struct stat st {};
  if (fstat(fd, &st) != 0) return kFailed;
  if (st.st_size == 0) return kUndecodable;
  void* map = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return kFailed;
  nubo::derive::OfficeLimits limits;
  limits.max_text = max;
  auto text = nubo::derive::OfficeText(
      std::string_view(static_cast<const char*>(map), static_cast<size_t>(st.st_size)), limits);
  if (!text.ok()) {
    std::fprintf(stderr, "%s\n", text.status().ToString().c_str());
    return kUndecodable;
  }
  return WriteAll(out, *text) ? kDone : kFailed;
}

}  // namespace

int main(int argc, char** argv) {
  std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "thumb" && argc == 6) {
    int box = std::atoi(argv[4]);
    double max_pixels = std::strtod(argv[5], nullptr);
    if (box < 16 || box > 4096 || max_pixels <= 0) return kUsage;
    return Thumb(argv[2], argv[3], box, max_pixels);
  }
  if (cmd == "text" && argc == 6) {
    std::string kind = argv[2];
    size_t max = std::strtoull(argv[5], nullptr, 10);
    if (max == 0) return kUsage;
    if (kind == "pdf") return PdfText(argv[3], argv[4], max);
    if (kind == "office") return OfficeText(argv[3], argv[4], max);
  }
  std::fprintf(stderr,
               "usage: nubo-derive thumb IN OUT BOX MAX_PIXELS\n"
               "       nubo-derive text pdf|office IN OUT MAX_BYTES\n");
  return kUsage;
}
