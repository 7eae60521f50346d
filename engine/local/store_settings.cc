// StoreState's per-table settings that change after creation (engine/local/store_state.h): a
// table's change feed and time to live (Store::SetTableOptions), what they leave the compaction
// filter to reclaim, the feed's trims, and the maintenance thread that sweeps them
// (docs/changes.md).

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "engine/local/catalog.h"
#include "engine/local/feed_ops.h"
#include "engine/local/rocks_status.h"
#include "engine/local/store_state.h"

namespace partkv::engine {

void StoreState::UpdateReclaim(const SharedTable& table) const {
  DroppedTables::Reclaim reclaim;
  if (table.CurrentRecord().feed_set) reclaim.feed_trim = table.feed().trim();
  // A feed table's expiries are removed by its sweep, which records them; another table's by
  // every flush and compaction.
  if (!table.feed().enabled()) reclaim.ttl = table.ttl_seconds();
  dropped_->SetReclaim(table.record().id, reclaim);
}

rocksdb::ColumnFamilyOptions StoreState::DataOptions(uint32_t count) const {
  rocksdb::ColumnFamilyOptions cf = partition_options_;
  // The memtable blooms together take at most 1/16 of the budget (and 2% of a memtable each).
  double per_partition = static_cast<double>(memory_budget_) / 16 / std::max<uint32_t>(1, count);
  cf.memtable_prefix_bloom_size_ratio =
      std::min(0.02, per_partition / static_cast<double>(cf.write_buffer_size));
  return cf;
}

std::vector<std::shared_ptr<SharedTable>> StoreState::Tables() const {
  port::MutexLock lock(&catalog_mu_);
  std::vector<std::shared_ptr<SharedTable>> out;
  out.reserve(tables_.size());
  for (const auto& [key, table] : tables_) out.push_back(table);
  return out;
}

Status StoreState::TrimFeed(SharedTable& table, uint64_t trim) {
  // The catalog's mutex makes this one at a time with SetTableOptions, which also writes it.
  port::MutexLock lock(&catalog_mu_);
  if (table.dropped() || trim <= table.feed().trim()) return Status::OK();
  rocksdb::WriteOptions wo;
  wo.sync = true;
  rocksdb::Status s = db_->Put(wo, meta_, FeedTrimKey(table.record().id), std::to_string(trim));
  if (!s.ok()) return FromRocks(s, "trim the change feed of table '" + table.record().name + "'");
  table.feed().RaiseTrim(trim);
  UpdateReclaim(table);
  return Status::OK();
}

TableInfo StoreState::InfoOf(const SharedTable& data) {
  const TableRecord& r = data.record();
  TableInfo info{r.name,
                 r.id,
                 static_cast<uint32_t>(r.lower_bounds.size()),
                 DateTime{r.created_ticks},
                 r.pk_scheme,
                 r.rk_scheme,
                 data.profile().name,
                 data.throttler() != nullptr};
  info.partition_key_strategy = data.partition_key_scheme();
  info.row_key_strategy = data.row_key_scheme();
  info.change_feed = data.feed().options();
  info.ttl_seconds = data.ttl_seconds();
  return info;
}

bool StoreState::NeedsMaintenance(const SharedTable& table) {
  return table.feed().enabled() || table.ttl_seconds() != kTtlOff;
}

void StoreState::StartMaintenance() {
  if (maintenance_interval_.count() <= 0) return;
  port::MutexLock lock(&maintenance_mu_);
  if (maintenance_.joinable() || maintenance_stop_) return;
  maintenance_ = std::thread([this] { MaintenanceLoop(); });
}

void StoreState::StopMaintenance() {
  std::thread thread;
  {
    port::MutexLock lock(&maintenance_mu_);
    maintenance_stop_ = true;
    thread = std::move(maintenance_);
  }
  maintenance_cv_.SignalAll();
  if (thread.joinable()) thread.join();
}

void StoreState::MaintenanceLoop() {
  for (;;) {
    {
      port::MutexLock lock(&maintenance_mu_);
      const auto deadline = std::chrono::steady_clock::now() + maintenance_interval_;
      while (!maintenance_stop_ && std::chrono::steady_clock::now() < deadline) {
        maintenance_cv_.WaitUntil(deadline);
      }
      if (maintenance_stop_) return;
    }
    for (const auto& table : Tables()) {
      if (!NeedsMaintenance(*table)) continue;
      // A failure (a full disk, a write stall) is retried at the next round; nothing is lost.
      (void)SweepTable(*this, *table);
      {
        port::MutexLock lock(&maintenance_mu_);
        if (maintenance_stop_) return;
      }
    }
  }
}

Status StoreState::CheckTableSettings(const TableSettings& settings, std::string_view what) {
  if (settings.change_feed && settings.change_feed->retention.count() < 0) {
    return Status::InvalidArgument(std::string(what) + ": the change feed's retention is " +
                                   std::to_string(settings.change_feed->retention.count()) +
                                   " s; it must be 0 (no limit) or more");
  }
  if (settings.ttl_seconds && *settings.ttl_seconds < kTtlNoDefault) {
    return Status::InvalidArgument(std::string(what) + ": ttl_seconds is " +
                                   std::to_string(*settings.ttl_seconds) +
                                   "; it must be 0 (off), -1 (no default) or a number of seconds");
  }
  return Status::OK();
}

Status StoreState::SetTableOptions(std::string_view name, const TableSettings& settings) {
  PARTKV_RETURN_IF_ERROR(CheckTableSettings(settings, "TableSettings"));
  bool maintained = false;
  {
    port::MutexLock lock(&catalog_mu_);
    auto it = tables_.find(LowerCase(name));
    if (it == tables_.end()) {
      return Status::NotFound("table '" + std::string(name) + "' does not exist");
    }
    SharedTable& table = *it->second;
    TableRecord record = table.CurrentRecord();
    rocksdb::WriteBatch wb;
    std::optional<uint64_t> restart_at;
    if (settings.change_feed) {
      if (settings.change_feed->enabled && !record.feed.enabled && record.feed_set) {
        // Turned on again: the changes made while it was off are not in the feed, so every
        // position handed out before (up to the next number, which a caught-up reader holds) is
        // trimmed, durably before the record says the feed is on.
        restart_at = table.feed().next() + 1;
        wb.Put(meta_, FeedTrimKey(record.id), std::to_string(*restart_at));
      }
      record.feed_set = true;
      record.feed = *settings.change_feed;
    }
    if (settings.ttl_seconds) record.ttl_seconds = *settings.ttl_seconds;
    wb.Put(meta_, TableKey(record.name), EncodeTableRecord(record));
    PARTKV_RETURN_IF_ERROR(
        Write(/*sync=*/true, &wb, "set the options of table '" + record.name + "'"));
    if (settings.change_feed) table.feed().SetOptions(*settings.change_feed, restart_at);
    if (settings.ttl_seconds) table.set_ttl_seconds(*settings.ttl_seconds);
    UpdateReclaim(table);
    resume_cache_.Clear();  // a kept stream read with the old time to live
    maintained = NeedsMaintenance(table);
  }
  if (maintained) StartMaintenance();
  return Status::OK();
}

}  // namespace partkv::engine
