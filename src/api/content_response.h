// One file's content as an HTTP response, for GET and HEAD on every
// surface (REST and WebDAV): validators (ETag = content hash,
// Last-Modified), RFC 9110 preconditions (304/412), single and multiple
// ranges (206, multipart/byteranges, 416), Content-Type, RFC 6266
// Content-Disposition (inline only for safe types; `?download` forces
// attachment). The body streams from the chunks. Thread-safe.
#pragma once

#include <cstdint>

#include "api/download_meter.h"
#include "files/files.h"
#include "http/request.h"
#include "http/response.h"

namespace nubo::api {

// `meter` (optional) is charged by a GET that delivers the file's first byte
// (the whole file, or ranges of which one starts at 0, suffix ranges
// included): getting all of a file takes byte 0, so every way to a copy
// pays once, while a player's later ranges, HEAD, 304 and 416 pay nothing.
http::Response ContentResponse(files::Files& files, http::Request& req,
                               const files::FileContent& fc, int64_t user,
                               const DownloadMeter* meter = nullptr);

}  // namespace nubo::api
