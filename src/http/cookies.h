// Cookies (RFC 6265): reading the Cookie header and writing Set-Cookie.
// Thread-safe (pure).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "http/headers.h"

namespace nubo::http {

// The value of cookie `name` from the request's Cookie header(s); nullopt
// when absent. Values are returned as sent (nubo's are URL-safe tokens).
std::optional<std::string> GetCookie(const Headers& headers, std::string_view name);

struct CookieOptions {
  std::string path = "/";
  int64_t max_age_s = -1;  // -1: session cookie; 0: delete
  bool http_only = true;
  bool secure = false;
  // Strict: never sent on cross-site requests, the first line of CSRF defence.
  std::string same_site = "Strict";
};

std::string SetCookieValue(std::string_view name, std::string_view value, const CookieOptions& o);

}  // namespace nubo::http
