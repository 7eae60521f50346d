// The pieces of partkv::CopyTable (partkv/copy.h) that know nothing of stores: the options'
// checks, the mapping of a source entity to its destination image, and how both are written down
// for a checkpoint.
//
// Thread-safety: a CopyMapper is immutable once created; any number of threads may Map at once.

#ifndef PARTKV_API_FRONT_COPY_MAP_H_
#define PARTKV_API_FRONT_COPY_MAP_H_

#include <string>
#include <string_view>
#include <vector>

#include "partkv/copy.h"
#include "partkv/entity.h"
#include "partkv/filter.h"
#include "partkv/result.h"

namespace partkv::copy {

// "(pk, rk)" with the keys quoted as JSON strings, for messages.
std::string KeyText(std::string_view partition_key, std::string_view row_key);
inline std::string KeyText(const Entity& entity) {
  return KeyText(entity.partition_key(), entity.row_key());
}

class CopyMapper {
 public:
  // Checks `options` (InvalidArgument naming the option): a filter that does not parse, a select
  // or keep-as name that is not a property name, a random-suffix scheme, keep-keys-as without
  // re-keying or with only one name, a keep-as name repeated, 0 streams or more than kMaxStreams,
  // a zero group or in-flight bound.
  static Result<CopyMapper> Create(const CopyOptions& options);

  // The properties a source read must return: the selected ones and those the schemes read;
  // empty when every property is needed.
  const std::vector<std::string>& read_select() const { return read_select_; }
  const Filter& filter() const { return filter_; }
  bool rekeys() const { return options_.partition_key || options_.row_key; }

  // Sets *image to what copying `source` writes: the selected properties, the destination keys,
  // the kept keys and Timestamp; no Timestamp or ETag of its own. InvalidArgument naming the
  // source entity when a scheme cannot compute a key from it, or it already has a property a
  // keep-as option names.
  Status Map(const Entity& source, Entity* image) const;

  // Whether the destination's `stored` entity is `image` as written in `mode` (kMerge: every
  // property of the image is there with its value; otherwise the properties are equal).
  bool Holds(const Entity& stored, const Entity& image) const;

  // The options that decide what a copy writes, as one line (for a checkpoint's identity).
  std::string Describe() const;

 private:
  explicit CopyMapper(const CopyOptions& options) : options_(options) {}
  CopyOptions options_;
  Filter filter_;
  std::vector<std::string> select_;  // sorted, unique
  std::vector<std::string> read_select_;
};

}  // namespace partkv::copy

#endif  // PARTKV_API_FRONT_COPY_MAP_H_
