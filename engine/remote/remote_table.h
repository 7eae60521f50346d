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
#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"
#include "engine/remote/service_client.h"
#include "engine/stats.h"
#include "engine/validation.h"

namespace partkv::remote {

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
  // One write, sent (keys computed and the entity checked).
  Result<WriteResult> Send(OpType type, const Entity& entity, const IfMatch& if_match);
  // Whether the stored entity holds what `type` of `sent` wrote (the lost-write rule); fills
  // *stored with it. IOError when the entity cannot be read back (NotFound is an answer).
  Result<bool> HoldsWrite(OpType type, const Entity& sent, WriteResult* stored) const;
  Result<std::vector<WriteResult>> SendBatch(const std::vector<BatchOp>& ops);
  // Reads the page of `call` into *page; the service's continuation into *next (pk, rk).
  Status FetchPage(Call call, Page* page, std::pair<std::string, std::string>* next,
                   bool* has_next) const;
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

// The entity JSON objects of a query response's "value" array, as views into `body`.
// InvalidArgument when `body` is not such a document.
Result<std::vector<std::string_view>> SplitValueArray(std::string_view body);

// `text` as an OData string literal: quoted, its quotes doubled.
std::string ODataString(std::string_view text);

}  // namespace partkv::remote

#endif  // PARTKV_ENGINE_REMOTE_REMOTE_TABLE_H_
