#include "tools/bench/throttle_replay.h"

#include "partkv/batch.h"

namespace partkv::compare {

Result<ThrottleStats> ReplayThrottled(Store& store, ManualClock& clock,
                                      const std::string& table_name, const StrategySpec& spec,
                                      const KeyStrategy& row_key, const std::string& profile,
                                      uint32_t physical_partitions, const DataSet& data,
                                      const std::vector<const BatchPlan*>& batches,
                                      const std::function<void(double)>& tick) {
  TableOptions options;
  options.physical_partitions = physical_partitions;
  options.partition_key_scheme = spec.partition_key;
  options.row_key_scheme = row_key;
  options.profile = profile;
  options.throttling = true;
  PARTKV_RETURN_IF_ERROR(store.CreateTable(table_name, options));
  PARTKV_ASSIGN_OR_RETURN(Table table, store.OpenTable(table_name));

  ThrottleStats stats;
  stats.profile = profile;
  if (!batches.empty()) {
    const int64_t base = batches.front()->send_micros;
    const int64_t start = clock.NowMicros();
    for (size_t k = 0; k < batches.size(); ++k) {
      const BatchPlan& plan = *batches[k];
      const int64_t target = start + (plan.send_micros - base);
      if (target > clock.NowMicros()) clock.Advance(target - clock.NowMicros());
      Batch batch;
      for (uint32_t i : plan.events) {
        PARTKV_ASSIGN_OR_RETURN(Entity e, PlannedEntity(data, i, plan.partition_key, row_key));
        batch.Insert(std::move(e));
      }
      ++stats.offered_calls;
      stats.offered_entities += plan.events.size();
      auto r = table.Submit(batch);
      if (!r.ok()) {
        if (!r.status().IsThrottled()) {
          return r.status().WithContext("throttled replay under " + profile);
        }
        ++stats.throttled_calls;
        stats.throttled_entities += plan.events.size();
      }
      if (k % 64 == 0) tick(static_cast<double>(k + 1) / batches.size());
    }
    stats.replay_seconds = (batches.back()->send_micros - base) / 1e6;
  }
  stats.store_throttled = table.Statistics().total.throttled;
  PARTKV_RETURN_IF_ERROR(store.DropTable(table_name));
  return stats;
}

}  // namespace partkv::compare
