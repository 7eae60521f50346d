// partkv::Entity — one row of a table: PartitionKey, RowKey, typed properties, and the two
// system properties the store maintains (Timestamp and ETag).
//
// Properties are kept sorted by name (names are case-sensitive, compared as bytes), so
// iteration order is stable and lookups are binary searches. Setting a property that exists
// replaces its value (and possibly its type). Timestamp and ETag are ignored on writes; the
// store fills them in on every entity it returns.
//
// An Entity is a plain copyable value. Validation against the table's limits (key characters and
// sizes, property names, counts and sizes) happens when the entity is written, not here.

#ifndef PARTKV_ENTITY_H_
#define PARTKV_ENTITY_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "partkv/value.h"

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

class Entity {
 public:
  using Property = std::pair<std::string, Value>;
  using const_iterator = std::vector<Property>::const_iterator;

  Entity() = default;
  Entity(std::string partition_key, std::string row_key)
      : partition_key_(std::move(partition_key)), row_key_(std::move(row_key)) {}

  const std::string& partition_key() const { return partition_key_; }
  const std::string& row_key() const { return row_key_; }
  void set_partition_key(std::string pk) { partition_key_ = std::move(pk); }
  void set_row_key(std::string rk) { row_key_ = std::move(rk); }

  // Server-maintained; meaningful on entities returned by the store.
  DateTime timestamp() const { return timestamp_; }
  const std::string& etag() const { return etag_; }
  void set_timestamp(DateTime t) { timestamp_ = t; }
  void set_etag(std::string etag) { etag_ = std::move(etag); }

  // The property's value, or nullptr. The pointer is valid until the entity is next modified.
  const Value* Get(std::string_view name) const;
  // Adds or replaces a property. Returns *this for chaining.
  Entity& Set(std::string name, Value value);
  // Removes a property; returns whether it existed.
  bool Remove(std::string_view name);
  void ClearProperties() { properties_.clear(); }
  void ReserveProperties(size_t n) { properties_.reserve(n); }

  size_t property_count() const { return properties_.size(); }
  const_iterator begin() const { return properties_.begin(); }
  const_iterator end() const { return properties_.end(); }
  const std::vector<Property>& properties() const { return properties_; }

  // Fast path for decoders: appends a property. REQUIRES: `name` sorts after every existing
  // property name (otherwise use Set).
  void AppendSorted(std::string name, Value value) {
    properties_.emplace_back(std::move(name), std::move(value));
  }

  // Keys and properties equal (Timestamp and ETag are not compared).
  bool SameContent(const Entity& other) const {
    return partition_key_ == other.partition_key_ && row_key_ == other.row_key_ &&
           properties_ == other.properties_;
  }

  // A compact one-line rendering for messages and tests:
  // (pk,rk){name=value,...} with values in OData literal form.
  std::string DebugString() const;

 private:
  friend class engine::ValueCodecAccess;  // decodes stored entities in place

  std::string partition_key_;
  std::string row_key_;
  DateTime timestamp_{};
  std::string etag_;
  std::vector<Property> properties_;  // sorted by name, unique names
};

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_ENTITY_H_
