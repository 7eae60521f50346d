// Fuzz target: the OData $filter parser (engine/filter_expr.h) on arbitrary text.
// Properties: never crashes, leaks or hangs; every error is InvalidArgument; an accepted filter's
// Canonical() text parses back to the same canonical text (unless its added parentheses pass the
// nesting limit, the one documented exception) and matches the same entities.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/filter_expr.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

partkv::Entity Sample(int variant) {
  using partkv::Value;
  partkv::Entity e(variant == 0 ? "p" : "pk'x", variant == 0 ? "r" : "");
  e.set_timestamp(partkv::DateTime{variant == 0 ? 0 : 638000000000000000});
  if (variant == 0) {
    e.Set("Age", Value::Int32(30)).Set("Name", Value::String("Ann"));
    e.Set("Big", Value::Int64(1)).Set("Ok", Value::Boolean(true));
    e.Set("Ratio", Value::Double(1.5)).Set("Blob", Value::Binary(std::string("\x00\xff", 2)));
  } else {
    e.Set("Age", Value::Int64(-7)).Set("Name", Value::Double(std::nan("")));
    e.Set("When", Value::DateTime(partkv::DateTime{1}));
    e.Set("Id", Value::Guid(partkv::Guid{}));
  }
  return e;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using partkv::engine::Filter;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto f = Filter::Parse(text);
  if (!f.ok()) {
    FUZZ_CHECK(f.status().IsInvalidArgument());
    return 0;
  }
  const partkv::Entity samples[] = {Sample(0), Sample(1)};
  bool matches[2];
  for (int i = 0; i < 2; ++i) matches[i] = f->Matches(samples[i]);
  (void)f->key_conditions();
  (void)f->PropertyNames();
  std::string canonical = f->Canonical();
  auto again = Filter::Parse(canonical);
  if (!again.ok()) {
    // Only the nesting limit may refuse a canonical text (it adds parentheses).
    FUZZ_CHECK(std::string(again.status().message()).find("nest") != std::string::npos);
    return 0;
  }
  FUZZ_CHECK(again->Canonical() == canonical);
  for (int i = 0; i < 2; ++i) FUZZ_CHECK(again->Matches(samples[i]) == matches[i]);
  return 0;
}
