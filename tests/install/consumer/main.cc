// An application that knows partkv only through its installed headers and CMake package. It
// includes every public header and calls something declared in each, so that a declaration the
// library does not export fails this program's link.
#include <chrono>
#include <cstdio>
#include <string>

#include "partkv/analyzer.h"
#include "partkv/base64.h"
#include "partkv/batch.h"
#include "partkv/census.h"
#include "partkv/clock.h"
#include "partkv/copy.h"
#include "partkv/entity.h"
#include "partkv/filter.h"
#include "partkv/if_match.h"
#include "partkv/json.h"
#include "partkv/keys.h"
#include "partkv/options.h"
#include "partkv/partkv.h"
#include "partkv/profile.h"
#include "partkv/query.h"
#include "partkv/result.h"
#include "partkv/stats.h"
#include "partkv/status.h"
#include "partkv/store.h"
#include "partkv/stored_entity.h"
#include "partkv/table.h"
#include "partkv/table_info.h"
#include "partkv/value.h"

namespace {

int Fail(const char* what, const partkv::Status& s) {
  std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  partkv::StoreOptions options;
  options.profile = partkv::ProfileNames().front();
  auto store = partkv::Store::Open(argv[1], options);
  if (!store.ok()) return Fail("open", store.status());
  partkv::TableOptions table_options;
  auto scheme = partkv::KeyStrategy::Parse("concat(Device,Day)");
  if (!scheme.ok()) return Fail("scheme", scheme.status());
  table_options.partition_key_scheme = *scheme;
  if (auto s = store->CreateTable("Things", table_options); !s.ok()) return Fail("create", s);
  auto table = store->OpenTable("Things");
  if (!table.ok()) return Fail("open table", table.status());

  // value.h, entity.h, json.h, base64.h
  partkv::Entity e("p", "r");
  e.Set("n", partkv::Value::Int32(42));
  e.Set("when", partkv::Value::DateTime(*partkv::DateTime::Parse("2026-12-01T00:00:00Z")));
  e.Set("blob", partkv::Value::Binary(*partkv::Base64Decode(partkv::Base64Encode("bytes"))));
  auto parsed = partkv::EntityFromJson(partkv::EntityToJson(e));
  if (!parsed.ok()) return Fail("json", parsed.status());

  // table.h, table_info.h, if_match.h, batch.h
  auto written = table->Insert(*parsed);
  if (!written.ok()) return Fail("insert", written.status());
  e.Set("n", partkv::Value::Int32(42));
  if (auto r = table->Replace(e, partkv::IfMatch::ETag(written->etag)); !r.ok()) {
    return Fail("replace", r.status());
  }
  partkv::Batch batch;
  batch.Insert(partkv::Entity("p", "r2")).Insert(partkv::Entity("p", "r3"));
  if (auto r = table->Submit(batch); !r.ok()) return Fail("batch", r.status());
  if (partkv::OpTypeName(partkv::OpType::kInsert) != "insert") return 1;
  if (auto s = table->SetAccessPolicies({partkv::AccessPolicy{"reader", {}, {}, "r"}}); !s.ok()) {
    return Fail("acl", s);
  }
  auto infos = store->ListTables();
  if (!infos.ok() || infos->size() != 1 || infos->front().partition_key_scheme.empty()) {
    return Fail("list", infos.status());
  }

  // keys.h: the table's scheme computes the PartitionKey.
  partkv::Entity keyed("", "k");
  keyed.Set("Device", partkv::Value::String("dev1"));
  keyed.Set("Day", partkv::Value::String("2026-12-01"));
  if (auto r = table->Insert(keyed); !r.ok()) return Fail("keyed insert", r.status());
  auto strategy = partkv::KeyStrategy::Parse("hash-suffix(Device,Day,4)");
  if (!strategy.ok()) return Fail("strategy", strategy.status());
  if (partkv::DescendingTicksKey(partkv::DateTime{1}).empty()) return 1;

  // query.h, stats.h
  partkv::Query query;
  query.partition_key = "p";
  query.filter = "n eq 42";
  auto page = table->QueryEntities(query);
  if (!page.ok() || page->entities.size() != 1) return Fail("query", page.status());
  partkv::TableStats stats = table->Statistics();
  if (stats.total.writes == 0) return 1;

  // census.h, filter.h, stored_entity.h
  auto census = table->Census();
  if (!census.ok() || census->entities != 4) return Fail("census", census.status());
  auto filter = partkv::Filter::Parse("n eq 42 and PartitionKey eq 'p'");
  if (!filter.ok() || !filter->Matches(e)) return Fail("filter", filter.status());
  if (partkv::EncodeStoredEntity(e, partkv::DateTime{1}, 1).key.empty()) return 1;
  if (table->PhysicalPartitionOf("p") >= infos->front().physical_partitions) return 1;

  // analyzer.h, profile.h, clock.h
  auto analyzer = partkv::Analyzer::Create(*strategy);
  if (!analyzer.ok()) return Fail("analyzer", analyzer.status());
  analyzer->Add(keyed);
  if (partkv::AnalysisReportToJson(analyzer->Finish()).empty()) return 1;
  partkv::ManualClock clock;
  int calls = 0;
  partkv::Status retried = partkv::RetryThrottled(
      [&] {
        return ++calls < 2 ? partkv::Status::Throttled("busy", std::chrono::milliseconds(10))
                           : partkv::Status::OK();
      },
      clock);
  if (!retried.ok() || calls != 2) return Fail("retry", retried);
  if (partkv::CheckProfileName("dynamodb").ok() == false) return 1;
  if (partkv::DynamoDbWriteUnits(1025) != 2) return 1;

  // copy.h
  partkv::CopyOptions copy_options;
  copy_options.partition_key = *partkv::KeyStrategy::Parse("random-suffix(n,4)");
  if (partkv::CheckCopyOptions(copy_options).ok()) return 1;  // a random suffix is refused
  if (!partkv::CheckCopyOptions(partkv::CopyOptions{}).ok()) return 1;

  auto back = table->Get("p", "r");
  if (!back.ok() || back->Get("n") == nullptr) return Fail("get", back.status());
  std::printf("read back: %d\n", back->Get("n")->as_int32());
  return 0;
}
