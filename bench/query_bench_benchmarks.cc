#include "bench/query_bench_benchmarks.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "engine/key_codec.h"
#include "fmt/format.h"
#include "rocksdb/perf_context.h"
#include "rocksdb/perf_level.h"

namespace partkv::bench::query_bench {
namespace {

// Pages through `q` to the end; returns the entities seen (or an error).
Result<uint64_t> PageThrough(const Table& table, Query q, uint64_t* touched) {
  uint64_t rows = 0;
  for (;;) {
    PARTKV_ASSIGN_OR_RETURN(Page page, table.QueryEntities(q));
    rows += page.entities.size();
    for (const Entity& e : page.entities) *touched += e.property_count() + e.row_key().size();
    if (!page.has_more()) return rows;
    q.continuation = std::move(page.continuation);
  }
}

// The same through one reused Page (Table::QueryEntities(query, &page)): its entities keep their
// strings' capacity from page to page, so the steady state decodes without allocating.
Result<uint64_t> PageThroughReused(const Table& table, Query q, Page* page, uint64_t* touched) {
  uint64_t rows = 0;
  for (;;) {
    PARTKV_RETURN_IF_ERROR(table.QueryEntities(q, page));
    rows += page->entities.size();
    for (const Entity& e : page->entities) *touched += e.property_count() + e.row_key().size();
    if (!page->has_more()) return rows;
    q.continuation.swap(page->continuation);
  }
}

// One raw iterator over [lower, upper) of `cf`; returns the entries seen.
uint64_t RawScan(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const std::string& lower,
                 const std::string& upper, uint64_t* touched, rocksdb::Status* status) {
  rocksdb::Slice lower_slice(lower), upper_slice(upper);
  rocksdb::ReadOptions ro;
  ro.iterate_lower_bound = &lower_slice;
  ro.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro, cf));
  uint64_t rows = 0;
  for (it->Seek(lower_slice); it->Valid(); it->Next()) {
    rocksdb::Slice k = it->key(), v = it->value();
    *touched += k.size() + v.size() + static_cast<uint8_t>(k[k.size() - 1]) +
                static_cast<uint8_t>(v[0]) + static_cast<uint8_t>(v[v.size() - 1]);
    ++rows;
  }
  *status = it->status();
  return rows;
}

template <typename Fn>
void Check(benchmark::State& state, uint64_t got, uint64_t want, Fn&& what) {
  if (got != want) {
    state.SkipWithError(fmt::format("{}: saw {} rows, expected {}", what(), got, want).c_str());
  }
}

// Pages through `s` once per iteration with `page_through(&touched)` (which returns the rows it
// saw) and checks every row came back.
template <typename PageThroughFn>
void Scan(benchmark::State& state, const BenchStore& s, const char* what,
          PageThroughFn&& page_through) {
  uint64_t touched = 0, rows = 0;
  for (auto _ : state) {
    auto r = page_through(&touched);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    Check(state, *r, s.entities, [what] { return what; });
    rows += *r;
  }
  benchmark::DoNotOptimize(touched);
  state.SetItemsProcessed(static_cast<int64_t>(rows));
}

// A scan through one reused Page, kept across the benchmark's iterations.
void ReusedScan(benchmark::State& state, const BenchStore& s, const Query& q, const char* what) {
  Page page;
  Scan(state, s, what,
       [&](uint64_t* touched) { return PageThroughReused(*s.table, q, &page, touched); });
}

// A scan through a fresh Page for every page (Table::QueryEntities(query)).
void FreshScan(benchmark::State& state, const BenchStore& s, const Query& q, const char* what) {
  Scan(state, s, what, [&](uint64_t* touched) { return PageThrough(*s.table, q, touched); });
}

// A thread paging through full-table scans of a store (no conditions, default page size, one
// reused Page), one after another, until Stop. The constructor returns once the first page has
// been read, so that a run timed after it has the scan beside it from its first read.
class BackgroundScan {
 public:
  explicit BackgroundScan(const BenchStore& s) : s_(s), thread_([this] { Run(); }) {
    std::unique_lock<std::mutex> lock(mu_);
    started_cv_.wait(lock, [this] { return started_; });
  }
  ~BackgroundScan() { (void)Stop(); }
  BackgroundScan(const BackgroundScan&) = delete;
  BackgroundScan& operator=(const BackgroundScan&) = delete;

  // Stops the scan after its current page and waits for its thread. Returns the error of the
  // first page that failed, or of a whole scan that did not see every entity; OK otherwise.
  Status Stop() {
    stop_.store(true, std::memory_order_relaxed);
    if (thread_.joinable()) thread_.join();
    return status_;
  }
  // Rows the scan has read so far.
  uint64_t rows() const { return rows_.load(std::memory_order_relaxed); }

