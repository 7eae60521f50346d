// How partkv::CopyTable (partkv/copy.h) reads its source: the source's layout in units and a
// reader per unit, each returning the unit's entities in key order from after a given key.
//
// A local source's unit is a physical partition, read from one snapshot shared by every unit
// (engine/local/partition_reader.h). A remote source's unit is a PartitionKey range, read with
// paged queries; the ranges are found by probing (PlanRemoteRanges).

#ifndef PARTKV_API_FRONT_COPY_SOURCE_H_
#define PARTKV_API_FRONT_COPY_SOURCE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/front/copy_checkpoint.h"
#include "api/front/copy_map.h"
#include "engine/local/partition_reader.h"
#include "partkv/table.h"

namespace partkv::copy {

// One unit's entities, in (PartitionKey, RowKey) order, the filter applied, properties as
// CopyMapper::read_select() asks.
class UnitReader {
 public:
  virtual ~UnitReader() = default;
  // Replaces *out with the next entities; empty at the end of the unit.
  virtual Status Next(std::vector<Entity>* out) = 0;
  // Stored bytes read so far (a local source), for estimates.
  virtual uint64_t bytes_read() const { return 0; }
};

// A source table and how it is read.
class Source {
 public:
  // `from`'s source. A local table's snapshot is taken here.
  static Result<Source> Open(const Table& from, const CopyMapper& mapper);

  bool local() const { return snapshot_ != nullptr; }
  // A local source's layout (its physical partitions).
  SourceLayout LocalLayout() const;
  // A remote source's layout: about `units` PartitionKey ranges found by probing (at most
  // kMaxRangeProbes queries, counted in *probes); one range covering every key when units is 1.
  Result<SourceLayout> PlanRemoteRanges(uint32_t units, uint64_t* probes) const;
  // A local source's stored bytes (an estimate), for the row estimate.
  uint64_t ApproximateBytes() const;

  // The reader of unit `index` of `layout`, after `after` when given.
  Result<std::unique_ptr<UnitReader>> OpenUnit(
      const SourceLayout& layout, size_t index,
      const std::optional<std::pair<std::string, std::string>>& after) const;

 private:
  Source(const Table& from, const CopyMapper& mapper) : from_(from), mapper_(&mapper) {}
  Table from_;
  const CopyMapper* mapper_;
  std::shared_ptr<engine::TableSnapshot> snapshot_;
};

}  // namespace partkv::copy

#endif  // PARTKV_API_FRONT_COPY_SOURCE_H_
