// nubo-derive: the media helper. The server runs it in a bounded process
// (jobs/isolate.h, jobs/helper_pool.h) for everything that feeds hostile
// bytes to a large decoder — images and PDFs through libvips, PDF text
// through poppler, office documents through libarchive and expat — so that
// the server never links those libraries. One file in, one file out:
//
//   nubo-derive thumb IN OUT BOX MAX_PIXELS   WebP fitting BOX×BOX
//   nubo-derive text pdf|office IN OUT MAX_BYTES
//   nubo-derive photo IN OUT                  EXIF facts, one "key=value" a line
//   nubo-derive audio IN OUT                  tags (TagLib), likewise; IN's
//                                             extension names the format
//   nubo-derive cover IN OUT                  the picture embedded in an
//                                             audio file (front cover first),
//                                             as stored (JPEG, PNG, …)
//   nubo-derive serve CPU_SECONDS             the same requests, one per
//                                             line on stdin (fields split by
//                                             tabs), answers on stdout
//
// Status (the exit status, or the answer's first field): 0 done; 3 the
// input cannot be decoded (no derived data is possible: not retried); 4
// over a limit (likewise); 2 usage; 5 or a signal: a failure that may be
// retried.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vips/vips.h>

#include <taglib/attachedpictureframe.h>
#include <taglib/audioproperties.h>
#include <taglib/fileref.h>
#include <taglib/flacfile.h>
#include <taglib/flacpicture.h>
#include <taglib/id3v2tag.h>
#include <taglib/mp4file.h>
#include <taglib/mp4tag.h>
#include <taglib/mpegfile.h>
#include <taglib/opusfile.h>
#include <taglib/tag.h>
#include <taglib/tpropertymap.h>
#include <taglib/vorbisfile.h>
#include <taglib/xiphcomment.h>
#include <exiv2/exiv2.hpp>

#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-page.h>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "derive/office_text.h"

#if defined(__SANITIZE_ADDRESS__)
// The decoders' libraries keep caches until exit; under the sanitizers the
// helper's exit status must still say whether it did its work.
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }
#endif