 private:
  void Run() {
    Query q;
    Page page;
    while (!stop_.load(std::memory_order_relaxed) && status_.ok()) {
      q.continuation.clear();
      uint64_t seen = 0;
      bool complete = false;
      while (!stop_.load(std::memory_order_relaxed)) {
        status_ = s_.table->QueryEntities(q, &page);
        if (!status_.ok()) break;
        seen += page.entities.size();
        rows_.fetch_add(page.entities.size(), std::memory_order_relaxed);
        MarkStarted();
        if (!page.has_more()) {
          complete = true;
          break;
        }
        q.continuation.swap(page.continuation);
      }
      if (complete && seen != s_.entities) {
        status_ = Status::Corruption(
            fmt::format("a full-table scan saw {} rows, expected {}", seen, s_.entities));
      }
    }
    MarkStarted();  // also when the first page failed: the constructor must not wait forever
  }

  void MarkStarted() {
    if (started_flag_.exchange(true, std::memory_order_relaxed)) return;
    std::lock_guard<std::mutex> lock(mu_);
    started_ = true;
    started_cv_.notify_one();
  }

  const BenchStore& s_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> rows_{0};
  Status status_;  // written by the scan thread only; read after it is joined
  std::atomic<bool> started_flag_{false};  // the scan thread's own: has it signalled yet
  std::mutex mu_;
  std::condition_variable started_cv_;
  bool started_ = false;  // guarded by mu_
  std::thread thread_;    // last: starts once every other member is constructed
};

}  // namespace

void BM_PartkvPartitionScan(benchmark::State& state) {
  Query q;
  q.partition_key = kSinglePartitionKey;
  q.page_size = 1000;
  FreshScan(state, g_fixtures->single, q, "partition scan");
}

void BM_PartkvPartitionScanReused(benchmark::State& state) {
  Query q;
  q.partition_key = kSinglePartitionKey;
  q.page_size = 1000;
  ReusedScan(state, g_fixtures->single, q, "partition scan (reused page)");
}

void BM_PartkvTableScanReused(benchmark::State& state) {
  Query q;
  q.page_size = 1000;
  ReusedScan(state, g_fixtures->wide, q, "table scan (reused page)");
}

// A selective filter over the whole table (16 physical partitions): about 0.1% of the entities
// match ("Count" is uniform over 0..99,999). Rate: entities scanned per second.
void BM_PartkvTableFilter(benchmark::State& state) {
  const BenchStore& s = g_fixtures->wide;
  Query q;
  q.filter = "Count lt 100";
  Page page;
  uint64_t matched = 0, rows = 0, touched = 0;
  for (auto _ : state) {
    auto r = PageThroughReused(*s.table, q, &page, &touched);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      return;
    }
    matched += *r;
    if (matched == 0) state.SkipWithError("the selective filter matched nothing");
    rows += s.entities;
  }
  benchmark::DoNotOptimize(matched);
  benchmark::DoNotOptimize(touched);
  state.SetItemsProcessed(static_cast<int64_t>(rows));
}

void BM_RawPartitionScan(benchmark::State& state) {
  const BenchStore& s = g_fixtures->single;
  const engine::PhysicalPartition& part = s.PartOf(kSinglePartitionKey);
  std::string lower = part.prefix, upper = part.prefix + engine::PartitionEnd(kSinglePartitionKey);
  engine::AppendPartitionPrefix(kSinglePartitionKey, &lower);
  rocksdb::ColumnFamilyHandle* cf = part.cf;
  uint64_t touched = 0, rows = 0;
  for (auto _ : state) {
    rocksdb::Status st;
    uint64_t n = RawScan(s.db(), cf, lower, upper, &touched, &st);
    if (!st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      break;
    }
    Check(state, n, s.entities, [] { return "raw scan"; });
    rows += n;
  }
  benchmark::DoNotOptimize(touched);
  state.SetItemsProcessed(static_cast<int64_t>(rows));
}

void BM_PartkvTableScan(benchmark::State& state) {
  Query q;
  q.page_size = 1000;
  FreshScan(state, g_fixtures->wide, q, "table scan");
}

// Items are queries, so items/s is the inverse of the mean latency.
void BM_PartkvBounded(benchmark::State& state, const BoundedFixture* f) {
  uint64_t touched = 0, done = 0;
  for (auto _ : state) {
    auto r = f->s.table->QueryEntities(f->queries[done % f->queries.size()]);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    if (r->entities.size() != kEntitiesPerPartitionKey || r->has_more()) {
      state.SkipWithError(fmt::format("bounded query returned {} rows{}", r->entities.size(),
                                      r->has_more() ? " and a token" : "")
                              .c_str());
      break;
    }
    for (const Entity& e : r->entities) touched += e.property_count();
    ++done;
  }
  benchmark::DoNotOptimize(touched);
  state.SetItemsProcessed(static_cast<int64_t>(done));
}

