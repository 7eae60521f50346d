#include "engine/local/scan_merge.h"

#include <algorithm>

#include "engine/local/rocks_status.h"
#include "engine/value_codec.h"

namespace partkv::engine {
namespace {

// A round whose lanes read fewer rows than this runs on the calling thread: handing lanes to the
// pool's workers (a wake-up each) costs more than reading them here. Pages do not depend on it.
constexpr size_t kInlineRows = 256;

}  // namespace

struct ScanMerge::Lane {
  // A row read ahead. Steps and bytes are running totals over every row the lane has read, so
  // the rows of any span are summed by two lookups.
  struct Row {
    uint32_t key_end;    // the end of its key in `keys`
    uint64_t steps_end;  // steps up to and including this row
    uint64_t bytes_end;  // key and value bytes up to and including this row
  };

  std::string_view key(size_t i) const {
    const uint32_t begin = i == 0 ? 0 : rows[i - 1].key_end;
    return std::string_view(keys).substr(begin, rows[i].key_end - begin);
  }
  uint64_t steps_before(size_t i) const { return i == 0 ? steps_base : rows[i - 1].steps_end; }
  uint64_t bytes_before(size_t i) const { return i == 0 ? bytes_base : rows[i - 1].bytes_end; }

  std::unique_ptr<PartitionCursor> cursor;
  bool started = false;
  bool done = false;  // the cursor has no more rows (or failed: `error`)
  uint64_t start_steps = 0;
  size_t run = kMinRun;        // rows the next refill reads, at most
  bool last_run_kept = false;  // the filter passed a row of the last refill
  Status error;

