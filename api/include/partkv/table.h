// partkv::Table — a handle on one table of an open Store: entity reads, writes and batches.
//
// Obtain one with Store::OpenTable. A Table is a cheap, copyable handle; all copies refer to the
// same table. Every method is thread-safe: any number of threads may use the same or different
// handles concurrently. A handle keeps the store's engine alive, so it may outlive the Store
// object it came from; after the table is dropped every method returns NotFound.
//
// Semantics follow Azure Table (docs/design.md "Semantics"): (PartitionKey, RowKey) is unique and
// Insert is atomic under any number of concurrent writers; Replace/Merge/Delete take an IfMatch
// condition; every write gives the entity a new ETag that never repeats for that key (also across
// restarts and wall-clock steps backwards) and a new Timestamp (the store's clock, never going
// backwards for one entity). Entities are validated against Azure's limits before anything is
// written; a violation is InvalidArgument naming the limit.

#ifndef PARTKV_TABLE_H_
#define PARTKV_TABLE_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "partkv/batch.h"
#include "partkv/census.h"
#include "partkv/changes.h"
#include "partkv/entity.h"
#include "partkv/if_match.h"
#include "partkv/options.h"
#include "partkv/query.h"
#include "partkv/result.h"
#include "partkv/stats.h"
#include "partkv/table_info.h"

namespace partkv::engine {
class TableBackend;
}  // namespace partkv::engine

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

class Table {
 public:
  const std::string& name() const;
  TableInfo info() const;

  // Inserts a new entity. AlreadyExists when (PartitionKey, RowKey) exists.
  Result<WriteResult> Insert(const Entity& entity, const WriteOptions& options = {});
  // Replaces the whole entity (properties absent from `entity` are dropped).
  // NotFound when missing; PreconditionFailed when `if_match` does not hold.
  Result<WriteResult> Replace(const Entity& entity, const IfMatch& if_match,
                              const WriteOptions& options = {});
  // Sets the properties of `entity` on the stored entity, keeping the others.
  // NotFound when missing; PreconditionFailed when `if_match` does not hold.
  Result<WriteResult> Merge(const Entity& entity, const IfMatch& if_match,
                            const WriteOptions& options = {});
  // Upserts: never fail on existence.
  Result<WriteResult> InsertOrReplace(const Entity& entity, const WriteOptions& options = {});
  Result<WriteResult> InsertOrMerge(const Entity& entity, const WriteOptions& options = {});
  // Deletes. NotFound when missing; PreconditionFailed when `if_match` does not hold.
  Status Delete(std::string_view partition_key, std::string_view row_key, const IfMatch& if_match,
                const WriteOptions& options = {});

  // The stored entity with its Timestamp and ETag. NotFound when missing.
  Result<Entity> Get(std::string_view partition_key, std::string_view row_key) const;

  // Applies every operation of `batch` atomically. On success returns one WriteResult per
  // operation (an empty etag for deletes). On failure nothing is written and the Status names
  // the failing operation's index (Status::failed_op()).
  Result<std::vector<WriteResult>> Submit(const Batch& batch, const WriteOptions& options = {});

  // One page of a query (partkv/query.h). InvalidArgument for a bad filter, page size, select
  // name or continuation token.
  Result<Page> QueryEntities(const Query& query) const;
  // The same page into *page, reusing the storage of the entities already there: paging through
  // a large result with one Page decodes every row into strings that keep their capacity, so
  // once the page has grown to its steady size a page costs no allocations. On error *page
  // holds unspecified entities.
  Status QueryEntities(const Query& query, Page* page) const;

  // `entity` with the keys the table's key scheme computes (TableInfo::partition_key_strategy,
  // row_key_strategy): a key left empty by `entity` is computed from its properties when the
  // table has a scheme for it; a key given is kept. A random-suffix scheme draws a new suffix on
  // every call. This is what every write does before it writes, so a caller can learn the keys
  // a write will use (and print them, or route by them) and pass the result on: its keys are
  // no longer empty, so the write computes nothing again.
  // InvalidArgument naming the key and the cause when a property the scheme reads is absent or
  // cannot form a key (KeyStrategy::Compute), or when a random-suffix key would be drawn for
  // `type` kReplace, kMerge or kDelete (those address an existing entity, whose key must be
  // given). A table without schemes returns `entity` unchanged. Cost: one copy of the entity.
  Result<Entity> ComputeKeys(const Entity& entity, OpType type) const;

  // The physical partition (0 .. info().physical_partitions - 1) that stores PartitionKey
  // `partition_key`: the one whose hash range holds the key's XXH3 hash (docs/format.md
  // "Physical partitions"; TableCensus::partitions lists the ranges). A hash and a binary search.
  uint32_t PhysicalPartitionOf(std::string_view partition_key) const;

