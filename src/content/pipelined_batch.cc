#include "content/pipelined_batch.h"

namespace nubo::content {

PipelinedBatch::PipelinedBatch(std::unique_ptr<blob::ChunkBatch> inner)
    : inner_(std::move(inner)) {}

PipelinedBatch::~PipelinedBatch() {
  if (writer_.joinable()) {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    writer_.join();
  }
}

Status PipelinedBatch::Add(const blob::Digest& hash, std::string_view data) {
  if (!writer_.joinable()) {
    if (data.size() <= inline_left_) {
      inline_left_ -= data.size();
      return inner_->Add(hash, data);
    }
    writer_ = std::thread([this] { Run(); });
  }
  std::unique_lock lock(mu_);
  // Wait for room; a chunk larger than the whole queue still goes in alone.
  cv_.wait(lock, [&] {
    return !error_.ok() || queued_bytes_ == 0 || queued_bytes_ + data.size() <= kQueueBytes;
  });
  if (!error_.ok()) return error_;
  Item item{hash, {}};
  if (!spare_.empty()) {
    item.bytes = std::move(spare_.back());
    spare_.pop_back();
  }
  item.bytes.assign(data.data(), data.size());
  queued_bytes_ += data.size();
  queue_.push_back(std::move(item));
  lock.unlock();
  cv_.notify_all();
  return Status::Ok();
}

void PipelinedBatch::Run() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Item item = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    const bool failed = !error_.ok();  // after an error, queued chunks are dropped
    lock.unlock();
    Status st = failed        ? Status::Ok()
                : item.commit ? inner_->Commit()
                              : inner_->Add(item.hash, item.bytes);
    lock.lock();
    busy_ = false;
    queued_bytes_ -= item.bytes.size();
    if (!st.ok() && error_.ok()) error_ = st;
    if (spare_.size() < 4) spare_.push_back(std::move(item.bytes));
    cv_.notify_all();
  }
}

Status PipelinedBatch::Drain() const {
  if (!writer_.joinable()) return Status::Ok();
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return queue_.empty() && !busy_; });
  return error_;
}

Status PipelinedBatch::Commit() {
  NUBO_RETURN_IF_ERROR(Drain());
  return inner_->Commit();
}

Status PipelinedBatch::CommitSoon() {
  if (!writer_.joinable()) return inner_->Commit();
  {
    std::lock_guard lock(mu_);
    if (!error_.ok()) return error_;
    Item marker;
    marker.commit = true;
    queue_.push_back(std::move(marker));
  }
  cv_.notify_all();
  return Status::Ok();
}

std::vector<blob::Digest> PipelinedBatch::Published() const {
  (void)Drain();
  return inner_->Published();
}

}  // namespace nubo::content
