// RowSealer: rows validated once, written later — for bulk loads (`partkv import`) that check a
// whole file before writing any of it.
//
// Seal() does to one entity everything Table::Submit does before it takes a lock: the table's
// key scheme, the table's limits (engine/validation.h), the throughput cost and the value
// encoding. What comes out is a *sealed row*: the keys, the entity's size and cost, the encoded
// properties, and a seal — XXH3-64 of all of it, seeded with a random number only this sealer
// knows. Parse() reads a sealed row back and checks its seal: a row damaged in between (sealed
// rows usually wait in a spill file on disk) or made by another sealer is Corruption. Only Parse
// makes a SealedRow, and TableHandle::SubmitSealed takes only SealedRows parsed by the sealer it is
// given, itself made for the same table; it writes them as one atomic batch without rebuilding,
// re-checking or re-encoding the entities. The seal guards against damage and misuse, not
// against an attacker who can read the process's memory.
//
// A sealed row is self-delimiting: rows may be concatenated, stored and read back, within the
// process that sealed them (the seed dies with the sealer). The format is never persisted:
//
//   sealed row = pk_len:varint pk rk_len:varint rk size:varint cost:fixed64 body_len:varint body
//                seal:fixed64
//
// `size` is the entity's size in the table's size model (for the 4 MiB batch limit), `cost` the
// bits of its write cost under the table's profile (for throttling), `body` the value encoding's
// part after its header (docs/format.md "Entity values"), so that SubmitSealed only prepends a
// header with the write's Timestamp and ETag.
//
// Thread-safety: a RowSealer is immutable; Seal and Parse may run on any number of threads.
// REQUIRES: the TableHandle that made it outlives it.

#ifndef PARTKV_ENGINE_LOCAL_ROW_SEALER_H_
#define PARTKV_ENGINE_LOCAL_ROW_SEALER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/value_codec.h"
#include "partkv/batch.h"
#include "partkv/entity.h"
#include "partkv/result.h"

namespace partkv::engine {

class TableHandle;

// One sealed row as parsed and checked by RowSealer::Parse: views into the bytes given to it,
// valid as long as they are (and unchanged).
class SealedRow {
 public:
  SealedRow() = default;
  std::string_view partition_key() const { return partition_key_; }
  std::string_view row_key() const { return row_key_; }
  uint64_t size() const { return size_; }            // the entity's size in the table's size model
  double cost() const { return cost_; }              // its write cost under the table's profile
  std::string_view body() const { return body_; }    // the encoded properties
  std::string_view bytes() const { return bytes_; }  // the whole sealed row

 private:
  friend class RowSealer;
  std::string_view partition_key_, row_key_, body_, bytes_;
  uint64_t size_ = 0;
  double cost_ = 0;
  uint64_t sealer_ = 0;  // the seed of the sealer that parsed it; 0 for none
};

class RowSealer {
 public:
  // The operation every row of this sealer is for: kInsert or kInsertOrReplace.
  OpType type() const { return type_; }

  // Computes `entity`'s missing keys with the table's key scheme, validates it against the
  // table's limits and appends its sealed row to *out. On failure returns what Table::Submit
  // would have returned for the entity (InvalidArgument naming the limit) and leaves *out as it
  // was.
  Status Seal(const Entity& entity, std::string* out) const;

  // Reads the sealed row at the start of `data` into *row. False when `data` holds only the
  // beginning of a row (read more); Corruption when the bytes are malformed or the seal does not
  // match this sealer. row->bytes().size() is how much of `data` the row takes.
  Result<bool> Parse(std::string_view data, SealedRow* row) const;

  // Whether `row` was parsed by this sealer (or a copy of it).
  bool Parsed(const SealedRow& row) const { return row.sealer_ == seed_; }

  const TableHandle& table() const { return *table_; }

 private:
  friend class TableHandle;
  // The seed is odd, so that no default SealedRow passes for parsed.
  RowSealer(const TableHandle* table, OpType type, uint64_t seed)
      : table_(table), type_(type), seed_(seed | 1) {}

  const TableHandle* table_;
  OpType type_;
  uint64_t seed_;
};

// Appends the header of the value encoding (version, Timestamp, ETag version) to *out: a sealed
// row's body after it makes the value EncodeValue(header, entity) would have made.
void AppendValueHeader(const ValueHeader& header, std::string* out);

// The LEB128 varints of sealed rows, for formats that carry sealed rows
// (engine/local/bulk_spill.h). Reading one: kPartial when `data` ends inside it, kBad when it runs
// past 64 bits.
enum class VarintRead { kOk, kPartial, kBad };
void PutVarint(uint64_t v, std::string* out);
VarintRead GetVarint(std::string_view data, size_t* pos, uint64_t* v);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_ROW_SEALER_H_