  // A point read by natural attributes: the keys are computed from `attributes` with the table's
  // key scheme (a RandomSuffix PartitionKey is looked up in every shard). InvalidArgument when
  // the table has no scheme or an attribute the scheme needs is missing; NotFound when absent.
  Result<Entity> GetByAttributes(const Entity& attributes) const;

  // A sharded (scatter-gather) read of one logical key written under N suffixes: reads
  // `base`.1 ... `base`.N, merges them by RowKey (ties by PartitionKey), and applies the query's
  // RowKey range, filter, select, page size, order and continuation token as QueryEntities does.
  // The shards come from the table's sharded PartitionKey scheme, or from `strategy`.
  // REQUIRES: query names no PartitionKey condition.
  Result<Page> QueryShards(std::string_view base, const Query& query) const;
  Result<Page> QueryShards(const KeyStrategy& strategy, std::string_view base,
                           const Query& query) const;
  // The same, into *page, reusing its entities' storage as QueryEntities(query, page) does.
  Status QueryShards(std::string_view base, const Query& query, Page* page) const;
  Status QueryShards(const KeyStrategy& strategy, std::string_view base, const Query& query,
                     Page* page) const;

  // What the table has served since the store opened (partkv/stats.h), with the `top` hottest
  // logical partitions.
  TableStats Statistics(size_t top = 10) const;

  // What the table stores (partkv/census.h): entities, bytes and logical partitions per physical
  // partition and the options.top largest logical partitions, counted by reading every stored
  // row of the table once from one snapshot, so the figures are consistent with each other
  // whatever is written meanwhile; the SST figures are RocksDB's estimates at the time of the
  // call. Cost: reads the whole table (I/O and CPU in proportion to its stored bytes; the block
  // cache is not filled, so other readers keep their cached blocks) and holds the snapshot,
  // which keeps compactions from dropping the versions it sees, until it returns; memory is
  // O(options.top) beside the result. Writers are not blocked.
  // NotFound when the table has been dropped; IOError naming the table and the physical
  // partition when reading fails; Corruption when a stored key is malformed.
  Result<TableCensus> Census(const CensusOptions& options = {}) const;

  // The table's stored access policies, in the order they were set (at most kMaxAccessPolicies).
  // NotFound when the table has been dropped.
  Result<std::vector<AccessPolicy>> AccessPolicies() const;
  // Replaces every stored access policy of the table, durably. InvalidArgument for more than
  // kMaxAccessPolicies, an empty, over-long or repeated id, a permission letter other than r, a,
  // u, d (or one given twice), or a start after the expiry; NotFound when the table has been
  // dropped. The policies are dropped with the table.
  Status SetAccessPolicies(const std::vector<AccessPolicy>& policies);

  // One page of the table's change feed (partkv/changes.h, docs/changes.md), from
  // query.continuation or query.start, in query.mode. Changes committed while the page is read
  // may or may not be in it; none is ever skipped: a later page from the returned token has every
  // change after the page's last. InvalidArgument for a page size outside 1..1000, a token that is
  // malformed, forged or another table's, or when the table keeps no change feed (the message
  // says how to turn it on); Trimmed when retention removed the token's position (the message
  // names the oldest position kept; FeedState().first_token reads from there).
  Result<ChangesPage> ReadChanges(const ChangesQuery& query) const;
  // The change feed's options, extent and size. InvalidArgument when the table keeps none.
  Result<ChangeFeedState> FeedState() const;
  // Waits until the feed holds a change at or after the position of `continuation` (a token of
  // ReadChanges) or `timeout` passes: true when it does. For readers that follow the feed (a
  // `tail -f` of the table) without polling. Errors as ReadChanges.
  Result<bool> AwaitChanges(std::string_view continuation, std::chrono::milliseconds timeout) const;
  // Runs the table's maintenance now, as the store's maintenance thread does every
  // StoreOptions::maintenance_interval: applies the feed's retention, and, when the table keeps a
  // feed and a time to live, removes its expired entities with one "expire" entry each. (A table
  // without a feed needs no sweep: its expired entities are invisible at once and left out of the
  // files compactions write.) Writers are not blocked: the sweep locks a few rows at a time.
  Result<SweepReport> Sweep();

 private:
  friend class FrontAccess;
  explicit Table(std::shared_ptr<engine::TableBackend> backend) : backend_(std::move(backend)) {}
  std::shared_ptr<engine::TableBackend> backend_;
};

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_TABLE_H_
