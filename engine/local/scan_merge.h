// ScanMerge: the paged read of several physical partitions in key order (a table-wide or
// PartitionKey-range query), with the partitions read in parallel.
//
// Each physical partition is a lane: a PartitionCursor and the rows it has read ahead. A round
// refills the lanes that run low, up to `width` at once on the store's worker pool (the calling
// thread takes part): each lane reads a run of rows, copying every row's key, evaluating the
// query's filter on the row in place, and decoding a row that passes (with $select applied) into
// an entity slot of its own. The calling thread then takes, in key order, the rows every lane has
// settled: those up to the horizon, the least of the lanes' last keys read, since no lane can
// still produce a row before it.
//
// A page is exactly the prefix of the merged order that a merge taking one row at a time would
// give. It ends after the row at which it holds `page_size` entities, or its entities reach
// `page_bytes`, or the steps examined reach the scan budget (each row counts one, and each seek a
// RowKey skip-scan makes counts one more, charged to the row it moved past, as
// PartitionCursor::Next reports). The budget's row is found by selection over the lanes' running
// counts instead of by merging every row examined, so a selective filter merges only the rows it
// keeps. Pages therefore depend neither on the number of threads nor on the runs' lengths; only a
// time budget, checked between rounds, makes them depend on speed.
//
// A lane's runs are bounded by rows and by bytes (rows kept are held decoded), so what a read
// holds ahead is bounded whatever the entities' size (2 × kReadAheadBytes, plus one row per
// lane). The first run is sized from the rows the page is expected to take; each later run
// doubles, or grows fourfold after a run the filter kept nothing of, up to kMaxRun. A time
// budget is also checked by the lanes as they read, so a round stops soon after the deadline
// however many lanes it has.
//
// Not thread-safe: one page of one query at a time (the ResumeCache hands a kept read to one
// reader). ReadPage's parallel work touches only the lanes it refills.

#ifndef PARTKV_ENGINE_LOCAL_SCAN_MERGE_H_
#define PARTKV_ENGINE_LOCAL_SCAN_MERGE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/filter_expr.h"
#include "engine/local/cursor.h"
#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"
#include "engine/ttl.h"
#include "engine/worker_pool.h"
#include "partkv/entity.h"
#include "partkv/status.h"

namespace partkv::engine {

class ScanMerge {
 public:
  static constexpr size_t kMaxRun = 4096;  // rows per lane per round, at most
  static constexpr size_t kMinRun = 4;
  // Bytes a read holds ahead, about, shared by its lanes: a lane's run stops once it has read
  // kReadAheadBytes / lanes (at least kMinRunBytes, at most kMaxRunBytes), and after one row
  // whatever its size. A lane holding less than its share is topped up by another share, so a
  // read, also one kept between pages (engine/local/resume_cache.h), holds up to twice
  // kReadAheadBytes.
  static constexpr size_t kReadAheadBytes = 4u << 20;
  static constexpr size_t kMinRunBytes = 16u << 10;
  static constexpr size_t kMaxRunBytes = 256u << 10;
  // A lane reading under a time budget looks at the clock once per this many rows, so a round
  // overruns the deadline by at most this many rows per lane.
  static constexpr size_t kRowsPerClockRead = 256;

  // The rows a query keeps: its filter and its $select (sorted, unique). Both outlive the merge's
  // pages (the query's plan owns them; a kept read is given them again with each page).
  struct Rows {
    const Filter* filter = nullptr;
    const std::vector<std::string>* select = nullptr;
    const Expiry* expiry = nullptr;  // rows expired under it are left out as the filter's are
  };

  // Where a page stops (see the header comment).
  struct Limits {
    size_t page_size = 1000;
    uint64_t budget = UINT64_MAX;
    size_t page_bytes = SIZE_MAX;
    std::optional<std::chrono::steady_clock::time_point> deadline;
  };

  // What a page read.
  struct PageEnd {
    // Steps examined by this page, including the lanes' first seeks on a read's first page.
    uint64_t examined = 0;
    // The key (after the partition prefix) of the last row examined, when more may follow; the
    // continuation resumes after it. Empty when the read is complete.
    std::string resume_after;
  };

  // A physical partition's cursor and the rows it has read ahead (scan_merge.cc).
  struct Lane;

  // Lanes' buffers kept between reads (the store owns one; thread-safe). A lane reads thousands of
  // rows into buffers of a few hundred KiB; were they fresh memory for every read, malloc would
  // map them anew and the kernel fault in every page (a third of a no-match scan's time, measured
  // on 110,000 rows in memtables). A read takes its lanes from here and gives them back when it
  // ends, emptied but with their capacity, up to kSpareBytes of capacity in all.
  class SpareLanes {
   public:
    static constexpr size_t kSpareBytes = 8u << 20;
    SpareLanes();
    ~SpareLanes();
    SpareLanes(const SpareLanes&) = delete;
    SpareLanes& operator=(const SpareLanes&) = delete;
    std::unique_ptr<Lane> Take() PARTKV_EXCLUDES(mu_);
    void Give(std::unique_ptr<Lane> lane) PARTKV_EXCLUDES(mu_);
    // Capacity held, in bytes (for tests).
    size_t bytes() const PARTKV_EXCLUDES(mu_);

