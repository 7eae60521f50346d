// partkv-codec-bench: the costs under every store operation, one Google Benchmark each, on the
// benchmark entity layout of bench_common.h (25 B keys, 8 typed properties, ~195 B values):
//
//   key codec     EncodeKey (escape + terminator) against a plain concatenation of the same
//                 bytes (the raw counterpart: what RocksDB would be given with no escaping), and
//                 DecodeKey
//   value codec   EncodeValue, DecodeValue (header and every property), DecodeValueHeader
//                 (what an ETag check reads)
//   routing       the XXH3 hash that picks a physical partition
//   tokens        EncodeToken / DecodeToken (HMAC-SHA256 sealed, base64url)
//
// Each benchmark reports items/s; a mismatch between what is encoded and what comes back is an
// error of the run, not a number.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "engine/key_codec.h"
#include "engine/local/shared_table.h"
#include "engine/token.h"
#include "engine/value_codec.h"
#include "partkv/entity.h"

namespace partkv::bench {
namespace {

constexpr uint64_t kEntities = 1024;  // a working set that stays in the L2 cache

const std::vector<Entity>& Entities() {
  static const std::vector<Entity> entities = [] {
    std::vector<Entity> v;
    v.reserve(kEntities);
    for (uint64_t i = 0; i < kEntities; ++i) v.push_back(MakeEntity(i * 7919));
    return v;
  }();
  return entities;
}

const std::vector<std::string>& EncodedKeys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> v;
    for (const Entity& e : Entities())
      v.push_back(engine::EntityKey(e.partition_key(), e.row_key()));
    return v;
  }();
  return keys;
}

const std::vector<std::string>& EncodedValues() {
  static const std::vector<std::string> values = [] {
    std::vector<std::string> v;
    for (uint64_t i = 0; i < kEntities; ++i) {
      std::string out;
      engine::EncodeValue(engine::ValueHeader{638000000000000000 + static_cast<int64_t>(i), i + 1},
                          Entities()[i], &out);
      v.push_back(std::move(out));
    }
    return v;
  }();
  return values;
}

void BM_EncodeKey(benchmark::State& state) {
  const auto& entities = Entities();
  std::string key;
  uint64_t i = 0;
  for (auto _ : state) {
    const Entity& e = entities[i++ % kEntities];
    key.clear();
    engine::AppendEntityKey(e.partition_key(), e.row_key(), &key);
    benchmark::DoNotOptimize(key.data());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_RawConcatKey(benchmark::State& state) {
  const auto& entities = Entities();
  std::string key;
  uint64_t i = 0;
  for (auto _ : state) {
    const Entity& e = entities[i++ % kEntities];
    key.clear();
    key.append(e.partition_key());
    key.push_back('\0');
    key.append(e.row_key());
    benchmark::DoNotOptimize(key.data());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_DecodeKey(benchmark::State& state) {
  const auto& keys = EncodedKeys();
  const auto& entities = Entities();
  std::string pk, rk;
  uint64_t i = 0;
  for (auto _ : state) {
    uint64_t n = i++ % kEntities;
    Status s = engine::DecodeEntityKey(keys[n], &pk, &rk);
    if (!s.ok() || pk != entities[n].partition_key() || rk != entities[n].row_key()) {
      state.SkipWithError("a decoded key differs from the encoded one");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_RouteXxh3(benchmark::State& state) {
  const auto& entities = Entities();
  uint64_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(engine::HashBytes(entities[i++ % kEntities].partition_key()));
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_EncodeValue(benchmark::State& state) {
  const auto& entities = Entities();
  std::string out;
  uint64_t i = 0;
  for (auto _ : state) {
    out.clear();
    engine::EncodeValue(engine::ValueHeader{638000000000000000, i + 1}, entities[i % kEntities],
                        &out);
    ++i;
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * EncodedValues()[0].size()));
}

void BM_DecodeValue(benchmark::State& state) {
  const auto& values = EncodedValues();
  const auto& entities = Entities();
  uint64_t i = 0;
  for (auto _ : state) {
    uint64_t n = i++ % kEntities;
    Entity e(entities[n].partition_key(), entities[n].row_key());
    engine::ValueHeader h;
    Status s = engine::DecodeValue(values[n], &h, &e);
    if (!s.ok() || e.property_count() != entities[n].property_count()) {
      state.SkipWithError("a decoded value differs from the encoded one");
      break;
    }
    benchmark::DoNotOptimize(&e);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_DecodeValueHeader(benchmark::State& state) {
  const auto& values = EncodedValues();
  uint64_t i = 0;
  for (auto _ : state) {
    uint64_t n = i++ % kEntities;
    engine::ValueHeader h;
    Status s = engine::DecodeValueHeader(values[n], &h);
    if (!s.ok() || h.etag_version != n + 1) {
      state.SkipWithError("a decoded header differs from the encoded one");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
}

constexpr std::string_view kSecret = "0123456789abcdef0123456789abcdef";

void BM_EncodeToken(benchmark::State& state) {
  const auto& keys = EncodedKeys();
  uint64_t i = 0;
  for (auto _ : state) {
    engine::TokenContents c{0, 0x9e3779b97f4a7c15ULL, keys[i++ % kEntities]};
    std::string token = engine::EncodeToken(kSecret, c);
    benchmark::DoNotOptimize(token.data());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_DecodeToken(benchmark::State& state) {
  const auto& keys = EncodedKeys();
  std::vector<std::string> tokens;
  for (const auto& k : keys) tokens.push_back(engine::EncodeToken(kSecret, {0, 42, k}));
  uint64_t i = 0;
  for (auto _ : state) {
    uint64_t n = i++ % kEntities;
    auto c = engine::DecodeToken(kSecret, tokens[n], 42);
    if (!c.ok() || c->resume_key != keys[n]) {
      state.SkipWithError("a decoded token differs from the encoded one");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_EncodeKey);
BENCHMARK(BM_RawConcatKey);
BENCHMARK(BM_DecodeKey);
BENCHMARK(BM_RouteXxh3);
BENCHMARK(BM_EncodeValue);
BENCHMARK(BM_DecodeValue);
BENCHMARK(BM_DecodeValueHeader);
BENCHMARK(BM_EncodeToken);
BENCHMARK(BM_DecodeToken);

}  // namespace
}  // namespace partkv::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  partkv::bench::PrintConfiguration(stdout, "partkv-codec-bench: codecs, routing and tokens", {});
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