namespace {

constexpr int kDone = 0, kUsage = 2, kUndecodable = 3, kTooLarge = 4, kFailed = 5;

struct Outcome {
  int status = kDone;
  std::string message;
};

bool WriteAll(const char* path, const std::string& data) {
  FILE* f = std::fopen(path, "wb");
  if (!f) return false;
  bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  return std::fclose(f) == 0 && ok;
}

Outcome VipsFailure(int status) {
  Outcome o{status, vips_error_buffer()};
  vips_error_clear();
  return o;
}

bool InitVips() {
  static bool ready = [] {
    if (VIPS_INIT("nubo-derive")) return false;
    vips_cache_set_max(0);
    // Only the loaders meant for untrusted input (no ImageMagick, FITS,
    // MATLAB or OpenSlide): hostile files meet the well-kept decoders only.
    vips_block_untrusted_set(TRUE);
    // PDF pages through poppler: the same library the text extraction uses,
    // inside the same bounded process.
    vips_operation_block_set("VipsForeignLoadPdf", FALSE);
    return true;
  }();
  return ready;
}

Outcome Thumb(const char* in, const char* out, int box, double max_pixels) {
  if (!InitVips()) return {kFailed, "libvips did not start"};
  // The header alone first: its size decides before any pixel is decoded
  // (a small file may claim billions of pixels).
  VipsImage* head = vips_image_new_from_file(in, "access", VIPS_ACCESS_SEQUENTIAL, nullptr);
  if (!head) return VipsFailure(kUndecodable);
  double pixels = static_cast<double>(head->Xsize) * head->Ysize;
  g_object_unref(head);
  if (pixels > max_pixels) {
    return {kTooLarge, "image of " + std::to_string(static_cast<int64_t>(pixels)) +
                           " pixels is over the limit"};
  }
  VipsImage* thumb = nullptr;
  // vips_thumbnail shrinks on load where the format allows (JPEG, WebP,
  // PDF, SVG) and turns by the EXIF orientation.
  if (vips_thumbnail(in, &thumb, box, "height", box, "size", VIPS_SIZE_DOWN, nullptr)) {
    return VipsFailure(kUndecodable);
  }
  int rc = vips_webpsave(thumb, out, "Q", 80, "strip", TRUE, nullptr);
  g_object_unref(thumb);
  if (rc) return VipsFailure(kFailed);
  return {};
}

void Quiet(const std::string&, void*) {}

Outcome PdfText(const char* in, const char* out, size_t max) {
  poppler::set_debug_error_function(Quiet, nullptr);
  std::unique_ptr<poppler::document> doc(poppler::document::load_from_file(in));
  if (!doc || doc->is_locked()) return {kUndecodable, "not a readable PDF"};
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
  return WriteAll(out, text) ? Outcome{} : Outcome{kFailed, "cannot write the text"};
}

Outcome OfficeText(const char* in, const char* out, size_t max) {
  int fd = open(in, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {kFailed, "cannot open the input"};
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_size == 0) {
    close(fd);
    return {kUndecodable, "empty input"};
  }
  void* map = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return {kFailed, "cannot map the input"};
  nubo::derive::OfficeLimits limits;
  limits.max_text = max;
  auto text = nubo::derive::OfficeText(
      std::string_view(static_cast<const char*>(map), static_cast<size_t>(st.st_size)), limits);
  munmap(map, static_cast<size_t>(st.st_size));
  if (!text.ok()) return {kUndecodable, text.status().ToString()};
  return WriteAll(out, *text) ? Outcome{} : Outcome{kFailed, "cannot write the text"};
}

// A GPS coordinate (three rationals: degrees, minutes, seconds) with its
// reference ("N"/"S", "E"/"W") as signed degrees; false when malformed.
bool GpsDegrees(const Exiv2::ExifData& d, const char* key, const char* ref_key, double& out) {
  auto v = d.findKey(Exiv2::ExifKey(key));
  auto r = d.findKey(Exiv2::ExifKey(ref_key));
  if (v == d.end() || r == d.end() || v->count() != 3) return false;
  double parts[3];
  for (long i = 0; i < 3; ++i) {
    Exiv2::Rational q = v->toRational(i);
    if (q.second == 0) return false;
    parts[i] = static_cast<double>(q.first) / q.second;
  }
  out = parts[0] + parts[1] / 60 + parts[2] / 3600;
  std::string ref = r->toString();
  if (ref == "S" || ref == "W") out = -out;
  return true;
}

// What the timeline and the places map need from an image: its displayed
// size (libvips reads the header), the camera's date and offset, make and
// model, orientation and position (exiv2).
Outcome Photo(const char* in, const char* out) {
  if (!InitVips()) return {kFailed, "libvips did not start"};
  VipsImage* head = vips_image_new_from_file(in, "access", VIPS_ACCESS_SEQUENTIAL, nullptr);
  if (!head) return VipsFailure(kUndecodable);
  int64_t width = head->Xsize, height = head->Ysize;
  g_object_unref(head);
  std::string facts;
  int orientation = 1;
  try {
    auto image = Exiv2::ImageFactory::open(in);
    image->readMetadata();
    const Exiv2::ExifData& d = image->exifData();
    auto text = [&](const char* key) {
      auto it = d.findKey(Exiv2::ExifKey(key));
      return it == d.end() ? std::string() : it->toString();
    };
    if (auto it = d.findKey(Exiv2::ExifKey("Exif.Image.Orientation")); it != d.end()) {
      long o = it->toLong();
      if (o >= 1 && o <= 8) orientation = static_cast<int>(o);
    }
    std::string taken = text("Exif.Photo.DateTimeOriginal");
    if (taken.empty()) taken = text("Exif.Image.DateTime");
    if (!taken.empty()) facts += "taken=" + taken + "\n";
    std::string offset = text("Exif.Photo.OffsetTimeOriginal");
    if (!offset.empty()) facts += "offset=" + offset + "\n";
    std::string make = text("Exif.Image.Make"), model = text("Exif.Image.Model");
    std::string camera =
        model.rfind(make, 0) == 0 ? model : (make.empty() ? model : make + " " + model);
    if (!camera.empty()) facts += "camera=" + camera + "\n";
    double lat, lon;
    if (GpsDegrees(d, "Exif.GPSInfo.GPSLatitude", "Exif.GPSInfo.GPSLatitudeRef", lat) &&
        GpsDegrees(d, "Exif.GPSInfo.GPSLongitude", "Exif.GPSInfo.GPSLongitudeRef", lon) &&
        lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "lat=%.7f\nlon=%.7f\n", lat, lon);
      facts += buf;
    }
  } catch (const std::exception& e) {
    // No metadata that exiv2 reads: the image still has a size.
  }
  if (orientation >= 5) std::swap(width, height);  // shown turned by 90°
  facts += "width=" + std::to_string(width) + "\nheight=" + std::to_string(height) +
           "\norientation=" + std::to_string(orientation) + "\n";
  for (char& c : facts) {
    if (c == '\0' || c == '\r') c = ' ';
  }
  return WriteAll(out, facts) ? Outcome{} : Outcome{kFailed, "cannot write the facts"};
}

