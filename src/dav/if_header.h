// RFC 4918 §10.4 If header: parsing, evaluation (§10.4.3-10.4.4) and the
// lock tokens a request submits (§10.4.1, §7.5). Thread-safety: pure
// functions over plain values.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace nubo::dav {

// The state token no resource ever has (§10.4.8): "(Not <DAV:no-lock>)" is
// always true, "(<DAV:no-lock>)" always false.
inline constexpr std::string_view kNoLockToken = "DAV:no-lock";

struct IfCondition {
  bool negated = false;  // preceded by "Not"
  bool is_etag = false;
  // A state token as sent inside <> ("urn:uuid:…", "opaquelocktoken:…",
  // "DAV:no-lock"), or an entity-tag as sent inside [] ("\"abc\"", "W/\"x\"").
  std::string value;
};

// §10.4.3: a conjunction of conditions.
struct IfList {
  std::vector<IfCondition> conditions;
};

// A Tagged-list (resource set: the tag exactly as sent inside <>, an
// absolute URI or absolute path, still percent-encoded) or the No-tag-lists
// of an untagged header (resource unset). Its lists form a disjunction.
struct IfTagged {
  std::optional<std::string> resource;
  std::vector<IfList> lists;
};

struct IfHeader {
  // Untagged: exactly one group without a resource. Tagged: one group per
  // Resource-Tag in the order sent (a repeated tag makes another group).
  std::vector<IfTagged> groups;
  bool tagged = false;
};

// Parses the field value (§10.4.2 grammar, whitespace allowed between
// tokens, "Not" case-insensitive as ABNF literals are). InvalidArgument
// (→ 400) on anything malformed: empty, an empty list "()", a state token
// that is not an absolute URI, a bad entity-tag, a Resource-Tag that is
// neither an absolute URI nor an absolute path, or tagged and untagged lists
// mixed.
Result<IfHeader> ParseIfHeader(std::string_view value);

// What the evaluator needs to know about one resource.
struct IfResourceState {
  bool exists = false;  // false: unmapped URL (§10.4.4: has no etag and no tokens)
  std::string etag;     // full entity-tag with quotes, "" when it has none
  // Tokens of every lock whose scope covers the resource, including
  // depth-infinity locks on ancestors (§10.4.4 "anywhere in the scope").
  std::vector<std::string> lock_tokens;
};

// §10.4.3: true when the header as a whole is true, i.e. some group has some
// list whose every condition holds for that group's resource. The resource
// of the untagged group is `request_path`; a tagged group's is its tag.
// `resolve` is called at most once per distinct resource (results are
// cached for this call) with either `request_path` or a tag exactly as sent,
// so it must strip scheme/host and percent-decode; a tag on another server
// or an unparsable one should resolve to a state with exists = false.
// Entity-tags compare strongly (RFC 9110 §8.8.3.2: a weak tag never matches);
// state tokens compare exactly; "DAV:no-lock" never matches.
// False means 412 Precondition Failed.
bool EvaluateIf(const IfHeader& h, std::string_view request_path,
                const std::function<IfResourceState(std::string_view)>& resolve);

// Every state token the header names without "Not" (except DAV:no-lock), in
// order, without duplicates. §10.4.1/§7.5: a lock token counts as submitted
// when it appears in the If header, whether or not its list evaluated true;
// the caller still checks that the token belongs to a lock on the resource.
std::vector<std::string> SubmittedLockTokens(const IfHeader& h);

}  // namespace nubo::dav
