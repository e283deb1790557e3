#include "api/media_routes.h"

#include <cstdio>
#include <cstdlib>

#include "api/json.h"
#include "api/node_json.h"
#include "api/route_options.h"
#include "http/conditional.h"
#include "http/disposition.h"
#include "http/file_source.h"
#include "http/status_map.h"
#include "search/query.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::api {

namespace {

using api::JsonType;
using http::Request;
using http::Response;

const auth::Principal& Who(const Request& req) { return *req.principal; }

Result<size_t> Limit(const Request& req, size_t fallback, size_t max = 100) {
  auto v = req.Query("limit");
  if (!v) return fallback;
  auto n = ParseUint64(*v);
  if (!n || *n < 1 || *n > max) {
    return Status::InvalidArgument("limit must be 1.." + std::to_string(max));
  }
  return static_cast<size_t>(*n);
}

std::string SnippetJson(const std::string& snippet) {
  std::string j = "[";
  bool first = true;
  for (const search::Segment& s : search::SplitSnippet(snippet)) {
    if (!first) j += ",";
    first = false;
    j += "{\"text\":" + JsonQuote(s.text) + ",\"match\":" + (s.match ? "true" : "false") + "}";
  }
  return j + "]";
}

std::string Coord(const std::optional<double>& v) {
  if (!v) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.7f", *v);
  return buf;
}

std::string PhotoJson(const meta::PhotoRow& p, const meta::NodeRow& n) {
  return "{\"node\":" + NodeJson(n) + ",\"taken_at\":" + std::to_string(p.taken_at_ms) +
         ",\"taken_exact\":" + (p.taken_exact ? "true" : "false") +
         ",\"width\":" + std::to_string(p.width) + ",\"height\":" + std::to_string(p.height) +
         ",\"orientation\":" + std::to_string(p.orientation) +
         ",\"camera\":" + JsonQuote(p.camera) + ",\"lat\":" + Coord(p.lat) +
         ",\"lon\":" + Coord(p.lon) + "}";
}

std::string TrackJson(const meta::TrackRow& t, const meta::NodeRow& n) {
  return "{\"node\":" + NodeJson(n) + ",\"title\":" + JsonQuote(t.title) +
         ",\"artist\":" + JsonQuote(t.artist) + ",\"album_artist\":" + JsonQuote(t.album_artist) +
         ",\"album\":" + JsonQuote(t.album) + ",\"artist_key\":" + JsonQuote(t.artist_key) +
         ",\"album_key\":" + JsonQuote(t.album_key) + ",\"track\":" + std::to_string(t.track_no) +
         ",\"disc\":" + std::to_string(t.disc_no) + ",\"year\":" + std::to_string(t.year) +
         ",\"genre\":" + JsonQuote(t.genre) + ",\"duration_ms\":" + std::to_string(t.duration_ms) +
         "}";
}

std::string NextCursor(const std::string& c) {
  return ",\"next_cursor\":" + (c.empty() ? std::string("null") : JsonQuote(c));
}

std::string PlaylistJson(const meta::PlaylistRow& p) {
  return "{\"id\":" + JsonQuote(p.public_id) + ",\"name\":" + JsonQuote(p.name) +
         ",\"items\":" + std::to_string(p.items) +
         ",\"created\":" + std::to_string(p.created_at_ms) +
         ",\"modified\":" + std::to_string(p.updated_at_ms) + "}";
}

std::string PlaylistWithItemsJson(const files::Files::Playlist& pl, std::string_view extra = "") {
  meta::PlaylistRow row = pl.row;
  row.items = static_cast<int64_t>(pl.items.size());
  std::string j = PlaylistJson(row);
  j.pop_back();
  j += ",\"tracks\":[";
  for (size_t i = 0; i < pl.items.size(); ++i) {
    if (i) j += ",";
    j += TrackJson(pl.items[i].track, pl.items[i].node);
  }
  return j + "]" + std::string(extra) + "}\n";
}

std::optional<std::string> OptQuery(const Request& req, const char* key) {
  auto v = req.Query(key);
  return v ? std::optional<std::string>(std::string(*v)) : std::nullopt;
}

}  // namespace

