// FastEntityJson: a fast path for partkv::EntityFromJson over the entity shapes bulk files are
// made of, for `import` and `analyze`.
//
// EntityFromJson (the library's reader, on nlohmann/json's SAX parser) costs about 10 us for a
// 400-byte entity: four times what the store takes to write it in a batch, so an import that used
// it alone could not reach half the store's batch-insert rate. This reader parses with simdjson's
// On-Demand API instead (about 0.3 us a line) and builds the Entity itself, following the rules
// of docs/json.md, but only for the plain cases: a flat object of strings, numbers, booleans and
// nulls, valid "@odata.type" annotations, keys that are strings, integers written as integer
// literals. For anything else — an error of any kind, a nested value, a duplicate member, an
// unusual annotation, a number form the library decides on its digits — it declines (nullopt),
// and the caller asks EntityFromJson, which gives the library's answer and its exact message. So
// it never accepts what the library rejects, and what it accepts has the content the library
// would give (tests/tools/fast_entity_json_test.cc checks both on every type and edge form).
//
// It belongs in the library, behind EntityFromJson itself; until then it lives here. Built
// without simdjson (libsimdjson-dev), it declines every document, so the tool works the same,
// only slower.
//
// A FastEntityJson holds a simdjson parser and a scratch buffer: use one per thread.

#ifndef PARTKV_TOOLS_CLI_FAST_ENTITY_JSON_H_
#define PARTKV_TOOLS_CLI_FAST_ENTITY_JSON_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "partkv/entity.h"
#include "partkv/json.h"
#include "partkv/result.h"

namespace partkv::cli {

class FastEntityJson {
 public:
  FastEntityJson();
  ~FastEntityJson();
  FastEntityJson(const FastEntityJson&) = delete;
  FastEntityJson& operator=(const FastEntityJson&) = delete;

  // The entity, or nullopt when this reader declines `json` (see above).
  std::optional<Entity> TryParse(std::string_view json, const JsonReadOptions& options = {});

  // TryParse, else EntityFromJson: always the library's answer.
  Result<Entity> Parse(std::string_view json, const JsonReadOptions& options = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace partkv::cli

#endif  // PARTKV_TOOLS_CLI_FAST_ENTITY_JSON_H_
