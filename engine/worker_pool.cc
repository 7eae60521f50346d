#include "engine/worker_pool.h"

#include <algorithm>
#include <atomic>
#include <utility>

namespace partkv::engine {

// One ParallelFor. Its tasks are claimed by index; `done` counts those that returned, so once it
// reaches `count` no task runs and none will (a late worker claims an index past the end).
struct WorkerPool::Job {
  size_t count = 0;
  const std::function<void(size_t)>* task = nullptr;
  std::atomic<size_t> next{0};
  port::Mutex mu;
  port::CondVar finished{&mu};  // signalled when `done` reaches `count`
  size_t done PARTKV_GUARDED_BY(mu) = 0;
};

WorkerPool::WorkerPool(size_t max_workers, std::function<void()> on_start)
    : max_workers_(max_workers), on_start_(std::move(on_start)) {}

WorkerPool::~WorkerPool() {
  {
    port::MutexLock lock(&mu_);
    stopping_ = true;
  }
  wake_.SignalAll();
  // No ParallelFor runs (the contract), so no thread adds a worker any more.
  for (std::thread& t : workers_) t.join();
}

void WorkerPool::Work(Job& job) {
  size_t ran = 0;
  for (size_t i; (i = job.next.fetch_add(1)) < job.count; ++ran) (*job.task)(i);
  if (ran == 0) return;
  port::MutexLock lock(&job.mu);
  job.done += ran;
  if (job.done == job.count) job.finished.SignalAll();
}

void WorkerPool::ParallelFor(size_t count, size_t width, const std::function<void(size_t)>& task) {
  if (count == 0) return;
  const size_t helpers = std::min({count, width, max_workers_ + 1}) - 1;
  if (helpers == 0) {
    for (size_t i = 0; i < count; ++i) task(i);
    return;
  }
  auto job = std::make_shared<Job>();
  job->count = count;
  job->task = &task;
  {
    port::MutexLock lock(&mu_);
    for (size_t h = 0; h < helpers; ++h) queue_.push_back(job);
    // A worker for every entry waiting, up to the bound; the rest wait for a free one (or for
    // the caller, which takes every task nobody else has claimed).
    while (workers_.size() < std::min(max_workers_, queue_.size())) {
      workers_.emplace_back([this] { Run(); });
    }
  }
  if (helpers == 1) {
    wake_.Signal();
  } else {
    wake_.SignalAll();
  }
  Work(*job);
  {
    // Every task is claimed: the entries no worker took would only keep others waiting.
    port::MutexLock lock(&mu_);
    std::erase(queue_, job);
  }
  port::MutexLock lock(&job->mu);
  while (job->done != job->count) job->finished.Wait();
}

void WorkerPool::Run() {
  if (on_start_) on_start_();
  for (;;) {
    std::shared_ptr<Job> job;
    {
      port::MutexLock lock(&mu_);
      while (!stopping_ && queue_.empty()) wake_.Wait();
      if (queue_.empty()) return;  // stopping, nothing left
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    Work(*job);
  }
}

}  // namespace partkv::engine
