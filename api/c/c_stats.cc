// partkv/c.h: statistics and the census.

#include <cstring>

#include "api/c/c_internal.h"

using namespace partkv;         // NOLINT(build/namespaces): the C functions wrap partkv's API
using namespace partkv::c_api;  // NOLINT(build/namespaces)

namespace {

void CopyStats(const PartitionStats& in, partkv_partition_stats_t* out) {
  out->index = in.index;
  out->reads = in.reads;
  out->writes = in.writes;
  out->bytes_read = in.bytes_read;
  out->bytes_written = in.bytes_written;
  out->throttled = in.throttled;
  out->retry_wait_micros = in.retry_wait_micros;
}

void CopyCensus(const PartitionCensus& in, partkv_partition_census_t* out) {
  out->index = in.index;
  out->hash_lower = in.hash_lower;
  out->hash_upper = in.hash_upper;
  out->entities = in.entities;
  out->bytes = in.bytes;
  out->logical_partitions = in.logical_partitions;
  out->sst_bytes = in.sst_bytes;
}

}  // namespace

extern "C" {

// ---- Statistics ----

partkv_table_stats_t* partkv_table_statistics(const partkv_table_t* table, size_t top) {
  if (table == nullptr) return nullptr;
  return new partkv_table_stats_t{table->table.Statistics(top)};
}

void partkv_table_stats_destroy(partkv_table_stats_t* stats) { delete stats; }

void partkv_table_stats_total(const partkv_table_stats_t* stats, partkv_partition_stats_t* out) {
  if (stats != nullptr && out != nullptr) CopyStats(stats->stats.total, out);
}

size_t partkv_table_stats_partition_count(const partkv_table_stats_t* stats) {
  return stats == nullptr ? 0 : stats->stats.partitions.size();
}

int partkv_table_stats_partition(const partkv_table_stats_t* stats, size_t index,
                                 partkv_partition_stats_t* out) {
  if (stats == nullptr || out == nullptr || index >= stats->stats.partitions.size()) return 0;
  CopyStats(stats->stats.partitions[index], out);
  return 1;
}

size_t partkv_table_stats_hot_count(const partkv_table_stats_t* stats) {
  return stats == nullptr ? 0 : stats->stats.hottest.size();
}

const char* partkv_table_stats_hot(const partkv_table_stats_t* stats, size_t index, size_t* length,
                                   uint64_t* operations, uint64_t* error) {
  if (stats == nullptr || index >= stats->stats.hottest.size()) {
    if (length != nullptr) *length = 0;
    return nullptr;
  }
  const HotPartition& hot = stats->stats.hottest[index];
  if (operations != nullptr) *operations = hot.operations;
  if (error != nullptr) *error = hot.error;
  return Lend(hot.partition_key, length);
}

partkv_status_t* partkv_table_census(const partkv_table_t* table, size_t top, int rank_by_bytes,
                                     partkv_table_census_t** census) {
  if (table == nullptr) return NullArgument("table");
  if (census == nullptr) return NullArgument("census");
  CensusOptions options;
  options.top = top;
  options.rank_by =
      rank_by_bytes != 0 ? CensusOptions::RankBy::kBytes : CensusOptions::RankBy::kEntities;
  Result<TableCensus> counted = table->table.Census(options);
  if (!counted.ok()) return Wrap(counted.status());
  *census = new partkv_table_census_t{std::move(*counted)};
  return nullptr;
}

void partkv_table_census_destroy(partkv_table_census_t* census) { delete census; }

void partkv_table_census_total(const partkv_table_census_t* census,
                               partkv_partition_census_t* out) {
  if (census == nullptr || out == nullptr) return;
  PartitionCensus total;
  total.hash_upper = UINT64_MAX;
  total.entities = census->census.entities;
  total.bytes = census->census.bytes;
  total.logical_partitions = census->census.logical_partitions;
  total.sst_bytes = census->census.sst_bytes;
  CopyCensus(total, out);
}

size_t partkv_table_census_partition_count(const partkv_table_census_t* census) {
  return census == nullptr ? 0 : census->census.partitions.size();
}

int partkv_table_census_partition(const partkv_table_census_t* census, size_t index,
                                  partkv_partition_census_t* out) {
  if (census == nullptr || out == nullptr || index >= census->census.partitions.size()) return 0;
  CopyCensus(census->census.partitions[index], out);
  return 1;
}

size_t partkv_table_census_largest_count(const partkv_table_census_t* census) {
  return census == nullptr ? 0 : census->census.largest.size();
}

const char* partkv_table_census_largest(const partkv_table_census_t* census, size_t index,
                                        size_t* length, uint32_t* physical_partition,
                                        uint64_t* entities, uint64_t* bytes) {
  if (census == nullptr || index >= census->census.largest.size()) {
    if (length != nullptr) *length = 0;
    return nullptr;
  }
  const LogicalPartitionCensus& largest = census->census.largest[index];
  if (physical_partition != nullptr) *physical_partition = largest.physical_partition;
  if (entities != nullptr) *entities = largest.entities;
  if (bytes != nullptr) *bytes = largest.bytes;
  return Lend(largest.partition_key, length);
}

}  // extern "C"
