#include "files/names.h"

#include <unicode/normalizer2.h>
#include <unicode/unistr.h>
#include <unicode/utf8.h>

namespace nubo::files {

namespace {

bool IsControl(UChar32 c) { return c < 0x20 || (c >= 0x7f && c <= 0x9f); }

// Strict UTF-8 check (no overlongs, no surrogates, no code points past
// U+10FFFF) and control-character scan in one pass.
Status CheckCodePoints(std::string_view s) {
  int32_t i = 0;
  const int32_t n = static_cast<int32_t>(s.size());
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  while (i < n) {
    UChar32 c;
    U8_NEXT(p, i, n, c);
    if (c < 0) return Status::InvalidArgument("name is not valid UTF-8");
    if (c == '/') return Status::InvalidArgument("name must not contain '/'");
    if (c == 0) return Status::InvalidArgument("name must not contain NUL");
    if (IsControl(c)) return Status::InvalidArgument("name must not contain control characters");
  }
  return Status::Ok();
}

}  // namespace

Result<std::string> NormalizeName(std::string_view name) {
  if (name.empty()) return Status::InvalidArgument("name must not be empty");
  // Bound the work before normalizing (NFC never grows a string more than 3x).
  if (name.size() > 4 * kMaxNameBytes) {
    return Status::InvalidArgument("name is longer than 255 bytes");
  }
  NUBO_RETURN_IF_ERROR(CheckCodePoints(name));
  UErrorCode err = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(err);
  if (U_FAILURE(err)) return Status::Internal("ICU NFC normalizer unavailable");
  icu::UnicodeString u = icu::UnicodeString::fromUTF8(
      icu::StringPiece(name.data(), static_cast<int32_t>(name.size())));
  icu::UnicodeString normalized = nfc->normalize(u, err);
  if (U_FAILURE(err)) return Status::InvalidArgument("name cannot be normalized");
  std::string out;
  normalized.toUTF8String(out);
  if (out.size() > kMaxNameBytes) return Status::InvalidArgument("name is longer than 255 bytes");
  if (out == "." || out == "..") return Status::InvalidArgument("name must not be '.' or '..'");
  return out;
}

std::string NameKey(std::string_view normalized_name) {
  icu::UnicodeString u = icu::UnicodeString::fromUTF8(
      icu::StringPiece(normalized_name.data(), static_cast<int32_t>(normalized_name.size())));
  u.foldCase();
  UErrorCode err = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(err);
  icu::UnicodeString folded = U_SUCCESS(err) ? nfc->normalize(u, err) : u;
  std::string out;
  (U_SUCCESS(err) ? folded : u).toUTF8String(out);
  return out;
}

}  // namespace nubo::files
