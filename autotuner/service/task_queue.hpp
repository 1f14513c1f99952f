// A bounded replacement for httplib's ThreadPool. httplib 0.11's ThreadPool queues accepted
// connections without limit and TaskQueue::enqueue cannot refuse (it returns void, and the task
// owns the socket). This queue has a fixed number of workers and a fixed number of waiting
// connections; past that, connections go to one shedding thread that answers 503 with
// Retry-After (the server sees is_shedding()), and when that small queue is full too the
// accepting thread waits, so the kernel's listen backlog applies back-pressure. Connections
// whose request is slow to arrive wait apart (park), behind every new one.
#pragma once

#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace occtune::service {

class BoundedTaskQueue final : public httplib::TaskQueue {
 public:
  BoundedTaskQueue(std::size_t workers, std::size_t capacity, std::size_t shed_capacity);
  ~BoundedTaskQueue() override;

  void enqueue(std::function<void()> fn) override;
  // Parks an admitted connection whose client is slow to send its request, never blocking:
  // workers take parked connections only when no new one waits, so slow clients cannot keep
  // fast ones waiting, and parked ones take no room from new ones. False when `capacity`
  // connections are parked already (the caller refuses this one).
  bool park(std::function<void()> fn);
  void shutdown() override;

  // Connections accepted and waiting for a worker; an idle keep-alive connection gives its
  // worker up when this is not zero.
  std::size_t waiting() const { return waiting_.load(std::memory_order_relaxed); }
  std::size_t busy() const { return busy_.load(std::memory_order_relaxed); }
  std::size_t workers() const { return workers_; }
  // True on the shedding thread while it serves a connection.
  static bool is_shedding();

 private:
  void work(bool shedder);

  const std::size_t workers_, capacity_, shed_capacity_;
  std::mutex mutex_;
  std::condition_variable job_ready_, shed_ready_, space_;
  std::deque<std::function<void()>> jobs_, shed_, parked_;
  bool stopping_ = false;
  std::atomic<std::size_t> waiting_{0}, busy_{0};
  std::vector<std::thread> threads_;
};

}  // namespace occtune::service
