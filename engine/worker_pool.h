// A standing pool of worker threads for calls that fan out: ParallelFor runs `count` tasks, at
// most `width` at once, on the calling thread and up to width - 1 of the pool's workers. The
// caller always takes part, so a ParallelFor never waits for a worker to become free (calls from
// several threads, or nested inside a task, still finish); a busy pool only means less
// parallelism. Workers start on first need, up to `max_workers`, and stop with the pool; each
// worker runs `on_start` first, if given (the local engine's scan pool turns RocksDB's
// performance counters off there: engine/local/perf_counters.h).
//
// Thread-safety: ParallelFor may be called from any number of threads at once.

#ifndef PARTKV_ENGINE_WORKER_POOL_H_
#define PARTKV_ENGINE_WORKER_POOL_H_

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"

namespace partkv::engine {

class WorkerPool {
 public:
  explicit WorkerPool(size_t max_workers, std::function<void()> on_start = {});
  ~WorkerPool();  // waits for the tasks in progress; no ParallelFor may be running
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Calls task(0) .. task(count - 1), each once, at most `width` of them at once; returns when
  // all have returned. `task` must not throw.
  void ParallelFor(size_t count, size_t width, const std::function<void(size_t)>& task)
      PARTKV_EXCLUDES(mu_);

 private:
  struct Job;
  void Run() PARTKV_EXCLUDES(mu_);
  static void Work(Job& job);

  const size_t max_workers_;
  const std::function<void()> on_start_;
  // Guards the queue and the workers. A job's own mutex (Job::mu) is never taken with it held,
  // nor it with a job's.
  port::Mutex mu_;
  port::CondVar wake_{&mu_};  // to the workers: an entry is queued, or the pool stops
  // One entry per worker a job asks for.
  std::deque<std::shared_ptr<Job>> queue_ PARTKV_GUARDED_BY(mu_);
  std::vector<std::thread> workers_ PARTKV_GUARDED_BY(mu_);
  bool stopping_ PARTKV_GUARDED_BY(mu_) = false;
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_WORKER_POOL_H_
