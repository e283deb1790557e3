// REST endpoints of media and search (docs/media-and-search.md):
// thumbnails of a file, full-text search with highlighted excerpts, and
// the administrators' view of the background job queue. Thin: the files
// domain authorizes (a thumbnail is readable exactly when its file is),
// media/ makes the images, the MetaStore holds the index.
#pragma once

#include "files/files.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "media/thumbnails.h"
#include "meta/meta_store.h"

namespace nubo::api {

struct MediaRoutesDeps {
  meta::MetaStore& meta;
  files::Files& files;
  media::Thumbnails& thumbnails;
};

void RegisterMediaRoutes(http::Router& router, MediaRoutesDeps deps);

// The thumbnail of a file the caller read (every surface answers with this):
// image/webp, a strong ETag per content and size, 304 on If-None-Match;
// cached for good when the request names the content (`?v=` with the
// file's ETag value), else revalidated. 404 when no preview can exist.
http::Response ThumbnailResponse(media::Thumbnails& thumbnails, const http::Request& req,
                                 const files::FileContent& fc, media::Variant v);

}  // namespace nubo::api
