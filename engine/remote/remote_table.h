// A table of a remote store (remote_backend.h): the entity calls in remote_backend.cc, the
// queries in remote_query.cc.

#ifndef PARTKV_ENGINE_REMOTE_REMOTE_TABLE_H_
#define PARTKV_ENGINE_REMOTE_REMOTE_TABLE_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/backend.h"
#include "engine/filter_expr.h"
#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"
#include "engine/remote/service_client.h"
#include "engine/stats.h"
#include "engine/validation.h"

namespace partkv::remote {

// The longest service continuation (NextPartitionKey and NextRowKey together, in bytes) a query
// carries in its token. Azure's encode a key of at most 1 KiB each, in base64 with a short
// prefix; a longer one is refused at the page that brings it, so the client never hands out a
// token it could not read back (engine/token.h bounds tokens).
inline constexpr size_t kMaxServiceContinuationBytes = 4096;

// More pages than this in a row without a row, read for one call (a QueryShards top-up), are a
// server that will not make progress: Azure's empty pages (a 5 s limit, a partition boundary)
// do not come a thousand at a time.
inline constexpr int kMaxEmptyPagesInARow = 1000;

// What the rows and the continuation of one query page must be, checked as the page is read.
struct PageCheck {
  const Query* query = nullptr;  // the key conditions every row must meet
  // The PartitionKey and RowKey bounds of the query's $filter (its top-level conjunction), which
  // every row must meet too.
  const engine::KeyConditions* filter_keys = nullptr;
  std::optional<std::string> partition_key;  // a shard's rows: this PartitionKey only
  // The continuation the request sent, when it sent one: the answer must not hand it back.
  std::optional<std::pair<std::string, std::string>> sent;
  // A shard's last RowKey so far: each row's must come after it (and becomes it).
  std::optional<std::string>* last_row_key = nullptr;

  // Corruption, naming `what` and the keys that came back, for a row the request cannot have
  // asked for.
  Status Row(const Entity& entity, const std::string& what, const ServiceClient& client) const;
  // Corruption for a continuation equal to the one sent, or too long for a token.
  Status Continuation(const std::pair<std::string, std::string>& next, const std::string& what,
                      const ServiceClient& client) const;
};

// Table names compare without case (Azure's rule).
bool SameTableName(std::string_view a, std::string_view b);

// Where one shard of a QueryShards read stands: the rows fetched and not yet returned, and the
// service's continuation after them (remote_query.cc).
struct ShardCursor {
  std::string pk;
  Page buffer;
  size_t head = 0;
  bool more = true;                          // the service may hold more rows of this shard
  std::pair<std::string, std::string> next;  // the service's continuation after the buffer
  bool has_next = false;
  std::string filter;  // the $filter of the request `next` came from
  uint32_t fetch = 0;  // rows to ask for next time
  // The RowKey of the last row fetched: the service returns a shard's rows in RowKey order.
  std::optional<std::string> last_row;
  bool empty() const { return head >= buffer.entities.size(); }
};

class RemoteTable final : public engine::TableBackend {
 public:
  RemoteTable(std::shared_ptr<ServiceClient> client, std::string name,
              const OpenTableOptions& options);

  const std::string& name() const override { return name_; }
  TableInfo info() const override;
  Result<WriteResult> Write(OpType type, const Entity& entity, const IfMatch& if_match,
                            const WriteOptions& options) override;
  Result<Entity> Get(std::string_view partition_key, std::string_view row_key) const override;
  Result<std::vector<WriteResult>> Submit(const Batch& batch, const WriteOptions& options) override;
  Status QueryEntities(const Query& query, Page* page) const override;
  Status QueryShards(const std::vector<std::string>& shard_keys, const Query& query,
                     Page* page) const override;
  Result<Entity> ComputeKeys(const Entity& entity, OpType type) const override;
  Result<Entity> GetByAttributes(const Entity& attributes) const override;
  const std::optional<KeyStrategy>& partition_key_scheme() const override {
    return partition_key_scheme_;
  }
  uint32_t PhysicalPartitionOf(std::string_view) const override { return 0; }
  TableStats Statistics(size_t top) const override { return stats_->Snapshot(top); }
  Result<TableCensus> Census(const CensusOptions& options) const override;
  Result<std::vector<AccessPolicy>> AccessPolicies() const override;
  Status SetAccessPolicies(const std::vector<AccessPolicy>& policies) override;

  // "/T(PartitionKey='…',RowKey='…')", quotes doubled and percent-encoded.
  std::string EntityPath(std::string_view partition_key, std::string_view row_key) const;

 private:
  class ShardRead;  // one QueryShards call (remote_query.cc)

  // One write, sent (keys computed and the entity checked).
  Result<WriteResult> Send(OpType type, const Entity& entity, const IfMatch& if_match);
  // Whether the stored entity holds what `type` of `sent` wrote (the lost-write rule); fills
  // *stored with it. IOError when the entity cannot be read back (NotFound is an answer).
  Result<bool> HoldsWrite(OpType type, const Entity& sent, WriteResult* stored) const;
  Result<std::vector<WriteResult>> SendBatch(const std::vector<BatchOp>& ops);
  // Reads the page of `call` into *page (appending), each row and the continuation checked by
  // `check`; the service's continuation into *next (pk, rk).
  Status FetchPage(Call call, const PageCheck& check, Page* page,
                   std::pair<std::string, std::string>* next, bool* has_next) const;
  // The first found of `candidates`, read up to fan_out at once.
  Result<Entity> GetFirst(const std::vector<std::pair<std::string, std::string>>& candidates) const;
  void Record(std::string_view pk, const Outcome& outcome, bool write, uint64_t entities,
              uint64_t bytes) const;

  // QueryShards' cursors kept between pages, by the token of the page that left them, so that
  // the next page goes on from them instead of asking every shard again. An entry is used once;
  // it is dropped after kResumeTtl, when kResumeEntries newer ones exist, or when this handle
  // wrote since (its rows might be missing from the buffers). Rows written by others after a
  // shard's rows were fetched are not seen, as with the service's own continuation.
  struct ShardResume {
    std::string token;
    uint64_t generation = 0;
    std::chrono::steady_clock::time_point at;
    std::vector<ShardCursor> shards;
  };
  static constexpr size_t kResumeEntries = 8;
  static constexpr std::chrono::seconds kResumeTtl{60};
  // Rows an entry of `n` shards may hold: four pages, or 64 a shard when that is more.
  static constexpr size_t kResumeRows(size_t n) {
    return std::max<size_t>(4 * Query::kMaxPageSize, 64 * n);
  }
  std::optional<std::vector<ShardCursor>> TakeResume(const std::string& token) const
      PARTKV_EXCLUDES(resume_mu_);
  void KeepResume(std::string token, std::vector<ShardCursor> shards) const
      PARTKV_EXCLUDES(resume_mu_);
  mutable port::Mutex resume_mu_;
  mutable std::list<ShardResume> resume_ PARTKV_GUARDED_BY(resume_mu_);  // newest first
  std::atomic<uint64_t> write_generation_{0};

  std::shared_ptr<ServiceClient> client_;
  std::string name_;
  std::string path_;  // "/" + name
  std::optional<KeyStrategy> partition_key_scheme_;
  std::optional<KeyStrategy> row_key_scheme_;
  engine::Limits limits_;
  std::unique_ptr<engine::TableStatsCollector> stats_;
};

// `text` as an OData string literal: quoted, its quotes doubled.
std::string ODataString(std::string_view text);

}  // namespace partkv::remote

#endif  // PARTKV_ENGINE_REMOTE_REMOTE_TABLE_H_
