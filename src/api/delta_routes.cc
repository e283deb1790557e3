// Delta sync (docs/versions-and-uploads.md), over files::UploadSessions:
//   GET    /api/v1/uploads/delta/params            the server's chunking
//   POST   /api/v1/uploads/delta                   declare a file as chunks;
//                                                  answers which are needed
//   GET    /api/v1/uploads/delta/{id}              still needed (resume)
//   PUT    /api/v1/uploads/delta/{id}/chunks/{hash}  one chunk's bytes
//   POST   /api/v1/uploads/delta/{id}/commit       the file (or its new version)
//   DELETE /api/v1/uploads/delta/{id}
//   GET    /api/v1/nodes/{id}/manifest             a file's chunks, to
//                                                  download only those missing
//                                                  (Range requests by chunk)
#include "api/delta_routes.h"

#include "api/json.h"
#include "api/node_json.h"
#include "api/route_options.h"
#include "content/fastcdc.h"
#include "files/files.h"
#include "files/upload_sessions.h"
#include "http/router.h"
#include "http/status_map.h"
#include "util/strings.h"

namespace nubo::api {

namespace {

using files::UploadSessions;
using http::Request;
using http::Response;

// A BLAKE3 digest as the API writes it (64 hex digits, either case).
std::optional<meta::Digest> ParseHash(std::string_view hex) {
  meta::Digest d{};
  if (!ParseDigestHex(AsciiLowerCopy(hex), d)) return std::nullopt;
  return d;
}

std::string StateJson(const files::DeltaState& s) {
  std::string j = "{\"id\":" + JsonQuote(s.session.public_id) +
                  ",\"size\":" + std::to_string(s.session.length.value_or(0)) +
                  ",\"received_bytes\":" + std::to_string(s.session.received_bytes) +
                  ",\"needed_bytes\":" + std::to_string(s.needed_bytes) + ",\"needed\":[";
  for (size_t i = 0; i < s.needed.size(); ++i) {
    if (i) j += ",";
    j += std::to_string(s.needed[i]);
  }
  j += "],\"expires\":" + std::to_string(s.session.expires_at_ms) + "}\n";
  return j;
}

// Plans are long (one entry per chunk: 4,096 for 1 GiB at the average
// size): 8 MiB of JSON covers files of tens of GiB.
constexpr uint64_t kMaxPlanBody = 8 << 20;

}  // namespace

void RegisterDeltaRoutes(http::Router& router, files::Files& files, UploadSessions& uploads) {
  files::Files* f = &files;
  UploadSessions* u = &uploads;
  constexpr http::RouteOptions kRead = PlainRoute(http::Access::kUser);

  router.Add(
      "GET", "/api/v1/uploads/delta/params",
      [](Request&) {
        const content::ChunkerParams p;
        return Response::Json(
            200, "{\"chunker\":\"fastcdc-nubo-1\",\"hash\":\"blake3\",\"min_size\":" +
                     std::to_string(p.min_size) + ",\"avg_size\":" + std::to_string(p.avg_size) +
                     ",\"max_size\":" + std::to_string(p.max_size) +
                     ",\"max_chunk\":" + std::to_string(files::kMaxPlanChunk) + "}\n");
      },
      kRead);

  router.Add(
      "POST", "/api/v1/uploads/delta",
      [f, u](Request& req) {
        auto body = ParseObject(req.body, {{"parent_id", JsonType::kString},
                                           {"name", JsonType::kString},
                                           {"conflict", JsonType::kString},
                                           {"if_match", JsonType::kString},
                                           {"modified", JsonType::kInt},
                                           {"size", JsonType::kInt},
                                           {"hash", JsonType::kString},
                                           {"chunks", JsonType::kStringArray}});
        if (!body.ok()) return http::ErrorResponse(body.status());
        if (!body->Get("name") || !body->Get("size") || !body->Get("hash")) {
          return http::ErrorResponse(Status::InvalidArgument("name, size and hash are required"));
        }
        auto whole = ParseHash(*body->Get("hash"));
        if (!whole) {
          return http::ErrorResponse(
              Status::InvalidArgument("hash must be 64 hex digits (BLAKE3)"));
        }
        std::vector<files::PlanChunk> plan;
        if (auto it = body->arrays.find("chunks"); it != body->arrays.end()) {
          plan.reserve(it->second.size());
          for (const std::string& e : it->second) {
            const size_t colon = e.find(':');
            auto h = colon == 64 ? ParseHash(std::string_view(e).substr(0, 64)) : std::nullopt;
            auto n = h ? ParseUint64(std::string_view(e).substr(65)) : std::nullopt;
            if (!n || *n > files::kMaxPlanChunk) {
              return http::ErrorResponse(
                  Status::InvalidArgument("each chunk is \"<64 hex digits of BLAKE3>:<size>\""));
            }
            plan.push_back({*h, static_cast<uint32_t>(*n)});
          }
        }
        files::SessionSpec spec;
        if (auto p = body->Get("parent_id")) {
          spec.target.parent_id = *p;
        } else {
          auto d = f->PersonalDrive(*req.principal);
          if (!d.ok()) return http::ErrorResponse(d.status());
          spec.target.parent_id = d->root_id;
        }
        spec.target.name = *body->Get("name");
        auto conflict = files::ParseConflict(body->Get("conflict").value_or(""));
        if (!conflict.ok()) return http::ErrorResponse(conflict.status());
        spec.target.conflict = *conflict;
        spec.target.if_match = body->Get("if_match");
        if (auto m = body->Get("modified"))
          spec.target.mtime_ms = static_cast<int64_t>(*ParseUint64(*m));
        spec.target.checksum = "blake3:" + AsciiLowerCopy(*body->Get("hash"));
        spec.length = *ParseUint64(*body->Get("size"));
        auto state = u->CreateDelta(*req.principal, std::move(spec), plan);
        if (!state.ok()) return http::ErrorResponse(state.status());
        Response r = Response::Json(201, StateJson(*state));
        r.headers.Set("Location", "/api/v1/uploads/delta/" + state->session.public_id);
        return r;
      },
      JsonRoute(http::Access::kUser, kMaxPlanBody));

  router.Add(
      "GET", "/api/v1/uploads/delta/{id}",
      [u](Request& req) {
        auto state = u->DeltaStatus(*req.principal, req.Param("id"));
        if (!state.ok()) return http::ErrorResponse(state.status());
        return Response::Json(200, StateJson(*state));
      },
      kRead);

  router.Add("PUT", "/api/v1/uploads/delta/{id}/chunks/{hash}",
             [u](Request& req) {
               auto hash = ParseHash(req.Param("hash"));
               if (!hash)
                 return http::ErrorResponse(Status::NotFound("the upload declares no such chunk"));
               Status st = u->PutDeltaChunk(*req.principal, req.Param("id"), *hash, req.body);
               return st.ok() ? Response::Empty(204) : http::ErrorResponse(st);
             },
             {.access = http::Access::kUser,
              .body = http::BodyPolicy::kBuffered,
              .max_body = files::kMaxPlanChunk,
              .blocking = true});

  router.Add(
      "POST", "/api/v1/uploads/delta/{id}/commit",
      [u](Request& req) {
        auto before = u->DeltaStatus(*req.principal, req.Param("id"));
        if (!before.ok()) return http::ErrorResponse(before.status());
        auto done = u->Complete(*req.principal, req.Param("id"));
        if (!done.ok()) return http::ErrorResponse(done.status());
        std::string j = NodeJson(done->node);
        j.pop_back();
        j += ",\"received_bytes\":" + std::to_string(before->session.received_bytes) + "}\n";
        Response r = Response::Json(done->created ? 201 : 200, j);
        r.headers.Set("ETag", files::NodeETag(done->node));
        return r;
      },
      JsonRoute(http::Access::kUser));

  router.Add(
      "DELETE", "/api/v1/uploads/delta/{id}",
      [u](Request& req) {
        auto state = u->DeltaStatus(*req.principal, req.Param("id"));
        if (!state.ok()) return http::ErrorResponse(state.status());
        Status st = u->Cancel(*req.principal, req.Param("id"));
        return st.ok() ? Response::Empty(204) : http::ErrorResponse(st);
      },
      kRead);

  router.Add(
      "GET", "/api/v1/nodes/{id}/manifest",
      [f](Request& req) {
        auto fc = f->OpenContent(*req.principal, req.Param("id"));
        if (!fc.ok()) return http::ErrorResponse(fc.status());
        std::string j = "{\"id\":" + JsonQuote(fc->node.public_id) +
                        ",\"size\":" + std::to_string(fc->node.size) +
                        ",\"hash\":" + JsonQuote(files::HashHex(fc->node.hash)) +
                        ",\"etag\":" + JsonQuote(files::NodeETag(fc->node)) + ",\"chunks\":[";
        j.reserve(j.size() + fc->chunks.size() * 100);
        for (size_t i = 0; i < fc->chunks.size(); ++i) {
          const auto& c = fc->chunks[i];
          if (i) j += ",";
          j += "{\"hash\":\"" + files::HashHex(c.hash) +
               "\",\"offset\":" + std::to_string(c.offset) + ",\"size\":" + std::to_string(c.size) +
               "}";
        }
        Response r = Response::Json(200, j + "]}\n");
        r.headers.Set("ETag", files::NodeETag(fc->node));
        return r;
      },
      kRead);
}

}  // namespace nubo::api
