// The bounded worker pool behind the HTTP server (see task_queue.hpp for why it exists).
#include "autotuner/service/task_queue.hpp"

#include <spdlog/spdlog.h>

#include <exception>

namespace occtune::service {
namespace {
thread_local bool tls_shedding = false;
}

bool BoundedTaskQueue::is_shedding() { return tls_shedding; }

BoundedTaskQueue::BoundedTaskQueue(std::size_t workers, std::size_t capacity,
                                   std::size_t shed_capacity)
    : workers_(workers == 0 ? 1 : workers),
      capacity_(capacity),
      shed_capacity_(shed_capacity == 0 ? 1 : shed_capacity) {
  threads_.reserve(workers_ + 1);
  for (std::size_t i = 0; i < workers_; ++i) threads_.emplace_back([this] { work(false); });
  threads_.emplace_back([this] { work(true); });
}

BoundedTaskQueue::~BoundedTaskQueue() { shutdown(); }

void BoundedTaskQueue::enqueue(std::function<void()> fn) {
  std::unique_lock lock(mutex_);
  // Both queues full: hold the accepting thread until one has room. New connections then wait
  // in the kernel's listen backlog, and past it the kernel drops their SYNs (clients retry).
  space_.wait(
      lock, [&] { return stopping_ || jobs_.size() < capacity_ || shed_.size() < shed_capacity_; });
  if (jobs_.size() < capacity_ || stopping_) {
    jobs_.push_back(std::move(fn));
    waiting_.store(jobs_.size(), std::memory_order_relaxed);
    lock.unlock();
    job_ready_.notify_one();
  } else {
    shed_.push_back(std::move(fn));
    lock.unlock();
    shed_ready_.notify_one();
  }
}

bool BoundedTaskQueue::park(std::function<void()> fn) {
  {
    std::lock_guard lock(mutex_);
    if (parked_.size() >= capacity_ && !stopping_) return false;
    parked_.push_back(std::move(fn));
  }
  job_ready_.notify_one();
  return true;
}

void BoundedTaskQueue::shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  job_ready_.notify_all();
  shed_ready_.notify_all();
  space_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void BoundedTaskQueue::work(bool shedder) {
  tls_shedding = shedder;
  auto& queue = shedder ? shed_ : jobs_;
  auto& ready = shedder ? shed_ready_ : job_ready_;
  for (;;) {
    std::function<void()> fn;
    {
      std::unique_lock lock(mutex_);
      ready.wait(lock,
                 [&] { return stopping_ || !queue.empty() || (!shedder && !parked_.empty()); });
      // A worker takes a parked connection only when no new one waits.
      auto& source = !shedder && queue.empty() && !parked_.empty() ? parked_ : queue;
      // Connections already accepted are still served (quickly: the server sees it stopping).
      if (source.empty()) return;
      fn = std::move(source.front());
      source.pop_front();
      if (!shedder) waiting_.store(jobs_.size(), std::memory_order_relaxed);
    }
    space_.notify_one();
    if (!shedder) busy_.fetch_add(1, std::memory_order_relaxed);
    try {
      fn();  // httplib's task: serve the connection, then close its socket
    } catch (const std::exception& e) {
      spdlog::error("a connection task failed: {}", e.what());
    } catch (...) {
      spdlog::error("a connection task failed");
    }
    if (!shedder) busy_.fetch_sub(1, std::memory_order_relaxed);
  }
}

}  // namespace occtune::service
