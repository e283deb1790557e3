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

Result<std::string> ValidateName(std::string_view name) {
  if (name.empty()) return Status::InvalidArgument("name must not be empty");
  if (name.size() > kMaxNameBytes) return Status::InvalidArgument("name is longer than 255 bytes");
  NUBO_RETURN_IF_ERROR(CheckCodePoints(name));
  if (name == "." || name == "..") return Status::InvalidArgument("name must not be '.' or '..'");
  return std::string(name);
}

std::string NameKey(std::string_view name) {
  UErrorCode err = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(err);
  icu::UnicodeString u = icu::UnicodeString::fromUTF8(
      icu::StringPiece(name.data(), static_cast<int32_t>(name.size())));
  // NFC first: folding the NFD and the NFC spelling of a name must give
  // one key (and the keys stored before names were kept as sent, which
  // were computed from NFC names, stay the same).
  if (U_SUCCESS(err) && !nfc->isNormalized(u, err)) u = nfc->normalize(u, err);
  u.foldCase();
  if (U_SUCCESS(err) && !nfc->isNormalized(u, err)) u = nfc->normalize(u, err);
  std::string out;
  u.toUTF8String(out);
  return out;
}

}  // namespace nubo::files