  std::string keys;       // the rows' keys (after the partition prefix), back to back
  std::vector<Row> rows;  // in scan order
  uint64_t steps_base = 0, bytes_base = 0;  // the running totals before rows[0]
  size_t pos = 0;                           // the first row no page has taken
  std::vector<uint32_t> kept;               // indices in `rows` of the rows the filter passed
  size_t kept_pos = 0;                      // the first of them no page has taken
  // kept[i]'s entity is slots[i]; the slots after kept.size() are spare (their storage is reused).
  std::vector<Entity> slots;
};

namespace {

// The bytes of capacity a lane's buffers hold.
size_t Capacity(const ScanMerge::Lane& l) {
  return l.keys.capacity() + l.rows.capacity() * sizeof(ScanMerge::Lane::Row) +
         l.kept.capacity() * sizeof(uint32_t) + l.slots.capacity() * sizeof(Entity);
}

}  // namespace

ScanMerge::SpareLanes::SpareLanes() = default;
ScanMerge::SpareLanes::~SpareLanes() = default;

std::unique_ptr<ScanMerge::Lane> ScanMerge::SpareLanes::Take() {
  {
    port::MutexLock lock(&mu_);
    if (!lanes_.empty()) {
      std::unique_ptr<Lane> lane = std::move(lanes_.back());
      lanes_.pop_back();
      bytes_ -= Capacity(*lane);
      return lane;
    }
  }
  return std::make_unique<Lane>();
}

void ScanMerge::SpareLanes::Give(std::unique_ptr<Lane> lane) {
  // Back to a new lane's state, keeping the buffers' capacity (not the entities: their sizes
  // are the data's).
  Lane& l = *lane;
  l.cursor.reset();
  l.started = l.done = false;
  l.start_steps = 0;
  l.run = kMinRun;
  l.last_run_kept = false;
  l.error = Status::OK();
  l.keys.clear();
  l.rows.clear();
  l.steps_base = l.bytes_base = 0;
  l.pos = 0;
  l.kept.clear();
  l.kept_pos = 0;
  l.slots.clear();
  const size_t size = Capacity(l);
  port::MutexLock lock(&mu_);
  if (bytes_ + size > kSpareBytes) return;  // freed here, outside nothing but the lock
  bytes_ += size;
  lanes_.push_back(std::move(lane));
}

size_t ScanMerge::SpareLanes::bytes() const {
  port::MutexLock lock(&mu_);
  return bytes_;
}

ScanMerge::ScanMerge(bool descending, uint64_t expected_rows, std::shared_ptr<SpareLanes> spare)
    : descending_(descending), expected_rows_(expected_rows), spare_(std::move(spare)) {}

ScanMerge::~ScanMerge() {
  if (spare_ == nullptr) return;
  for (auto& lane : lanes_) spare_->Give(std::move(lane));
}

void ScanMerge::Add(std::unique_ptr<PartitionCursor> cursor) {
  auto lane = spare_ != nullptr ? spare_->Take() : std::make_unique<Lane>();
  lane->cursor = std::move(cursor);
  lanes_.push_back(std::move(lane));
}

void ScanMerge::Fill(Lane* lane, const Rows& rows, size_t max_rows, size_t max_bytes,
                     size_t max_kept,
                     const std::optional<std::chrono::steady_clock::time_point>& deadline) {
  Lane& l = *lane;
  if (l.pos > 0) {  // drop what pages took; their slots go to the spare end
    const uint32_t dropped = l.rows[l.pos - 1].key_end;
    l.steps_base = l.rows[l.pos - 1].steps_end;
    l.bytes_base = l.rows[l.pos - 1].bytes_end;
    l.keys.erase(0, dropped);
    l.rows.erase(l.rows.begin(), l.rows.begin() + static_cast<ptrdiff_t>(l.pos));
    for (Lane::Row& r : l.rows) r.key_end -= dropped;
    l.kept.erase(l.kept.begin(), l.kept.begin() + static_cast<ptrdiff_t>(l.kept_pos));
    for (uint32_t& k : l.kept) k -= static_cast<uint32_t>(l.pos);
    std::rotate(l.slots.begin(), l.slots.begin() + static_cast<ptrdiff_t>(l.kept_pos),
                l.slots.end());
    l.pos = 0;
    l.kept_pos = 0;
  }
  PartitionCursor& c = *l.cursor;
  if (!l.started) {
    l.started = true;
    l.start_steps = c.Start();
  }
  const Filter& filter = *rows.filter;
  const size_t kept_before = l.kept.size();
  size_t read = 0, bytes = 0;
  while (c.Valid() && read < max_rows && bytes < max_bytes && l.kept.size() < max_kept) {
    if (deadline && read > 0 && read % kRowsPerClockRead == 0 &&
        std::chrono::steady_clock::now() >= *deadline) {
      break;
    }
    const std::string_view key = c.key(), value = c.value();
    l.keys.append(key.data(), key.size());
    bytes += key.size();
    Filter::RowMatch match = Filter::RowMatch::kYes;
    if (!filter.empty()) {
      // The filter first reads the row in place: a row it rejects is never decoded.
      EncodedRow row(key, c.prefix_length(), value);
      match = filter.Matches(row);
    }
    if (match != Filter::RowMatch::kNo) {
      if (l.kept.size() == l.slots.size()) l.slots.emplace_back();
      Entity& e = l.slots[l.kept.size()];
      Status s = DecodeEntity(key, c.prefix_length(), value, &e);
      if (!s.ok()) {
        l.error = std::move(s);
        l.done = true;
        return;
      }
      if ((match == Filter::RowMatch::kYes || filter.Matches(e)) && !rows.expiry->Expired(e)) {
        if (!rows.select->empty()) RetainProperties(*rows.select, &e);
        l.kept.push_back(static_cast<uint32_t>(l.rows.size()));
        bytes += value.size();
      }
    }
    const uint64_t row_bytes = key.size() + value.size();
    const uint64_t steps = 1 + c.Next();  // (key and value are gone from here on)
    l.rows.push_back(Lane::Row{static_cast<uint32_t>(l.keys.size()),
                               l.steps_before(l.rows.size()) + steps,
                               l.bytes_before(l.rows.size()) + row_bytes});
    ++read;
  }
  l.last_run_kept = l.kept.size() != kept_before;
  if (!c.Valid()) {
    l.done = true;
    // A valid iterator's status is OK (RocksDB's contract): ask only when it stops.
    if (!c.status().ok()) l.error = FromRocks(c.status(), "query");
  }
}

size_t ScanMerge::After(const Lane& lane, size_t from, size_t to, std::string_view key) const {
  while (from < to) {
    const size_t mid = from + (to - from) / 2;
    if (Before(key, lane.key(mid))) {
      to = mid;
    } else {
      from = mid + 1;
    }
  }
  return from;
}

std::string_view ScanMerge::BudgetRow(const std::vector<size_t>& end, uint64_t needed) const {
  // Steps of every lane's rows up to and including `key`.
  auto steps_through = [&](std::string_view key) {
    uint64_t sum = 0;
    for (size_t q = 0; q < lanes_.size(); ++q) {
      const Lane& l = *lanes_[q];
      sum += l.steps_before(After(l, l.pos, end[q], key)) - l.steps_before(l.pos);
    }
    return sum;
  };
  // The row is the first, in merged order, through which the steps reach `needed`: in each lane,
  // the first such row (a binary search, the count being monotone), and the least of those. A
  // lane only needs searching among its rows before the best found so far, and not at all when
  // even the last of those falls short.
  std::string_view best;
  bool found = false;
  for (size_t p = 0; p < lanes_.size(); ++p) {
    const Lane& l = *lanes_[p];
    size_t lo = l.pos;
    size_t hi = end[p];
    if (found) {  // rows strictly before `best`
      while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (Before(l.key(mid), best)) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      hi = lo;
      lo = l.pos;
    }
    if (lo == hi || steps_through(l.key(hi - 1)) < needed) continue;
    const size_t limit = hi;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (steps_through(l.key(mid)) >= needed) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    if (lo < limit) {
      best = l.key(lo);
      found = true;
    }
  }
  return best;
}

// What one ReadPage call keeps across its rounds.
struct ScanMerge::PageRead {
  PageRead(size_t n, uint64_t expected_rows)
      : run_bytes(std::clamp(kReadAheadBytes / std::max<size_t>(n, 1), kMinRunBytes, kMaxRunBytes)),
        kept_cap(std::max<uint64_t>(kMinRun, (2 * expected_rows + n - 1) / std::max<size_t>(n, 1))),
        settled(n),
        limit(n) {}