Response ThumbnailResponse(media::Thumbnails& thumbnails, const Request& req,
                           const files::FileContent& fc, media::Variant v) {
  auto path = thumbnails.Get(fc.node, fc.chunks, v);
  if (!path.ok()) return http::ErrorResponse(path.status());
  auto source = http::FileSource::Open(*path);
  if (!source) return http::ErrorResponse(Status::NotFound("no preview for this file"));
  const std::string hash = files::HashHex(fc.node.hash).substr(0, 32);
  http::Validators val;
  val.etag = "\"" + hash + "-" + std::to_string(static_cast<int>(v)) + "\"";
  Response r;
  r.headers.Set("ETag", *val.etag);
  // The URL names this content: it may be kept for good. Otherwise the
  // same URL shows new content after an upload, so it is revalidated.
  const bool named = req.Query("v").value_or("") == hash;
  r.headers.Set("Cache-Control",
                named ? "private, max-age=31536000, immutable" : "private, no-cache");
  r.headers.Set("X-Content-Type-Options", "nosniff");
  if (http::EvaluatePreconditions(req.method, req.headers, val) ==
      http::Precondition::kNotModified) {
    r.status = 304;
    return r;
  }
  r.status = 200;
  r.headers.Set("Content-Type", "image/webp");
  r.source = std::move(source);
  return r;
}