// What the music library needs from an audio file's tags.
Outcome Audio(const char* in, const char* out) {
  TagLib::FileRef f(in, /*readAudioProperties=*/true, TagLib::AudioProperties::Fast);
  if (f.isNull() || !f.tag()) return {kUndecodable, "not an audio file TagLib reads"};
  const TagLib::Tag* t = f.tag();
  std::string facts;
  auto add = [&](const char* key, const TagLib::String& v) {
    std::string s = v.to8Bit(true);
    for (char& c : s) {
      if (c == '\n' || c == '\r' || c == '\0') c = ' ';
    }
    if (!s.empty()) facts += std::string(key) + "=" + s.substr(0, 512) + "\n";
  };
  add("title", t->title());
  add("artist", t->artist());
  add("album", t->album());
  add("genre", t->genre());
  if (t->year()) facts += "year=" + std::to_string(t->year()) + "\n";
  if (t->track()) facts += "track=" + std::to_string(t->track()) + "\n";
  TagLib::PropertyMap props = f.file()->properties();
  if (props.contains("ALBUMARTIST") && !props["ALBUMARTIST"].isEmpty()) {
    add("albumartist", props["ALBUMARTIST"].front());
  }
  if (props.contains("DISCNUMBER") && !props["DISCNUMBER"].isEmpty()) {
    add("disc", props["DISCNUMBER"].front());  // "1" or "1/2"
  }
  if (const TagLib::AudioProperties* a = f.audioProperties()) {
    facts += "duration_ms=" + std::to_string(a->lengthInMilliseconds()) + "\n";
  }
  return WriteAll(out, facts) ? Outcome{} : Outcome{kFailed, "cannot write the tags"};
}

// The front cover among `pictures` (a FLAC or Xiph list), else the first.
TagLib::ByteVector PickPicture(const TagLib::List<TagLib::FLAC::Picture*>& pictures) {
  for (const TagLib::FLAC::Picture* p : pictures) {
    if (p && p->type() == TagLib::FLAC::Picture::FrontCover) return p->data();
  }
  return pictures.isEmpty() || !pictures.front() ? TagLib::ByteVector() : pictures.front()->data();
}

// The picture embedded in an audio file, as it is stored there: ID3v2
// APIC frames (MP3), FLAC picture blocks, MP4 "covr" atoms, and the
// METADATA_BLOCK_PICTURE of Ogg Vorbis and Opus comments. TagLib 1.13 has
// no format-neutral picture API, so the extension picks the reader.
Outcome Cover(const char* in, const char* out) {
  std::string path(in);
  std::string ext =
      path.substr(path.rfind('.') == std::string::npos ? path.size() : path.rfind('.') + 1);
  for (char& c : ext) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  TagLib::ByteVector data;
  if (ext == "mp3") {
    TagLib::MPEG::File f(in, /*readProperties=*/false);
    if (!f.isValid()) return {kUndecodable, "not an MP3 file TagLib reads"};
    if (TagLib::ID3v2::Tag* tag = f.ID3v2Tag(); tag && tag->frameListMap().contains("APIC")) {
      const TagLib::ID3v2::FrameList& frames = tag->frameListMap()["APIC"];
      const TagLib::ID3v2::AttachedPictureFrame* pick = nullptr;
      for (const TagLib::ID3v2::Frame* fr : frames) {
        auto* pic = dynamic_cast<const TagLib::ID3v2::AttachedPictureFrame*>(fr);
        if (!pic) continue;
        if (!pick || pic->type() == TagLib::ID3v2::AttachedPictureFrame::FrontCover) pick = pic;
        if (pic->type() == TagLib::ID3v2::AttachedPictureFrame::FrontCover) break;
      }
      if (pick) data = pick->picture();
    }
  } else if (ext == "flac") {
    TagLib::FLAC::File f(in, /*readProperties=*/false);
    if (!f.isValid()) return {kUndecodable, "not a FLAC file TagLib reads"};
    data = PickPicture(f.pictureList());
  } else if (ext == "m4a" || ext == "mp4" || ext == "aac") {
    TagLib::MP4::File f(in, /*readProperties=*/false);
    if (!f.isValid() || !f.tag()) return {kUndecodable, "not an MP4 file TagLib reads"};
    TagLib::MP4::CoverArtList covers = f.tag()->item("covr").toCoverArtList();
    if (!covers.isEmpty()) data = covers.front().data();
  } else if (ext == "ogg" || ext == "oga") {
    TagLib::Ogg::Vorbis::File f(in, /*readProperties=*/false);
    if (!f.isValid() || !f.tag()) return {kUndecodable, "not an Ogg Vorbis file TagLib reads"};
    data = PickPicture(f.tag()->pictureList());
  } else if (ext == "opus") {
    TagLib::Ogg::Opus::File f(in, /*readProperties=*/false);
    if (!f.isValid() || !f.tag()) return {kUndecodable, "not an Opus file TagLib reads"};
    data = PickPicture(f.tag()->pictureList());
  } else {
    return {kUndecodable, "no embedded pictures in this format"};
  }
  if (data.isEmpty()) return {kUndecodable, "no embedded picture"};
  return WriteAll(out, std::string(data.data(), data.size()))
             ? Outcome{}
             : Outcome{kFailed, "cannot write the picture"};
}

