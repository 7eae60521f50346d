// ShardStream: the merged stream of a sharded read — the entities of N PartitionKeys (the shards
// of one logical key, e.g. 2018-08-09.1 ... .200) in (RowKey, PartitionKey) order, or reversed.
//
// Why not one PartitionCursor per shard: a page of 1000 rows over 200 shards takes about five
// rows from each shard, so a cursor per shard spends most of the page creating 200 iterators and
// seeking each once. The shards hash into a handful of physical partitions, so this stream opens
// one iterator per physical partition and shares it between the shards that live there: it reads
// each shard in short runs (a seek and a few steps), copies the run into storage it owns, and
// merges the runs' heads in a loser tree. When a shard's run is used up, the shard is read again
// from where its run ended. A first run is sized from the page size and the shard count, so that
// few shards need a second run in one page and few rows are read that the page does not return;
// each later run of a shard is twice as long as its last, up to 4× the first, so a read that goes
// on for many pages seeks less.
//
// Every shard is given as encoded-key bounds [lower, upper) within one PartitionKey. The stream
// reads the snapshot it is given. Not thread-safe; used by one page of one query (Start alone
// reads the physical partitions in parallel, each on one thread).

#ifndef PARTKV_ENGINE_LOCAL_CURSOR_SHARDS_H_
#define PARTKV_ENGINE_LOCAL_CURSOR_SHARDS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/worker_pool.h"
#include "rocksdb/db.h"

namespace partkv::engine {

class ShardStream {
 public:
  struct Shard {
    // Full keys in `cf`: key_prefix + the encoded-key bounds (RowBounds' output).
    std::string lower, upper;
    std::string key_prefix;  // the physical partition's prefix (PhysicalPartition::prefix)
    size_t physical = 0;     // index of the physical partition holding the PartitionKey
    rocksdb::ColumnFamilyHandle* cf = nullptr;
    size_t prefix_length = 0;  // length of escape(PartitionKey) 0x00, shared by every key
  };

  // `expected_rows`: how many rows the caller means to take (the page size); sizes the runs.
  ShardStream(rocksdb::DB* db, const rocksdb::Snapshot* snap, bool descending,
              uint64_t expected_rows);
  ~ShardStream();
  ShardStream(const ShardStream&) = delete;
  ShardStream& operator=(const ShardStream&) = delete;

  // REQUIRES: Start() not called yet.
  void Add(Shard shard);
  // Opens the iterators and reads every shard's first run, the physical partitions' at once on
  // `pool` (up to `width` threads, the caller's included; null = the caller only). Returns the
  // steps examined (one per seek).
  uint64_t Start(WorkerPool* pool = nullptr, size_t width = 1);

  bool Valid() const { return winner_ >= 0; }
  // The current row, valid until the stream moves. REQUIRES: Valid().
  std::string_view key() const;
  std::string_view value() const;
  size_t prefix_length() const;
  size_t physical() const;
  // Advances; returns the steps examined (one per seek a refill needed).
  uint64_t Next();
  // The first error of any iterator, else OK.
  rocksdb::Status status() const { return status_; }

 private:
  struct Group;
  struct Row {
    uint32_t key_offset, key_size, value_offset, value_size;
  };
  struct State {
    Shard shard;
    Group* group = nullptr;
    std::string data;       // the run's keys and values
    std::vector<Row> rows;  // the run
    size_t pos = 0;         // the current row in `rows`
    bool more = true;       // the shard may hold rows after the run
    size_t run = 0;         // the length of its last run
    // The current row's RowKey and escaped PartitionKey, for comparisons.
    std::string_view row_key, escaped_pk;
  };

  // Reads the next run of `s` (from its lower bound, or after its last row); returns false on
  // error. Leaves s->rows empty when the shard has nothing more.
  bool Fill(State* s);
  void SetHead(State* s);
  // Whether shard a's current row comes before shard b's (a shard without a row comes last).
  bool Before(int a, int b) const;
  void BuildTree();
  void Replay(int leaf);

  rocksdb::DB* db_;
  const rocksdb::Snapshot* snap_;
  bool descending_;
  uint64_t expected_rows_;
  size_t run_length_ = 1;
  std::vector<std::unique_ptr<Group>> groups_;
  std::vector<State> states_;
  // Loser tree over states_: losers_[node] for internal nodes 1..n-1; winner_ is the state with
  // the first row, or -1 when every shard is done.
  std::vector<int> losers_;
  int winner_ = -1;
  rocksdb::Status status_;
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_CURSOR_SHARDS_H_
