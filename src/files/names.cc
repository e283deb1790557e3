#include "files/names.h"

#include <unicode/coll.h>
#include <unicode/normalizer2.h>
#include <unicode/unistr.h>
#include <unicode/utf8.h>
#include <unicode/uversion.h>

#include <memory>

namespace nubo::files {

namespace {

// The shared, configured collator; each thread clones it once (a Collator
// is not safe to use from two threads, and cloning is cheap next to
// building one from the rules).
const icu::Collator* BaseCollator() {
  static const icu::Collator* base = [] {
    UErrorCode err = U_ZERO_ERROR;
    icu::Collator* c = icu::Collator::createInstance(icu::Locale::getRoot(), err);
    if (U_FAILURE(err) || c == nullptr) return static_cast<icu::Collator*>(nullptr);
    // UCA with numeric ordering: runs of decimal digits (any script)
    // compare by value, so "file9" < "file10" and "a02" == "a2" at this
    // strength (the id breaks the tie).
    c->setAttribute(UCOL_NUMERIC_COLLATION, UCOL_ON, err);
    // Secondary: base letters and accents count, case does not ("B" sits
    // between "a" and "c", as in every file manager).
    c->setStrength(icu::Collator::SECONDARY);
    if (U_FAILURE(err)) {
      delete c;
      return static_cast<icu::Collator*>(nullptr);
    }
    return c;
  }();
  return base;
}

icu::Collator* ThreadCollator() {
  thread_local std::unique_ptr<icu::Collator> mine(BaseCollator() ? BaseCollator()->clone()
                                                                  : nullptr);
  return mine.get();
}

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

std::string SortKey(std::string_view name) {
  icu::Collator* c = ThreadCollator();
  // Without ICU collation data, order by the lookup key: still total and
  // stable, just not natural.
  if (c == nullptr) return NameKey(name);
  icu::UnicodeString u = icu::UnicodeString::fromUTF8(
      icu::StringPiece(name.data(), static_cast<int32_t>(name.size())));
  std::string key(64, '\0');
  for (;;) {
    int32_t n =
        c->getSortKey(u, reinterpret_cast<uint8_t*>(key.data()), static_cast<int32_t>(key.size()));
    if (n <= 0) return NameKey(name);
    if (static_cast<size_t>(n) <= key.size()) {
      // n counts the terminating NUL; the key without it orders the same.
      key.resize(static_cast<size_t>(n) - 1);
      return key;
    }
    key.resize(static_cast<size_t>(n));
  }
}

std::string CollationVersion() {
  const icu::Collator* c = BaseCollator();
  if (c == nullptr) return "namekey";
  UVersionInfo v;
  c->getVersion(v);
  char buf[U_MAX_VERSION_STRING_LENGTH];
  u_versionToString(v, buf);
  return std::string("icu-") + buf + "-numeric-secondary";
}

std::string IcuVersion() {
  UVersionInfo v;
  u_getVersion(v);
  char buf[U_MAX_VERSION_STRING_LENGTH];
  u_versionToString(v, buf);
  return buf;
}

}  // namespace nubo::files