// One request: {"thumb", IN, OUT, BOX, MAX_PIXELS}, {"text", KIND, IN,
// OUT, MAX_BYTES}, {"photo", IN, OUT}, {"audio", IN, OUT} or {"cover", IN,
// OUT}.
Outcome Dispatch(const std::vector<std::string>& a) {
  if (a.size() == 5 && a[0] == "thumb") {
    int box = std::atoi(a[3].c_str());
    double max_pixels = std::strtod(a[4].c_str(), nullptr);
    if (box < 16 || box > 4096 || max_pixels <= 0) return {kUsage, "bad thumbnail request"};
    return Thumb(a[1].c_str(), a[2].c_str(), box, max_pixels);
  }
  if (a.size() == 5 && a[0] == "text") {
    size_t max = std::strtoull(a[4].c_str(), nullptr, 10);
    if (max == 0) return {kUsage, "bad text request"};
    if (a[1] == "pdf") return PdfText(a[2].c_str(), a[3].c_str(), max);
    if (a[1] == "office") return OfficeText(a[2].c_str(), a[3].c_str(), max);
  }
  if (a.size() == 3 && a[0] == "photo") return Photo(a[1].c_str(), a[2].c_str());
  if (a.size() == 3 && a[0] == "audio") return Audio(a[1].c_str(), a[2].c_str());
  if (a.size() == 3 && a[0] == "cover") return Cover(a[1].c_str(), a[2].c_str());
  return {kUsage, "unknown request"};
}

// Requests from stdin until it closes. Each gets `cpu_seconds` of CPU
// (the soft limit moves up by that much; the hard limit set by the server
// bounds the process's life); the server kills the process when a request
// outlives its wall-clock deadline.
int Serve(int cpu_seconds) {
  char line[16384];
  while (std::fgets(line, sizeof line, stdin)) {
    std::string l(line);
    if (l.empty() || l.back() != '\n') return kUsage;  // over-long: out of protocol
    l.pop_back();
    std::vector<std::string> fields;
    size_t start = 0;
    for (;;) {
      size_t tab = l.find('\t', start);
      fields.push_back(l.substr(start, tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    struct rusage ru {};
    struct rlimit cpu {};
    getrusage(RUSAGE_SELF, &ru);
    getrlimit(RLIMIT_CPU, &cpu);
    rlim_t used = static_cast<rlim_t>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec);
    rlim_t want = used + static_cast<rlim_t>(cpu_seconds) + 1;
    if (cpu.rlim_max == RLIM_INFINITY || want <= cpu.rlim_max) {
      cpu.rlim_cur = want;
      setrlimit(RLIMIT_CPU, &cpu);
    }
    Outcome o = Dispatch(fields);
    for (char& c : o.message) {
      if (c == '\n' || c == '\t') c = ' ';
    }
    std::printf("%d\t%s\n", o.status, o.message.c_str());
    std::fflush(stdout);
  }
  return kDone;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 2 && args[0] == "serve") {
    int cpu = std::atoi(args[1].c_str());
    return cpu > 0 ? Serve(cpu) : kUsage;
  }
  if (!args.empty() && (args[0] == "thumb" || args[0] == "text" || args[0] == "photo" ||
                        args[0] == "audio" || args[0] == "cover")) {
    Outcome o = Dispatch(args);
    if (!o.message.empty()) std::fprintf(stderr, "%s\n", o.message.c_str());
    return o.status;
  }
  std::fprintf(stderr,
               "usage: nubo-derive thumb IN OUT BOX MAX_PIXELS\n"
               "       nubo-derive text pdf|office IN OUT MAX_BYTES\n"
               "       nubo-derive photo IN OUT\n"
               "       nubo-derive audio IN OUT\n"
               "       nubo-derive cover IN OUT\n"
               "       nubo-derive serve CPU_SECONDS\n");
  return kUsage;
}