  const size_t run_bytes;  // a lane's share of the bytes read ahead
  // Rows kept (decoded) a lane holds ahead: twice its share of a page. A scan that keeps most
  // rows then decodes into a few reused slots per lane rather than into thousands.
  const size_t kept_cap;
  size_t kept = 0;              // the entities taken: (*entities)[0..kept)
  uint64_t bytes = 0;           // the bytes of their rows
  uint64_t examined_rows = 0;   // rows this page took
  std::vector<size_t> fill;     // the round's lanes to refill
  std::vector<size_t> settled;  // per lane: the end of its settled rows
  std::vector<size_t> limit;    // per lane: the end of the rows this page may take
  std::vector<size_t> heap;     // the merge's heap of lanes
};

Status ScanMerge::ReadPage(WorkerPool* pool, size_t width, const Rows& rows, const Limits& limits,
                           std::vector<Entity>* entities,
                           std::vector<std::pair<uint64_t, uint64_t>>* reads, PageEnd* end) {
  end->examined = 0;
  end->resume_after.clear();
  expiry_ = rows.expiry;
  if (!started_) SizeFirstRuns();
  PageRead page(lanes_.size(), expected_rows_);
  auto finish = [&](Status s) {
    entities->erase(entities->begin() + static_cast<ptrdiff_t>(page.kept), entities->end());
    return s;
  };
  const std::function<void(size_t)> refill = [&](size_t k) {
    Lane* l = lanes_[page.fill[k]].get();
    Fill(l, rows, l->run, page.run_bytes, page.kept_cap, limits.deadline);
  };
  for (;;) {
    // 1. Top up every lane running low; a lane's error ends the page.
    Status error = RefillLanes(pool, width, refill, page);
    if (!error.ok()) return finish(std::move(error));
    if (!started_) {
      started_ = true;
      for (auto& l : lanes_) end->examined += l->start_steps;
    }
    // 2. The horizon: no lane can still read a row before it, so every row up to it is settled.
    const std::optional<std::string_view> horizon = Horizon();
    const uint64_t settled_steps = Settle(horizon, page);
    // 3. The row at which the steps reach the budget, if they do among the settled rows.
    const std::optional<std::string_view> budget_row =
        LimitToBudget(limits.budget, end->examined, settled_steps, page);
    // 4. The kept rows up to there, in key order, until the page is full.
    std::optional<std::string_view> cut = TakeKept(limits, entities, page);
    if (!cut) cut = budget_row;
    // 5. Take every row up to the page's end, or every settled row.
    const bool more = TakeRows(cut, reads, end, page);
    if (!more) return finish(Status::OK());
    if (cut) {
      end->resume_after.assign(cut->data(), cut->size());
      return finish(Status::OK());
    }
    if (limits.deadline && page.examined_rows > 0 &&
        std::chrono::steady_clock::now() >= *limits.deadline) {
      end->resume_after.assign(horizon->data(), horizon->size());  // the last row taken
      return finish(Status::OK());
    }
  }
}

void ScanMerge::SizeFirstRuns() {
  const size_t n = lanes_.size();
  // A page takes about expected_rows_ / n rows from each lane; half as many again keeps second
  // rounds rare without reading much the page does not return.
  const size_t first = std::clamp<uint64_t>(
      (expected_rows_ * 3 + 2 * n - 1) / (2 * std::max<size_t>(n, 1)) + 1, kMinRun, kMaxRun);
  for (auto& l : lanes_) l->run = first;
}

Status ScanMerge::RefillLanes(WorkerPool* pool, size_t width,
                              const std::function<void(size_t)>& refill, PageRead& page) {
  // Every lane holding less than a run ahead, in rows and in bytes: most lanes are read in every
  // round, so the threads share many lanes (a round of a few lanes leaves a thread idle while the
  // last one finishes). A lane holds at most two runs' share ahead.
  const size_t n = lanes_.size();
  page.fill.clear();
  size_t fill_rows = 0;
  for (size_t i = 0; i < n; ++i) {
    const Lane& l = *lanes_[i];
    if (l.done) continue;
    const size_t rows_ahead = l.rows.size() - l.pos;
    const uint64_t bytes_ahead = l.bytes_before(l.rows.size()) - l.bytes_before(l.pos);
    const size_t kept_ahead = l.kept.size() - l.kept_pos;
    if (rows_ahead == 0 ||
        (rows_ahead < l.run && bytes_ahead < page.run_bytes && kept_ahead < page.kept_cap)) {
      page.fill.push_back(i);
      fill_rows += l.run;
    }
  }
  if (pool != nullptr && width > 1 && page.fill.size() > 1 && fill_rows >= kInlineRows) {
    pool->ParallelFor(page.fill.size(), width, refill);
  } else {
    for (size_t k = 0; k < page.fill.size(); ++k) refill(k);
  }
  // A lane whose run kept nothing grows faster: the page needs more rows than it was expected
  // to (a selective filter), and every round is a barrier the threads wait at.
  for (size_t i : page.fill) {
    Lane& l = *lanes_[i];
    l.run = std::min(l.run * (l.last_run_kept ? 2 : 4), kMaxRun);
  }
  for (auto& l : lanes_) {
    if (!l->error.ok()) return l->error;
  }
  return Status::OK();
}

std::optional<std::string_view> ScanMerge::Horizon() const {
  std::optional<std::string_view> horizon;
  for (auto& l : lanes_) {
    if (l->done) continue;  // (a lane not done holds rows: it was refilled, or had enough)
    const std::string_view last = l->key(l->rows.size() - 1);
    if (!horizon || Before(last, *horizon)) horizon = last;
  }
  return horizon;
}

uint64_t ScanMerge::Settle(const std::optional<std::string_view>& horizon, PageRead& page) const {
  uint64_t settled_steps = 0;
  for (size_t i = 0; i < lanes_.size(); ++i) {
    const Lane& l = *lanes_[i];
    page.settled[i] = horizon ? After(l, l.pos, l.rows.size(), *horizon) : l.rows.size();
    settled_steps += l.steps_before(page.settled[i]) - l.steps_before(l.pos);
  }
  return settled_steps;
}

std::optional<std::string_view> ScanMerge::LimitToBudget(uint64_t budget, uint64_t examined,
                                                         uint64_t settled_steps,
                                                         PageRead& page) const {
  // A page takes at least one row, even when opening its cursors used the budget up.
  std::optional<std::string_view> budget_row;
  if (budget != UINT64_MAX) {
    const uint64_t needed = examined < budget ? budget - examined : 1;
    if (settled_steps >= needed) budget_row = BudgetRow(page.settled, needed);
  }
  for (size_t i = 0; i < lanes_.size(); ++i) {
    const Lane& l = *lanes_[i];
    page.limit[i] = budget_row ? After(l, l.pos, page.settled[i], *budget_row) : page.settled[i];
  }
  return budget_row;
}

std::optional<std::string_view> ScanMerge::TakeKept(const Limits& limits,
                                                    std::vector<Entity>* entities, PageRead& page) {
  // The loop works on locals, as it did inside ReadPage (the heap's buffer is moved in, and back
  // at the end): what it writes to the entities cannot alias them, so they stay in registers.
  const size_t n = lanes_.size();
  const size_t* const limit = page.limit.data();
  std::vector<size_t> heap = std::move(page.heap);
  size_t kept = page.kept;
  uint64_t page_bytes = page.bytes;
  auto later = [&](size_t a, size_t b) {  // heap order: the first row on top
    const Lane& x = *lanes_[a];
    const Lane& y = *lanes_[b];
    return Before(y.key(y.kept[y.kept_pos]), x.key(x.kept[x.kept_pos]));
  };
  auto has_next = [&](size_t i) {
    const Lane& l = *lanes_[i];
    return l.kept_pos < l.kept.size() && l.kept[l.kept_pos] < limit[i];
  };
  heap.clear();
  for (size_t i = 0; i < n; ++i) {
    if (has_next(i)) heap.push_back(i);
  }
  std::make_heap(heap.begin(), heap.end(), later);
  std::optional<std::string_view> cut;
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const size_t i = heap.back();
    Lane& l = *lanes_[i];
    const size_t row = l.kept[l.kept_pos];
    if (kept == entities->size()) entities->emplace_back();
    std::swap((*entities)[kept], l.slots[l.kept_pos]);
    ++l.kept_pos;
    // A row read ahead for an earlier page may have expired since: left out like a filtered one.
    const bool live = expiry_ == nullptr || !expiry_->Expired((*entities)[kept]);
    if (live) {
      ++kept;
      page_bytes += l.rows[row].bytes_end - l.bytes_before(row);
    }
    if (live && (kept >= limits.page_size || page_bytes >= limits.page_bytes)) {
      cut = l.key(row);
      break;
    }
    if (has_next(i)) {
      std::push_heap(heap.begin(), heap.end(), later);
    } else {
      heap.pop_back();
    }
  }
  page.kept = kept;
  page.bytes = page_bytes;
  page.heap = std::move(heap);
  return cut;
}

bool ScanMerge::TakeRows(const std::optional<std::string_view>& cut,
                         std::vector<std::pair<uint64_t, uint64_t>>* reads, PageEnd* end,
                         PageRead& page) {
  bool more = false;
  for (size_t i = 0; i < lanes_.size(); ++i) {
    Lane& l = *lanes_[i];
    const size_t to = cut ? After(l, l.pos, page.settled[i], *cut) : page.settled[i];
    end->examined += l.steps_before(to) - l.steps_before(l.pos);
    auto& r = (*reads)[l.cursor->physical];
    r.first += to - l.pos;
    r.second += l.bytes_before(to) - l.bytes_before(l.pos);
    page.examined_rows += to - l.pos;
    l.pos = to;
    if (!l.done || l.pos < l.rows.size()) more = true;
  }
  return more;
}

}  // namespace partkv::engine
