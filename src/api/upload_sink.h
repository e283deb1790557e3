// A request-body sink that streams into one files::Upload and keeps the
// outcome for the handler that answers (REST upload, WebDAV PUT).
// Not thread-safe; one per request.
#pragma once

#include <memory>

#include "files/files.h"
#include "http/body.h"

namespace nubo::api {

class UploadSink final : public http::BodySink {
 public:
  explicit UploadSink(std::unique_ptr<files::Upload> up) : up_(std::move(up)) {}
  Status Write(const char* data, size_t len) override { return up_->Write(data, len); }
  Status Finish() override {
    result_ = up_->Finish();
    return result_.status();
  }
  void Abort() override { up_->Abort(); }
  // The new or replaced node once Finish succeeded; its error otherwise.
  const Result<files::UploadResult>& result() const { return result_; }

 private:
  std::unique_ptr<files::Upload> up_;
  Result<files::UploadResult> result_ = Status::Internal("upload not finished");
};

}  // namespace nubo::api
