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

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace partkv::engine {

class WorkerPool {
 public:
  explicit WorkerPool(size_t max_workers, std::function<void()> on_start = {});
  ~WorkerPool();  // waits for the tasks in progress; no ParallelFor may be running
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Calls task(0) .. task(count - 1), each once, at most `width` of them at once; returns when
  // all have returned. `task` must not throw.
  void ParallelFor(size_t count, size_t width, const std::function<void(size_t)>& task);

 private:
  struct Job;
  void Run();
  static void Work(Job& job);

  const size_t max_workers_;
  const std::function<void()> on_start_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> queue_;  // one entry per worker a job asks for
  std::vector<std::thread> workers_;
  bool stopping_ = false;
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_WORKER_POOL_H_
