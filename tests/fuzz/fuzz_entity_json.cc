// Fuzz target: the JSON entity parser (EntityFromJson, partkv/json.h) on arbitrary text.
// Properties: never crashes, leaks or hangs; every error is InvalidArgument; an accepted entity
// written back with EntityToJson (minimal and full metadata) reads back with the same content
// (a NaN may come back as another NaN: the documented exception); and its fast reader
// (engine/vocab/json_internal.h) accepts nothing the exact reader rejects, with the same content.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/vocab/json_internal.h"
#include "partkv/json.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

bool SameModuloNaN(const partkv::Entity& a, const partkv::Entity& b) {
  if (a.partition_key() != b.partition_key() || a.row_key() != b.row_key() ||
      a.property_count() != b.property_count()) {
    return false;
  }
  for (size_t i = 0; i < a.property_count(); ++i) {
    const auto& [na, va] = a.properties()[i];
    const auto& [nb, vb] = b.properties()[i];
    if (na != nb) return false;
    if (va.type() == partkv::Type::kDouble && vb.type() == partkv::Type::kDouble &&
        std::isnan(va.as_double()) && std::isnan(vb.as_double())) {
      continue;
    }
    if (va != vb) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace partkv;
  std::string_view json(reinterpret_cast<const char*>(data), size);
  auto e = EntityFromJson(json);
  auto strict = EntityFromJson(json, {.require_keys = true});
  for (JsonReadOptions options : {JsonReadOptions{}, JsonReadOptions{.require_keys = true}}) {
    auto exact = json_internal::ExactEntityFromJson(json, options);
    if (auto fast = json_internal::FastEntityFromJson(json, options)) {
      FUZZ_CHECK(exact.ok());
      FUZZ_CHECK(SameModuloNaN(*fast, *exact));
    }
  }
  if (!e.ok()) {
    FUZZ_CHECK(e.status().IsInvalidArgument());
    FUZZ_CHECK(!strict.ok());
    return 0;
  }
  if (!strict.ok()) FUZZ_CHECK(strict.status().IsInvalidArgument());
  for (JsonMetadata m : {JsonMetadata::kMinimal, JsonMetadata::kFull}) {
    std::string out = EntityToJson(*e, {.metadata = m});
    auto back = EntityFromJson(out);
    FUZZ_CHECK(back.ok());
    FUZZ_CHECK(SameModuloNaN(*back, *e));
  }
  (void)EntityToJson(*e, {.metadata = JsonMetadata::kNone});
  return 0;
}