   private:
    mutable port::Mutex mu_;
    std::vector<std::unique_ptr<Lane>> lanes_ PARTKV_GUARDED_BY(mu_);
    size_t bytes_ PARTKV_GUARDED_BY(mu_) = 0;  // the capacity lanes_ hold
  };

  // `expected_rows`: the rows a page is expected to take (sizes the first runs). `spare`: where
  // lanes come from and go back to (null: fresh lanes).
  ScanMerge(bool descending, uint64_t expected_rows, std::shared_ptr<SpareLanes> spare = nullptr);
  ~ScanMerge();
  ScanMerge(const ScanMerge&) = delete;
  ScanMerge& operator=(const ScanMerge&) = delete;

  // Adds a physical partition's cursor, not yet started. REQUIRES: no page read yet.
  void Add(std::unique_ptr<PartitionCursor> cursor);

  // Reads one page: the entities go to (*entities)[0..n), reusing the slots there (and the vector
  // is cut to n); what each physical partition examined is added to (*reads)[physical] as (rows,
  // bytes). `pool` may be null (everything on the calling thread); `width` bounds the lanes read
  // at once. Errors: the first lane's error (Corruption of a malformed row, the storage's).
  Status ReadPage(WorkerPool* pool, size_t width, const Rows& rows, const Limits& limits,
                  std::vector<Entity>* entities, std::vector<std::pair<uint64_t, uint64_t>>* reads,
                  PageEnd* end);

 private:
  // What one ReadPage call keeps across its rounds: its buffers, and the entities taken so far.
  struct PageRead;

  // The steps of ReadPage. Before the first page: sizes the lanes' first runs from the rows a page
  // is expected to take.
  void SizeFirstRuns();
  // Each round: 1. refills, on `pool` when it pays, every lane holding less than a run ahead, and
  // grows their runs; returns the first lane's error.
  Status RefillLanes(WorkerPool* pool, size_t width, const std::function<void(size_t)>& refill,
                     PageRead& page);
  // 2. The least of the last keys the lanes not done have read (none when every lane is done).
  std::optional<std::string_view> Horizon() const;
  // Sets page.settled: each lane's rows up to `horizon` (all of them when none). Returns their
  // steps.
  uint64_t Settle(const std::optional<std::string_view>& horizon, PageRead& page) const;
  // 3. The row at which the page's steps (`examined` so far) reach `budget`, if they do among the
  // settled rows, and page.limit: each lane's settled rows up to it.
  std::optional<std::string_view> LimitToBudget(uint64_t budget, uint64_t examined,
                                                uint64_t settled_steps, PageRead& page) const;
  // 4. Moves the kept rows below page.limit into (*entities)[page.kept..], in key order, until
  // the page is full; returns the key of the row that filled it.
  std::optional<std::string_view> TakeKept(const Limits& limits, std::vector<Entity>* entities,
                                           PageRead& page);
  // 5. Takes every lane's rows up to `cut` (every settled row when none), adding what they
  // examined to *reads and *end. Returns whether rows may remain (a lane not done, or holding
  // rows not taken).
  bool TakeRows(const std::optional<std::string_view>& cut,
                std::vector<std::pair<uint64_t, uint64_t>>* reads, PageEnd* end, PageRead& page);

  // Reads up to `max_rows` rows (and about `max_bytes`, and until it holds `max_kept` rows the
  // filter passed) into `lane`, first dropping what earlier pages took from it; stops early,
  // after one row at least, once `deadline` has passed.
  static void Fill(Lane* lane, const Rows& rows, size_t max_rows, size_t max_bytes, size_t max_kept,
                   const std::optional<std::chrono::steady_clock::time_point>& deadline);
  // Whether key a comes before key b in the scan's order.
  bool Before(std::string_view a, std::string_view b) const {
    int c = CompareKeys(a, b);
    return descending_ ? c > 0 : c < 0;
  }
  // The first index in [from, to) of `lane` whose key comes after `key`.
  size_t After(const Lane& lane, size_t from, size_t to, std::string_view key) const;
  // The key of the row at which the steps examined reach `needed`, over every lane's rows in
  // [pos, end[lane]). REQUIRES: those rows' steps add up to at least `needed`.
  std::string_view BudgetRow(const std::vector<size_t>& end, uint64_t needed) const;

  bool descending_;
  uint64_t expected_rows_;
  bool started_ = false;
  std::shared_ptr<SpareLanes> spare_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  // The page's expiry rule (Rows::expiry), for the rows a lane read ahead under an earlier page's
  // clock reading: a kept read of a table with a time to live checks them again as it takes them.
  const Expiry* expiry_ = nullptr;
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_SCAN_MERGE_H_
