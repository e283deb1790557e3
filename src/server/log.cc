#include "server/log.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <mutex>

namespace nubo::server {

namespace {

constexpr size_t kFlushBytes = 32 << 10;

class BufferedStderrSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  ~BufferedStderrSink() override { WriteOut(); }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    buf_.append(formatted.data(), formatted.size());
    if (buf_.size() >= kFlushBytes || msg.level >= spdlog::level::warn) WriteOut();
  }
  void flush_() override { WriteOut(); }

 private:
  void WriteOut() {
    size_t off = 0;
    while (off < buf_.size()) {
      ssize_t n = ::write(STDERR_FILENO, buf_.data() + off, buf_.size() - off);
      if (n < 0) {
        if (errno == EINTR) continue;
        break;  // nowhere left to report a logging failure
      }
      off += static_cast<size_t>(n);
    }
    buf_.clear();
  }

  std::string buf_;
};

}  // namespace

void InitLogging(const std::string& level) {
  auto logger = std::make_shared<spdlog::logger>("nubo", std::make_shared<BufferedStderrSink>());
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %L %v");
  spdlog::set_level(spdlog::level::from_str(level));
  spdlog::flush_every(std::chrono::seconds(1));
}

void FlushLogs() { spdlog::default_logger()->flush(); }

}  // namespace nubo::server
