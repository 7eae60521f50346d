// Fuzz target: the key-strategy text parser (KeyStrategy::Parse, partkv/keys.h).
// Properties: never crashes, leaks or hangs; every error is InvalidArgument; an accepted strategy
// validates, Parse(ToString()) gives it back, and computing keys from sample entities either
// succeeds or fails with InvalidArgument.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "partkv/keys.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace partkv;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto s = KeyStrategy::Parse(text);
  if (!s.ok()) {
    FUZZ_CHECK(s.status().IsInvalidArgument());
    return 0;
  }
  FUZZ_CHECK(s->Validate().ok());
  auto again = KeyStrategy::Parse(s->ToString());
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(*again == *s);
  FUZZ_CHECK(again->ToString() == s->ToString());

  Entity e("pk", "rk");
  e.Set("a", Value::String("x")).Set("b", Value::Int32(7)).Set("c", Value::Int64(-3));
  e.Set("d", Value::DateTime(DateTime{636693696000000000})).Set("e", Value::Boolean(true));
  e.Set("f", Value::Double(2.5)).Set("g", Value::Guid(Guid{})).Set("h", Value::Binary("zz"));
  for (const Entity& sample : {e, Entity()}) {
    auto key = s->Compute(sample, 12345);
    if (!key.ok()) {
      FUZZ_CHECK(key.status().IsInvalidArgument());
      continue;
    }
    auto base = s->ComputeBase(sample);
    FUZZ_CHECK(base.ok());
    // (Listing up to 65,535 shard keys per input would slow the fuzzer to a crawl.)
    if ((s->kind() == KeyStrategy::Kind::kRandomSuffix ||
         s->kind() == KeyStrategy::Kind::kHashSuffix) &&
        s->shard_count() <= 4096) {
      bool listed = false;
      for (const auto& k : s->ShardKeys(*base)) listed = listed || k == *key;
      FUZZ_CHECK(listed);
    }
  }
  return 0;
}
