#include "engine/local/cursor_shards.h"

#include <algorithm>
#include <functional>

#include "engine/local/cursor.h"

namespace partkv::engine {

// One iterator over one physical partition, shared by the shards that live in it. It owns the
// bounds it was given (RocksDB borrows them).
struct ShardStream::Group {
  std::string lower, upper;
  rocksdb::Slice lower_slice, upper_slice;
  std::unique_ptr<rocksdb::Iterator> it;
  // The shard whose run ended where the iterator stands (on that run's last row), or -1: that
  // shard's next run needs no seek.
  int owner = -1;
  // The states of the shards it holds: [first, last).
  size_t first = 0, last = 0;
  rocksdb::Status status;  // its iterator's first error
};

namespace {

// Runs never exceed this: a shard that supplies most of a page is read in a few long runs.
constexpr size_t kMaxRun = 512;
// Fewer shards than this open on the calling thread: a handful of seeks cost less than handing
// them to the pool's workers.
constexpr size_t kParallelShards = 8;

}  // namespace

ShardStream::ShardStream(rocksdb::DB* db, const rocksdb::Snapshot* snap, bool descending,
                         uint64_t expected_rows)
    : db_(db), snap_(snap), descending_(descending), expected_rows_(expected_rows) {}

ShardStream::~ShardStream() = default;

void ShardStream::Add(Shard shard) {
  State s;
  s.shard = std::move(shard);
  states_.push_back(std::move(s));
}

std::string_view ShardStream::key() const {
  const State& s = states_[winner_];
  const Row& r = s.rows[s.pos];
  return std::string_view(s.data.data() + r.key_offset, r.key_size);
}

std::string_view ShardStream::value() const {
  const State& s = states_[winner_];
  const Row& r = s.rows[s.pos];
  return std::string_view(s.data.data() + r.value_offset, r.value_size);
}

size_t ShardStream::prefix_length() const { return states_[winner_].shard.prefix_length; }

size_t ShardStream::physical() const { return states_[winner_].shard.physical; }

uint64_t ShardStream::Start(WorkerPool* pool, size_t width) {
  const size_t n = states_.size();
  if (n == 0) return 0;
  // A page of `expected_rows_` takes about expected_rows_ / n rows from each shard; half as many
  // again keeps second runs rare without reading much the page does not return.
  run_length_ = std::clamp<size_t>((expected_rows_ * 3 + 2 * n - 1) / (2 * n) + 1, 2, kMaxRun);

  // Shards by physical partition, each partition's in the order its iterator meets them, so the
  // first runs move every iterator one way.
  std::stable_sort(states_.begin(), states_.end(), [this](const State& a, const State& b) {
    if (a.shard.physical != b.shard.physical) return a.shard.physical < b.shard.physical;
    return descending_ ? a.shard.upper > b.shard.upper : a.shard.lower < b.shard.lower;
  });
  for (size_t i = 0; i < n; ++i) {
    State& s = states_[i];
    if (i == 0 || s.shard.physical != states_[i - 1].shard.physical) {
      auto g = std::make_unique<Group>();
      g->lower = s.shard.lower;
      g->upper = s.shard.upper;
      g->first = i;
      groups_.push_back(std::move(g));
    }
    Group* g = groups_.back().get();
    g->lower = std::min(g->lower, s.shard.lower);
    g->upper = std::max(g->upper, s.shard.upper);
    g->last = i + 1;
    s.group = g;
  }
  // Each physical partition's iterator and its shards' first runs: the partitions at once, up to
  // `width`, as nothing but the group is touched.
  const std::function<void(size_t)> open = [this](size_t k) {
    Group* g = groups_[k].get();
    rocksdb::ReadOptions ro;
    ro.snapshot = snap_;
    g->lower_slice = rocksdb::Slice(g->lower);
    g->upper_slice = rocksdb::Slice(g->upper);
    ro.iterate_lower_bound = &g->lower_slice;
    ro.iterate_upper_bound = &g->upper_slice;
    g->it.reset(db_->NewIterator(ro, states_[g->first].shard.cf));
    for (size_t i = g->first; i < g->last && g->status.ok(); ++i) Fill(&states_[i]);
  };
  // The first partition opens here; the others go to the pool only when its shards filled a
  // run: shards that hold a few rows each (a small key spread wide) cost a seek apiece, less
  // than waking a worker and waiting for it (a 50-shard read of ~7 rows took 1.5x as long in
  // parallel as here).
  open(0);
  bool large = false;
  for (size_t i = groups_[0]->first; i < groups_[0]->last; ++i) large = large || states_[i].more;
  if (pool != nullptr && width > 1 && groups_.size() > 2 && n >= kParallelShards && large &&
      groups_[0]->status.ok()) {
    pool->ParallelFor(groups_.size() - 1, width, [&open](size_t k) { open(k + 1); });
  } else {
    for (size_t k = 1; k < groups_.size(); ++k) open(k);
  }
  const uint64_t steps = n;  // a seek per shard
  for (const auto& g : groups_) {
    if (!g->status.ok()) {
      status_ = g->status;
      return steps;
    }
  }
  for (State& s : states_) SetHead(&s);
  BuildTree();
  return steps;
}

bool ShardStream::Fill(State* s) {
  Group* g = s->group;
  rocksdb::Iterator* it = g->it.get();
  const int self = static_cast<int>(s - states_.data());
  const bool first = s->rows.empty() && s->data.empty();
  const std::string_view lower = s->shard.lower, upper = s->shard.upper;
  if (g->owner == self) {
    // The iterator still stands on the last row of this shard's previous run.
    if (descending_) {
      it->Prev();
    } else {
      it->Next();
    }
  } else {
    // Position on the shard's next row: its first, or the one after its last run.
    if (first) {
      if (!descending_) {
        it->Seek(lower);
      } else {
        it->SeekForPrev(upper);
        if (it->Valid() && it->key().ToStringView() >= upper) it->Prev();
      }
    } else {
      const Row& last = s->rows.back();
      std::string after = s->shard.key_prefix;  // rows keep their keys without it
      after.append(s->data.data() + last.key_offset, last.key_size);
      if (!descending_) {
        after.push_back('\0');  // the immediate successor
        it->Seek(after);
      } else {
        it->SeekForPrev(after);
        if (it->Valid() && it->key().ToStringView() >= after) it->Prev();
      }
    }
  }
  g->owner = -1;
  s->data.clear();
  s->rows.clear();
  s->pos = 0;
  s->more = false;
  // A shard read again is read in longer runs, up to 4× the first: fewer seeks for a read that
  // goes on, while a short read still reads little it does not return.
  s->run = first ? run_length_ : std::min({s->run * 2, run_length_ * 4, kMaxRun});
  const size_t run = s->run;
  while (it->Valid()) {
    std::string_view key = it->key().ToStringView();
    if (descending_ ? key < lower : key >= upper) break;
    key.remove_prefix(s->shard.key_prefix.size());
    std::string_view value = it->value().ToStringView();
    Row r;
    r.key_offset = static_cast<uint32_t>(s->data.size());
    r.key_size = static_cast<uint32_t>(key.size());
    r.value_offset = r.key_offset + r.key_size;
    r.value_size = static_cast<uint32_t>(value.size());
    s->data.append(key.data(), key.size());
    s->data.append(value.data(), value.size());
    s->rows.push_back(r);
    if (s->rows.size() == run) {
      // Stop on the run's last row rather than step past it (that step is wasted unless the
      // page needs more of this shard): the shard's next run starts from here, without a seek
      // when no other shard has moved the iterator meanwhile.
      s->more = true;
      g->owner = self;
      break;
    }
    if (descending_) {
      it->Prev();
    } else {
      it->Next();
    }
  }
  if (!it->Valid() && !it->status().ok()) {
    if (g->status.ok()) g->status = it->status();
    return false;
  }
  return true;
}

void ShardStream::SetHead(State* s) {
  if (s->pos >= s->rows.size()) return;
  const Row& r = s->rows[s->pos];
  const char* k = s->data.data() + r.key_offset;
  const size_t p = s->shard.prefix_length;
  s->row_key = std::string_view(k + p, r.key_size - p);
  s->escaped_pk = std::string_view(k, p - 1);
}

bool ShardStream::Before(int a, int b) const {
  const State& x = states_[a];
  const State& y = states_[b];
  const bool x_done = x.pos >= x.rows.size(), y_done = y.pos >= y.rows.size();
  if (x_done || y_done) return !x_done;
  int c = CompareKeys(x.row_key, y.row_key);
  if (c == 0) c = CompareKeys(x.escaped_pk, y.escaped_pk);
  return descending_ ? c > 0 : c < 0;
}

void ShardStream::BuildTree() {
  const int n = static_cast<int>(states_.size());
  losers_.assign(n, -1);
  if (n == 1) {
    winner_ = states_[0].pos < states_[0].rows.size() ? 0 : -1;
    return;
  }
  // Leaves n..2n-1 stand for states 0..n-1; node k's children are 2k and 2k+1.
  std::vector<int> winners(2 * n);
  for (int i = 0; i < n; ++i) winners[n + i] = i;
  for (int node = n - 1; node >= 1; --node) {
    int a = winners[2 * node], b = winners[2 * node + 1];
    if (Before(b, a)) std::swap(a, b);
    winners[node] = a;
    losers_[node] = b;
  }
  const State& w = states_[winners[1]];
  winner_ = w.pos < w.rows.size() ? winners[1] : -1;
}

void ShardStream::Replay(int leaf) {
  const int n = static_cast<int>(states_.size());
  int w = leaf;
  for (int node = (n + leaf) / 2; node >= 1; node /= 2) {
    if (Before(losers_[node], w)) std::swap(losers_[node], w);
  }
  const State& s = states_[w];
  winner_ = s.pos < s.rows.size() ? w : -1;
}

uint64_t ShardStream::Next() {
  State* s = &states_[winner_];
  ++s->pos;
  uint64_t steps = 0;
  if (s->pos >= s->rows.size() && s->more) {
    if (s->group->owner != winner_) steps = 1;  // a seek
    if (!Fill(s)) {
      if (status_.ok()) status_ = s->group->status;
      winner_ = -1;
      return steps;
    }
  }
  SetHead(s);
  Replay(winner_);
  return steps;
}

}  // namespace partkv::engine