void RegisterMediaRoutes(http::Router& router, MediaRoutesDeps deps) {
  files::Files* f = &deps.files;
  media::Thumbnails* thumbs = &deps.thumbnails;
  meta::MetaStore* meta = &deps.meta;
  constexpr http::RouteOptions kRead = PlainRoute(http::Access::kUser);

  // The same for a public link's bearer (its grid view): what the link
  // lets it read, as its role says (a file drop reads nothing).
  auto thumbnail = [f, thumbs](Request& req) {
    std::string size = req.Query("size").value_or("small");
    media::Variant v;
    if (size == "small") {
      v = media::Variant::kSmall;
    } else if (size == "large") {
      v = media::Variant::kLarge;
    } else {
      return http::ErrorResponse(Status::InvalidArgument("size must be small or large"));
    }
    NUBO_OR_ERROR(fc, f->OpenContent(Who(req), req.Param("id")));
    return ThumbnailResponse(*thumbs, req, fc, v);
  };
  router.Add("GET", "/api/v1/nodes/{id}/thumbnail", thumbnail, kRead);
  router.Add("GET", "/api/v1/public/{token}/nodes/{id}/thumbnail", thumbnail,
             PlainRoute(http::Access::kLink));

  router.Add(
      "GET", "/api/v1/search/content",
      [f](Request& req) {
        NUBO_OR_ERROR(limit, Limit(req, 20));
        NUBO_OR_ERROR(page, f->SearchContent(Who(req), req.Query("q").value_or(""),
                                             req.Query("cursor").value_or(""), limit));
        std::string j = "{\"items\":[";
        for (size_t i = 0; i < page.items.size(); ++i) {
          if (i) j += ",";
          j += "{\"node\":" + NodeJson(page.items[i].node) +
               ",\"snippet\":" + SnippetJson(page.items[i].snippet) + "}";
        }
        j += "],\"next_cursor\":" +
             (page.next_cursor.empty() ? std::string("null") : JsonQuote(page.next_cursor)) + "}\n";
        return Response::Json(200, std::move(j));
      },
      kRead);

  router.Add(
      "GET", "/api/v1/photos",
      [f](Request& req) {
        NUBO_OR_ERROR(limit, Limit(req, 100, 500));
        NUBO_OR_ERROR(page, f->Photos(Who(req), req.Query("cursor").value_or(""), limit));
        std::string j = "{\"items\":[";
        for (size_t i = 0; i < page.items.size(); ++i) {
          if (i) j += ",";
          j += PhotoJson(page.items[i].photo, page.items[i].node);
        }
        j += "],\"next_cursor\":" +
             (page.next_cursor.empty() ? std::string("null") : JsonQuote(page.next_cursor)) + "}\n";
        return Response::Json(200, std::move(j));
      },
      kRead);

  router.Add(
      "GET", "/api/v1/photos/months",
      [f](Request& req) {
        NUBO_OR_ERROR(months, f->PhotoMonths(Who(req)));
        std::string j = "{\"months\":[";
        for (size_t i = 0; i < months.size(); ++i) {
          if (i) j += ",";
          j += "{\"month\":" + JsonQuote(months[i].first) +
               ",\"count\":" + std::to_string(months[i].second) + "}";
        }
        return Response::Json(200, j + "]}\n");
      },
      kRead);

  router.Add(
      "GET", "/api/v1/photos/places",
      [f](Request& req) {
        double cell = 1.0;
        if (auto v = req.Query("cell")) {
          std::string s(*v);
          char* end = nullptr;
          cell = std::strtod(s.c_str(), &end);
          if (s.empty() || !end || *end != '\0') cell = -1;
        }
        NUBO_OR_ERROR(places, f->PhotoPlaces(Who(req), cell));
        std::string j = "{\"places\":[";
        for (size_t i = 0; i < places.size(); ++i) {
          if (i) j += ",";
          j += "{\"lat\":" + Coord(places[i].lat) + ",\"lon\":" + Coord(places[i].lon) +
               ",\"count\":" + std::to_string(places[i].count) +
               ",\"cover\":" + NodeJson(places[i].cover) + "}";
        }
        return Response::Json(200, j + "]}\n");
      },
      kRead);

  // ---- Music ----
  router.Add(
      "GET", "/api/v1/music/artists",
      [f](Request& req) {
        NUBO_OR_ERROR(limit, Limit(req, 100, 500));
        NUBO_OR_ERROR(page, f->Artists(Who(req), req.Query("cursor").value_or(""), limit));
        std::string j = "{\"items\":[";
        for (size_t i = 0; i < page.items.size(); ++i) {
          const meta::ArtistRow& a = page.items[i];
          if (i) j += ",";
          j += "{\"key\":" + JsonQuote(a.key) + ",\"name\":" + JsonQuote(a.name) +
               ",\"albums\":" + std::to_string(a.albums) +
               ",\"tracks\":" + std::to_string(a.tracks) + "}";
        }
        return Response::Json(200, j + "]" + NextCursor(page.next_cursor) + "}\n");
      },
      kRead);
  router.Add(
      "GET", "/api/v1/music/albums",
      [f](Request& req) {
        NUBO_OR_ERROR(limit, Limit(req, 100, 500));
        NUBO_OR_ERROR(page, f->Albums(Who(req), OptQuery(req, "artist"),
                                      req.Query("cursor").value_or(""), limit));
        std::string j = "{\"items\":[";
        for (size_t i = 0; i < page.items.size(); ++i) {
          const meta::AlbumRow& a = page.items[i].album;
          if (i) j += ",";
          j += "{\"artist_key\":" + JsonQuote(a.artist_key) + ",\"artist\":" + JsonQuote(a.artist) +
               ",\"key\":" + JsonQuote(a.key) + ",\"name\":" + JsonQuote(a.name) +
               ",\"year\":" + std::to_string(a.year) + ",\"tracks\":" + std::to_string(a.tracks) +
               ",\"duration_ms\":" + std::to_string(a.duration_ms) + ",\"first_track\":" +
               (page.items[i].first.public_id.empty() ? std::string("null")
                                                      : NodeJson(page.items[i].first)) +
               ",\"cover\":" +
               (page.items[i].cover ? NodeJson(*page.items[i].cover) : std::string("null")) + "}";
        }
        return Response::Json(200, j + "]" + NextCursor(page.next_cursor) + "}\n");
      },
      kRead);
  router.Add(
      "GET", "/api/v1/music/tracks",
      [f](Request& req) {
        NUBO_OR_ERROR(limit, Limit(req, 100, 500));
        NUBO_OR_ERROR(page, f->Tracks(Who(req), OptQuery(req, "artist"), OptQuery(req, "album"),
                                      req.Query("cursor").value_or(""), limit));
        std::string j = "{\"items\":[";
        for (size_t i = 0; i < page.items.size(); ++i) {
          if (i) j += ",";
          j += TrackJson(page.items[i].track, page.items[i].node);
        }
        return Response::Json(200, j + "]" + NextCursor(page.next_cursor) + "}\n");
      },
      kRead);

  // ---- Playlists (the caller's own) ----
  constexpr http::RouteOptions kJson = JsonRoute(http::Access::kUser);
  router.Add(
      "GET", "/api/v1/playlists",
      [f](Request& req) {
        NUBO_OR_ERROR(lists, f->Playlists(Who(req)));
        std::string j = "{\"playlists\":[";
        for (size_t i = 0; i < lists.size(); ++i) j += (i ? "," : "") + PlaylistJson(lists[i]);
        return Response::Json(200, j + "]}\n");
      },
      kRead);
  router.Add(
      "POST", "/api/v1/playlists",
      [f](Request& req) {
        NUBO_OR_ERROR(body, ParseStringObject(req.body, {"name"}));
        NUBO_OR_ERROR(row, f->CreatePlaylist(Who(req), body.Get("name").value_or("")));
        return Response::Json(201, PlaylistJson(row) + "\n");
      },
      kJson);
  router.Add(
      "GET", "/api/v1/playlists/{id}",
      [f](Request& req) {
        NUBO_OR_ERROR(pl, f->GetPlaylist(Who(req), req.Param("id")));
        return Response::Json(200, PlaylistWithItemsJson(pl));
      },
      kRead);
  router.Add(
      "PATCH", "/api/v1/playlists/{id}",
      [f](Request& req) {
        NUBO_OR_ERROR(body, ParseStringObject(req.body, {"name"}));
        NUBO_OR_ERROR(row,
                      f->RenamePlaylist(Who(req), req.Param("id"), body.Get("name").value_or("")));
        return Response::Json(200, PlaylistJson(row) + "\n");
      },
      kJson);
  router.Add(
      "DELETE", "/api/v1/playlists/{id}",
      [f](Request& req) {
        Status st = f->DeletePlaylist(Who(req), req.Param("id"));
        return st.ok() ? Response::Empty(204) : http::ErrorResponse(st);
      },
      kRead);
  router.Add(
      "PUT", "/api/v1/playlists/{id}/items",
      [f](Request& req) {
        NUBO_OR_ERROR(body, ParseObject(req.body, {{"items", JsonType::kStringArray}}));
        auto it = body.arrays.find("items");
        if (it == body.arrays.end()) {
          return http::ErrorResponse(Status::InvalidArgument("items is required"));
        }
        NUBO_OR_ERROR(pl, f->SetPlaylistItems(Who(req), req.Param("id"), it->second));
        return Response::Json(200, PlaylistWithItemsJson(pl));
      },
      JsonRoute(http::Access::kUser, 1 << 20));
  router.Add(
      "GET", "/api/v1/playlists/{id}/m3u8",
      [f](Request& req) {
        NUBO_OR_ERROR(pl, f->GetPlaylist(Who(req), req.Param("id")));
        NUBO_OR_ERROR(text, f->ExportPlaylist(Who(req), req.Param("id")));
        Response r = Response::Text(200, std::move(text), "audio/x-mpegurl; charset=utf-8");
        // Saved under the playlist's own name (RFC 6266, UTF-8 names too).
        r.headers.Set("Content-Disposition", http::ContentDisposition(true, pl.row.name + ".m3u8"));
        return r;
      },
      kRead);
  http::RouteOptions import_opts = PlainRoute(http::Access::kUser);
  import_opts.body = http::BodyPolicy::kBuffered;
  import_opts.max_body = 4 << 20;
  router.Add(
      "POST", "/api/v1/playlists/import",
      [f](Request& req) {
        NUBO_OR_ERROR(imported,
                      f->ImportPlaylist(Who(req), req.Query("name").value_or(""), req.body));
        return Response::Json(
            201, PlaylistWithItemsJson(imported.playlist,
                                       ",\"missing\":" + std::to_string(imported.missing)));
      },
      import_opts);

  router.Add(
      "GET", "/api/v1/admin/jobs",
      [meta](Request& req) {
        meta::JobCounts counts;
        std::vector<meta::JobRow> failing;
        Status st = meta->Read([&](meta::ReadTxn& t) -> Status {
          NUBO_ASSIGN_OR_RETURN(counts, t.CountJobs(UnixMillis()));
          NUBO_ASSIGN_OR_RETURN(failing, t.ListRetryingJobs(50));
          return Status::Ok();
        });
        if (!st.ok()) return http::ErrorResponse(st);
        std::string j = "{\"due\":" + std::to_string(counts.due) +
                        ",\"running\":" + std::to_string(counts.running) +
                        ",\"retrying\":" + std::to_string(counts.retrying) +
                        ",\"done\":" + std::to_string(counts.done) +
                        ",\"failed\":" + std::to_string(counts.failed) + ",\"failing\":[";
        for (size_t i = 0; i < failing.size(); ++i) {
          const meta::JobRow& r = failing[i];
          if (i) j += ",";
          const bool parked = r.run_at_ms >= INT64_MAX / 4;
          j += "{\"kind\":" + JsonQuote(r.kind) + ",\"attempts\":" + std::to_string(r.attempts) +
               ",\"error\":" + JsonQuote(r.last_error) +
               ",\"next_attempt\":" + (parked ? std::string("null") : std::to_string(r.run_at_ms)) +
               "}";
        }
        return Response::Json(200, j + "]}\n");
      },
      PlainRoute(http::Access::kAdmin));
}

}  // namespace nubo::api