void BM_RawBounded(benchmark::State& state, const BoundedFixture* f) {
  uint64_t touched = 0, done = 0;
  for (auto _ : state) {
    const auto& range = f->raw[done % f->raw.size()];
    rocksdb::Status st;
    uint64_t n = RawScan(f->s.db(), range.cf, range.lower, range.upper, &touched, &st);
    if (!st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      break;
    }
    if (n != kEntitiesPerPartitionKey) {
      state.SkipWithError(fmt::format("raw bounded scan saw {} rows", n).c_str());
      break;
    }
    ++done;
  }
  benchmark::DoNotOptimize(touched);
  state.SetItemsProcessed(static_cast<int64_t>(done));
}

void BM_ParallelFilter(benchmark::State& state, const BenchStore* s) {
  Query q;
  q.filter = kParallelFilter;
  // No bound by rows: a page ends at 1000 results (or the end), whatever it examined.
  q.scan_budget = UINT64_MAX;
  Page page;
  const uint64_t want = g_fixtures->parallel->matching;
  uint64_t rows = 0, touched = 0;
  for (auto _ : state) {
    auto r = PageThroughReused(*s->table, q, &page, &touched);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      return;
    }
    const uint64_t matched = *r;
    if (matched != want) {
      state.SkipWithError(
          fmt::format("the selective filter matched {} entities, expected {}", matched, want)
              .c_str());
      return;
    }
    rows += s->entities;
  }
  benchmark::DoNotOptimize(touched);
  state.SetItemsProcessed(static_cast<int64_t>(rows));
}

void BM_HotReads(benchmark::State& state, bool beside_scan) {
  const HotSetFixture& f = *g_fixtures->hot;
  // Whatever the run before left in the cache (a scan's blocks), the hot set is in it again.
  ReadHotSet(f);
  ReadHotSet(f);
  std::optional<BackgroundScan> scan;
  if (beside_scan) scan.emplace(*f.s);
  // Counts (no timers) of this thread's RocksDB work: block_read_count is its cache misses.
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
  rocksdb::get_perf_context()->Reset();
  uint64_t scan_rows_before = scan ? scan->rows() : 0;
  size_t next = 0;
  uint64_t touched = 0;
  for (auto _ : state) {
    const auto& [pk, rk] = f.hot[next];
    if (++next == f.hot.size()) next = 0;
    auto r = f.s->table->Get(pk, rk);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    touched += r->property_count();
  }
  const uint64_t block_reads = rocksdb::get_perf_context()->block_read_count;
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
  benchmark::DoNotOptimize(touched);
  state.counters["block_reads"] =
      benchmark::Counter(static_cast<double>(block_reads), benchmark::Counter::kAvgIterations);
  if (scan) {
    // Read before Stop: the rows the scan went through while the reads were timed (give or take
    // the page in flight at either end).
    const uint64_t scan_rows = scan->rows() - scan_rows_before;
    if (Status st = scan->Stop(); !st.ok()) {
      state.SkipWithError(("the scan beside: " + st.ToString()).c_str());
      return;
    }
    state.counters["scan_rows"] =
        benchmark::Counter(static_cast<double>(scan_rows), benchmark::Counter::kIsRate);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

void Warm(const Fixtures& f) {
  uint64_t touched = 0;
  Query single;
  single.partition_key = kSinglePartitionKey;
  if (auto r = PageThrough(*f.single.table, single, &touched); !r.ok()) {
    Die("warm-up: " + r.status().ToString());
  }
  if (auto r = PageThrough(*f.wide.table, Query{}, &touched); !r.ok()) {
    Die("warm-up: " + r.status().ToString());
  }
  for (const BoundedFixture* b : {&f.small, &f.large}) {
    for (const Query& q : b->queries) {
      if (auto r = b->s.table->QueryEntities(q); !r.ok()) Die("warm-up: " + r.status().ToString());
    }
  }
  if (f.parallel) {
    for (const BenchStore* s : {&*f.parallel->one_thread, &*f.parallel->two_threads}) {
      if (auto r = PageThrough(*s->table, Query{}, &touched); !r.ok()) {
        Die("warm-up: " + r.status().ToString());
      }
    }
  }
  benchmark::DoNotOptimize(touched);
}

}  // namespace partkv::bench::query_bench
