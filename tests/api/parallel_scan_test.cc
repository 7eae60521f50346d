// Parallel scans (docs/design.md "Queries"): a query over several physical partitions reads them on
// the store's scan threads (StoreOptions::scan_threads), and its pages, entity for entity, and its
// continuation tokens are the same whatever the number of threads; pages bounded by bytes
// (Query::page_bytes) and by time (Query::scan_time_budget); and a store whose scan pool runs
// closes cleanly when its last handle goes, queries in flight or not.
//
// The thread-count comparisons open byte-for-byte copies of one closed store directory, one copy
// per thread count. The copies share the store's token secret, so their tokens must be identical
// too, and every page of every copy is checked against a model the test keeps of what it wrote.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <latch>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "partkv/partkv.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;

using Key = std::pair<std::string, std::string>;  // (PartitionKey, RowKey)
// What the test wrote, in the order of an ascending table-wide query.
using Model = std::map<Key, Entity>;
using Predicate = std::function<bool(const Entity&)>;
bool Everything(const Entity&) { return true; }

constexpr size_t kThreadCounts[] = {1, 2, 8};
constexpr uint32_t kPartitionCounts[] = {1, 16, 64};
// Far more pages than any query here should need: a query that has not ended by then never will.
constexpr size_t kMaxPages = 20000;

Key KeyOf(const Entity& e) { return {e.partition_key(), e.row_key()}; }
std::string TableName(uint32_t physical_partitions) {
  return "Parts" + std::to_string(physical_partitions);
}
int32_t ValueOf(const Entity& e) {
  const Value* v = e.Get("Value");
  return v != nullptr && v->type() == Type::kInt32 ? v->as_int32() : -1;
}

// The store at `path` opened with `scan_threads`; nullopt, and the test failed, when it does not
// open.
std::optional<Store> OpenStore(const std::string& path, size_t scan_threads) {
  StoreOptions options;
  options.scan_threads = scan_threads;
  auto store = Store::Open(path, options);
  if (!store.ok()) {
    ADD_FAILURE() << path << ": " << store.status().ToString();
    return std::nullopt;
  }
  return std::move(*store);
}
std::optional<Table> OpenTable(const Store& store, const std::string& name) {
  auto table = store.OpenTable(name);
  if (!table.ok()) {
    ADD_FAILURE() << name << ": " << table.status().ToString();
    return std::nullopt;
  }
  return std::move(*table);
}
// Creates table `name` of `partitions` physical partitions in `store` and opens it; nullopt, and
// the test failed, when either fails.
std::optional<Table> CreateTable(Store& store, const std::string& name, uint32_t partitions) {
  TableOptions options;
  options.physical_partitions = partitions;
  Status s = store.CreateTable(name, options);
  if (!s.ok()) {
    ADD_FAILURE() << name << ": " << s.ToString();
    return std::nullopt;
  }
  return OpenTable(store, name);
}
// OpenTable of `name` in each of `stores`.
std::vector<Table> OpenTables(const std::vector<Store>& stores, const std::string& name) {
  std::vector<Table> tables;
  for (const Store& s : stores) {
    if (std::optional<Table> t = OpenTable(s, name)) tables.push_back(std::move(*t));
  }
  return tables;
}

// Writes `entities` in batches of at most 100 that share a PartitionKey, as a batch's must.
void WriteAll(Table& table, const std::vector<Entity>& entities) {
  std::map<std::string, std::vector<const Entity*>> by_pk;
  for (const Entity& e : entities) by_pk[e.partition_key()].push_back(&e);
  for (const auto& [pk, rows] : by_pk) {
    Batch b;
    for (const Entity* e : rows) {
      b.Insert(*e);
      if (b.size() == 100) {
        auto r = table.Submit(b);
        ASSERT_OK(r);
        b.Clear();
      }
    }
    if (!b.empty()) {
      auto r = table.Submit(b);
      ASSERT_OK(r);
    }
  }
}

// Every page of `q` from the first to the last; after_page(n) runs after page n (1-based) when
// another follows. A page that fails, or hands back the token it was given (no progress), ends
// the run with a test failure.
std::vector<Page> PageThrough(const Table& table, Query q,
                              const std::function<void(size_t)>& after_page = nullptr) {
  std::vector<Page> pages;
  while (pages.size() < kMaxPages) {
    auto page = table.QueryEntities(q);
    if (!page.ok()) {
      ADD_FAILURE() << "page " << pages.size() + 1 << ": " << page.status().ToString();
      return pages;
    }
    pages.push_back(std::move(*page));
    const Page& last = pages.back();
    if (!last.has_more()) return pages;
    if (last.continuation == q.continuation) {
      ADD_FAILURE() << "page " << pages.size() << " returned the token it was given";
      return pages;
    }
    if (after_page) after_page(pages.size());
    q.continuation = last.continuation;
  }
  ADD_FAILURE() << "no last page after " << kMaxPages << " pages";
  return pages;
}

std::vector<const Entity*> Concatenated(const std::vector<Page>& pages) {
  std::vector<const Entity*> out;
  for (const Page& p : pages) {
    for (const Entity& e : p.entities) out.push_back(&e);
  }
  return out;
}

// The entities of `model` a query of `match` returns, in its order.
std::vector<const Entity*> Expected(const Model& model, const Predicate& match, bool descending) {
  std::vector<const Entity*> out;
  for (const auto& [key, e] : model) {
    if (match(e)) out.push_back(&e);
  }
  if (descending) std::reverse(out.begin(), out.end());
  return out;
}

// "" when the pages hold exactly `want`, in order (keys and properties); else the first
// difference.
std::string ResultDiff(const std::vector<Page>& pages, const std::vector<const Entity*>& want) {
  std::vector<const Entity*> got = Concatenated(pages);
  for (size_t i = 0; i < std::max(got.size(), want.size()); ++i) {
    if (i == got.size()) {
      return "missing from entity " + std::to_string(i) + ": " + want[i]->DebugString();
    }
    if (i == want.size()) {
      return "extra entity " + std::to_string(i) + ": " + got[i]->DebugString();
    }
    if (!got[i]->SameContent(*want[i])) {
      return "entity " + std::to_string(i) + " is " + got[i]->DebugString() + ", want " +
             want[i]->DebugString();
    }
  }
  return "";
}

// One page as compared across thread counts: each entity rendered with its properties (and,
// with `system`, its ETag and Timestamp), then the continuation token ("" on the last page).
struct PageRecord {
  std::vector<std::string> entities;
  std::string continuation;
};
std::vector<PageRecord> Records(const std::vector<Page>& pages, bool system) {
  std::vector<PageRecord> out;
  for (const Page& p : pages) {
    PageRecord r;
    for (const Entity& e : p.entities) {
      std::string s = e.DebugString();
      if (system) s += " etag=" + e.etag() + " ts=" + std::to_string(e.timestamp().ticks);
      r.entities.push_back(std::move(s));
    }
    r.continuation = p.continuation;
    out.push_back(std::move(r));
  }
  return out;
}
// "" when `a` and `b` are the same pages; else the first difference.
std::string PagesDiff(const std::vector<PageRecord>& a, const std::vector<PageRecord>& b) {
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    const std::string page = "page " + std::to_string(i + 1) + ": ";
    if (a[i].entities.size() != b[i].entities.size()) {
      return page + std::to_string(a[i].entities.size()) + " vs " +
             std::to_string(b[i].entities.size()) + " entities";
    }
    for (size_t j = 0; j < a[i].entities.size(); ++j) {
      if (a[i].entities[j] != b[i].entities[j]) {
        return page + "entity " + std::to_string(j) + ": " + a[i].entities[j] + " vs " +
               b[i].entities[j];
      }
    }
    if (a[i].continuation != b[i].continuation) {
      return page + "token '" + a[i].continuation + "' vs '" + b[i].continuation + "'";
    }
  }
  if (a.size() != b.size()) {
    return std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " pages";
  }
  return "";
}

std::string Word(std::mt19937& rng, size_t min_length, size_t max_length) {
  static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::string w(std::uniform_int_distribution<size_t>(min_length, max_length)(rng), 'a');
  for (char& c : w) c = kLetters[rng() % (sizeof kLetters - 1)];
  return w;
}

// `n` entities over PartitionKeys "p0".."p99" (whose byte order is not their numeric order),
// the low ones more often; RowKeys of 1..10 letters and the entity's number, so RowKeys interleave
// across partitions; and five typed properties. Value is i % 100, so `Value eq 7` matches 1%.
std::vector<Entity> MakeEntities(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Entity> out;
  for (int i = 0; i < n; ++i) {
    const uint32_t p = std::min(rng() % 100, rng() % 100);
    Entity e("p" + std::to_string(p), Word(rng, 1, 10) + "_" + std::to_string(i));
    e.Set("Value", Value::Int32(i % 100))
        .Set("Name", Value::String(Word(rng, 0, 30)))
        .Set("Score", Value::Double(std::uniform_real_distribution<double>(-1, 1)(rng)))
        .Set("Flag", Value::Boolean(i % 3 == 0))
        .Set("Big", Value::Int64(int64_t{i} * 1'000'000'007));
    out.push_back(std::move(e));
  }
  return out;
}

struct Shape {
  std::string name;
  Query query;
  Predicate matches;
};
std::vector<Shape> Shapes() {
  std::vector<Shape> shapes;
  shapes.push_back({"whole table", Query(), Everything});
  Query q;
  q.filter = "Value eq 7";
  shapes.push_back({q.filter, q, [](const Entity& e) { return ValueOf(e) == 7; }});
  q.filter = "Value eq 1000";
  shapes.push_back({q.filter, q, [](const Entity&) { return false; }});
  q.filter = "PartitionKey ge 'p10' and PartitionKey lt 'p40'";
  shapes.push_back({q.filter, q, [](const Entity& e) {
                      return e.partition_key() >= "p10" && e.partition_key() < "p40";
                    }});
  q.filter.clear();
  q.row_lower = Bound::Inclusive("f");
  q.row_upper = Bound::Exclusive("m");
  shapes.push_back({"RowKey in [f, m)", q,
                    [](const Entity& e) { return e.row_key() >= "f" && e.row_key() < "m"; }});
  return shapes;
}

struct Paging {
  std::string name;
  uint32_t page_size = Query::kMaxPageSize;
  uint64_t scan_budget = 0;
  size_t page_bytes = 0;

  Query Apply(Query q, bool descending) const {
    q.page_size = page_size;
    q.scan_budget = scan_budget;
    q.page_bytes = page_bytes;
    q.descending = descending;
    return q;
  }
};
const std::vector<Paging>& Pagings() {
  static const std::vector<Paging> pagings = {
      {"defaults"},
      {"page_size 7", 7},
      {"page_size 100", 100},
      {"scan_budget 5", 1000, 5},
      {"scan_budget 50", 100, 50},
      {"scan_budget 2000", 1000, 2000},
      {"page_bytes 3000", 1000, 0, 3000},
  };
  return pagings;
}

// One store of MakeEntities written to tables of 1, 16 and 64 physical partitions, closed, and
// opened once per kThreadCounts from a copy of its directory.
class ParallelScanTest : public ::testing::Test {
 protected:
  static constexpr int kEntities = 2400;

  void SetUp() override {
    const std::string pristine = dir_.Sub("pristine");
    {
      std::optional<Store> store = OpenStore(pristine, 1);
      ASSERT_TRUE(store);
      const std::vector<Entity> entities = MakeEntities(kEntities, 20261202);
      for (uint32_t n : kPartitionCounts) {
        TableOptions options;
        options.physical_partitions = n;
        ASSERT_OK(store->CreateTable(TableName(n), options));
        std::optional<Table> table = OpenTable(*store, TableName(n));
        ASSERT_TRUE(table);
        ASSERT_NO_FATAL_FAILURE(WriteAll(*table, entities));
        for (const Entity& e : entities) models_[n].emplace(KeyOf(e), e);
      }
      ASSERT_EQ(models_[1].size(), static_cast<size_t>(kEntities));  // the keys are unique
    }
    for (size_t threads : kThreadCounts) {
      const std::string copy = dir_.Sub("threads" + std::to_string(threads));
      std::filesystem::copy(pristine, copy, std::filesystem::copy_options::recursive);
      std::optional<Store> store = OpenStore(copy, threads);
      ASSERT_TRUE(store);
      stores_.push_back(std::move(*store));
    }
  }

  testing::TempDir dir_;
  std::map<uint32_t, Model> models_;  // by physical partition count
  std::vector<Store> stores_;         // by kThreadCounts
};

TEST_F(ParallelScanTest, PagesAndTokensAreTheSameForEveryThreadCount) {
  for (uint32_t partitions : kPartitionCounts) {
    std::vector<Table> tables = OpenTables(stores_, TableName(partitions));
    ASSERT_EQ(tables.size(), stores_.size());
    for (bool descending : {false, true}) {
      for (const Shape& shape : Shapes()) {
        const auto want = Expected(models_[partitions], shape.matches, descending);
        for (const Paging& paging : Pagings()) {
          SCOPED_TRACE(std::to_string(partitions) + " partitions, " +
                       (descending ? "descending, " : "ascending, ") + shape.name + ", " +
                       paging.name);
          const Query q = paging.Apply(shape.query, descending);
          std::vector<std::vector<PageRecord>> runs;
          for (size_t i = 0; i < tables.size(); ++i) {
            std::vector<Page> pages = PageThrough(tables[i], q);
            for (const Page& p : pages) ASSERT_LE(p.entities.size(), q.page_size);
            ASSERT_EQ(ResultDiff(pages, want), "") << kThreadCounts[i] << " scan threads";
            runs.push_back(Records(pages, /*system=*/true));
          }
          for (size_t i = 1; i < runs.size(); ++i) {
            ASSERT_EQ(PagesDiff(runs[0], runs[i]), "")
                << kThreadCounts[0] << " vs " << kThreadCounts[i] << " scan threads";
          }
        }
      }
    }
  }
}

// The writes made between two pages of a query: the same in every copy of the store.
struct Writes {
  std::vector<Entity> inserts;
  std::vector<Entity> updates;  // Replace of an existing entity; Value unchanged
  std::vector<Key> deletes;
};

// Three groups of writes to `model`, spread over the key space (so some land behind a query's
// position and some ahead of it): each inserts 5 new entities (2 of them with Value 7), replaces
// 2 entities `match` selects and 3 others, and deletes as many. `run` makes the new keys unique.
std::vector<Writes> PlanWrites(const Model& model, const Predicate& match, int run) {
  std::mt19937 rng(run);
  std::vector<Key> matching, any;
  for (const auto& [key, e] : model) (match(e) ? matching : any).push_back(key);
  std::shuffle(matching.begin(), matching.end(), rng);
  std::shuffle(any.begin(), any.end(), rng);
  std::vector<Writes> groups(3);
  for (int g = 0; g < 3; ++g) {
    Writes& w = groups[g];
    for (int k = 0; k < 5; ++k) {
      Entity e("p" + std::to_string(rng() % 100),
               Word(rng, 1, 10) + "_new" + std::to_string(run) + "_" + std::to_string(g * 5 + k));
      e.Set("Value", Value::Int32(k < 2 ? 7 : 50 + k)).Set("Name", Value::String("new"));
      w.inserts.push_back(std::move(e));
    }
    auto take = [&](std::vector<Key>& from, size_t n) {
      std::vector<Key> out;
      while (out.size() < n && !from.empty()) {
        out.push_back(from.back());
        from.pop_back();
      }
      return out;
    };
    // (When `match` selects everything, all five come from `matching`.)
    for (auto* from : {&matching, any.empty() ? &matching : &any}) {
      for (const Key& key : take(*from, from == &matching ? 2 : 3)) {
        Entity e = model.at(key);
        e.Set("Name", Value::String("updated")).Set("Rev", Value::Int32(g));
        w.updates.push_back(std::move(e));
      }
      for (const Key& key : take(*from, from == &matching ? 2 : 3)) w.deletes.push_back(key);
    }
  }
  return groups;
}

void Apply(Table& table, const Writes& w) {
  for (const Entity& e : w.inserts) ASSERT_OK(table.Insert(e)) << e.DebugString();
  for (const Entity& e : w.updates) {
    ASSERT_OK(table.Replace(e, IfMatch::Any())) << e.DebugString();
  }
  for (const Key& k : w.deletes) {
    Status s = table.Delete(k.first, k.second, IfMatch::Any());
    ASSERT_OK(s);
  }
}
void Apply(Model& model, const Writes& w) {
  for (const Entity& e : w.inserts) model.emplace(KeyOf(e), e);
  for (const Entity& e : w.updates) model.at(KeyOf(e)) = e;
  for (const Key& k : w.deletes) model.erase(k);
}

TEST_F(ParallelScanTest, PagesAreTheSameForEveryThreadCountWithWritesBetweenPages) {
  const std::vector<Shape> all_shapes = Shapes();
  // Each with pages small enough that even the 1% filter has the six pages the writes come
  // between.
  const struct {
    const Shape* shape;
    std::vector<Paging> pagings;
  } cases[] = {
      {&all_shapes[0], {{"page_size 10", 10}, {"scan_budget 50", 100, 50}}},  // whole table
      {&all_shapes[1], {{"page_size 3", 3}, {"scan_budget 50", 100, 50}}},    // Value eq 7
  };
  int run = 0;
  for (uint32_t partitions : kPartitionCounts) {
    Model& model = models_[partitions];
    std::vector<Table> tables = OpenTables(stores_, TableName(partitions));
    ASSERT_EQ(tables.size(), stores_.size());
    for (bool descending : {false, true}) {
      for (const auto& [shape, pagings] : cases) {
        for (const Paging& paging : pagings) {
          SCOPED_TRACE(std::to_string(partitions) + " partitions, " +
                       (descending ? "descending, " : "ascending, ") + shape->name + ", " +
                       paging.name);
          const std::vector<Writes> writes = PlanWrites(model, shape->matches, ++run);
          // What a page may return of an entity: any version it had during the query.
          std::map<Key, std::vector<const Entity*>> versions;
          for (const auto& [key, e] : model) versions[key].push_back(&e);
          std::set<Key> must_see;  // existed before the first page and still exists
          for (const auto& [key, e] : model) {
            if (shape->matches(e)) must_see.insert(key);
          }
          for (const Writes& w : writes) {
            for (const Entity& e : w.inserts) versions[KeyOf(e)].push_back(&e);
            for (const Entity& e : w.updates) versions[KeyOf(e)].push_back(&e);
            for (const Key& k : w.deletes) must_see.erase(k);
          }

          const Query q = paging.Apply(shape->query, descending);
          std::vector<std::vector<PageRecord>> runs;
          for (size_t i = 0; i < tables.size(); ++i) {
            size_t groups_written = 0;
            std::vector<Page> pages = PageThrough(tables[i], q, [&](size_t page) {
              if (page == 1 || page == 3 || page == 5) Apply(tables[i], writes[groups_written++]);
            });
            ASSERT_FALSE(HasFatalFailure());
            ASSERT_EQ(groups_written, 3u) << "the query ended before page 6";
            std::set<Key> seen;
            std::optional<Key> previous;
            for (const Entity* e : Concatenated(pages)) {
              const Key key = KeyOf(*e);
              ASSERT_TRUE(!previous || (descending ? key < *previous : *previous < key))
                  << kThreadCounts[i] << " scan threads: " << e->DebugString()
                  << " out of order or repeated";
              previous = key;
              seen.insert(key);
              ASSERT_TRUE(shape->matches(*e)) << e->DebugString();
              const auto& v = versions[key];
              ASSERT_TRUE(std::any_of(v.begin(), v.end(),
                                      [&](const Entity* w) { return w->SameContent(*e); }))
                  << e->DebugString() << " is no version the entity ever had";
            }
            for (const Key& key : must_see) {
              ASSERT_TRUE(seen.count(key)) << kThreadCounts[i] << " scan threads: (" << key.first
                                           << "," << key.second << ") was never returned";
            }
            runs.push_back(Records(pages, /*system=*/false));
          }
          for (size_t i = 1; i < runs.size(); ++i) {
            ASSERT_EQ(PagesDiff(runs[0], runs[i]), "")
                << kThreadCounts[0] << " vs " << kThreadCounts[i] << " scan threads";
          }
          for (const Writes& w : writes) Apply(model, w);
        }
      }
    }
  }
}

// Page sizes under the page_bytes rule when every entity stores `size + overhead` bytes: a page
// ends after the entity that brings it to `page_bytes`, and holds at least one.
std::vector<size_t> PagesByBytes(const std::vector<size_t>& sizes, size_t overhead,
                                 size_t page_bytes) {
  std::vector<size_t> pages;
  size_t count = 0, bytes = 0;
  for (size_t s : sizes) {
    ++count;
    bytes += s + overhead;
    if (bytes >= page_bytes) {
      pages.push_back(count);
      count = bytes = 0;
    }
  }
  if (count > 0) pages.push_back(count);
  return pages;
}

// QueryShards over a hash-suffix key of 50 shards in tables of 16 and 64 physical partitions: a
// large base (3,000 entities: its shards fill their first runs, and the partitions open on the
// scan threads) and a small one (7 entities: they open on the calling thread). Pages and tokens
// are the same for every thread count, and hold exactly the base's entities.
TEST(ParallelShardsTest, ShardedPagesAreTheSameForEveryThreadCount) {
  testing::TempDir dir;
  auto strategy = KeyStrategy::Parse("hash-suffix(day,n,50)");
  ASSERT_OK(strategy);
  const std::map<std::string, int> bases = {{"big", 3000}, {"small", 7}};
  const uint32_t partition_counts[] = {16, 64};
  std::map<std::string, std::set<Key>> want;  // by base
  const std::string pristine = dir.Sub("pristine");
  {
    std::optional<Store> store = OpenStore(pristine, 1);
    ASSERT_TRUE(store);
    std::vector<Entity> entities;
    std::mt19937 rng(20261203);
    for (const auto& [base, count] : bases) {
      for (int i = 0; i < count; ++i) {
        Entity e("", Word(rng, 1, 8) + "_" + std::to_string(i));
        e.Set("day", Value::String(base))
            .Set("n", Value::String(std::to_string(i)))
            .Set("Value", Value::Int32(i % 100));
        auto pk = strategy->Compute(e);
        ASSERT_OK(pk);
        e.set_partition_key(*pk);
        want[base].insert(KeyOf(e));
        entities.push_back(std::move(e));
      }
    }
    for (uint32_t n : partition_counts) {
      std::optional<Table> table = CreateTable(*store, TableName(n), n);
      ASSERT_TRUE(table);
      ASSERT_NO_FATAL_FAILURE(WriteAll(*table, entities));
    }
  }
  std::vector<Store> stores;
  for (size_t threads : kThreadCounts) {
    const std::string copy = dir.Sub("threads" + std::to_string(threads));
    std::filesystem::copy(pristine, copy, std::filesystem::copy_options::recursive);
    std::optional<Store> store = OpenStore(copy, threads);
    ASSERT_TRUE(store);
    stores.push_back(std::move(*store));
  }
  for (uint32_t partitions : partition_counts) {
    std::vector<Table> tables = OpenTables(stores, TableName(partitions));
    ASSERT_EQ(tables.size(), stores.size());
    for (const auto& [base, count] : bases) {
      for (bool descending : {false, true}) {
        for (uint32_t page_size : {Query::kMaxPageSize, 7u, 100u}) {
          SCOPED_TRACE(std::to_string(partitions) + " partitions, base " + base +
                       (descending ? ", descending" : ", ascending") + ", page_size " +
                       std::to_string(page_size));
          Query q;
          q.page_size = page_size;
          q.descending = descending;
          std::vector<std::vector<PageRecord>> runs;
          for (size_t i = 0; i < tables.size(); ++i) {
            std::vector<Page> pages;
            Query next = q;
            do {
              auto page = tables[i].QueryShards(*strategy, base, next);
              ASSERT_OK(page);
              ASSERT_LE(page->entities.size(), page_size);
              next.continuation = page->continuation;
              pages.push_back(std::move(*page));
            } while (pages.back().has_more() && pages.size() < kMaxPages);
            std::set<Key> got;
            for (const Entity* e : Concatenated(pages)) {
              EXPECT_TRUE(got.insert(KeyOf(*e)).second) << "twice: " << e->DebugString();
            }
            EXPECT_EQ(got, want[base]) << kThreadCounts[i] << " scan threads";
            runs.push_back(Records(pages, /*system=*/true));
          }
          for (size_t i = 1; i < runs.size(); ++i) {
            ASSERT_EQ(PagesDiff(runs[0], runs[i]), "")
                << kThreadCounts[0] << " vs " << kThreadCounts[i] << " scan threads";
          }
        }
      }
    }
  }
}

// The sizes of a run's pages, without a last page that is empty (a page that ended exactly at
// the end of the result may still carry a token, and the next then returns nothing).
std::vector<size_t> PageSizes(const std::vector<Page>& pages) {
  std::vector<size_t> out;
  for (const Page& p : pages) out.push_back(p.entities.size());
  if (out.size() > 1 && out.back() == 0) out.pop_back();
  return out;
}

// What an entity stores beyond its "Blob" payload: its keys, the property's name and type,
// ETag and Timestamp, the physical partition's prefix. Generous; it only has to bound.
constexpr size_t kMaxOverhead = 256;

TEST(PageBytesTest, PageEndsAfterTheEntityThatReachesPageBytes) {
  testing::TempDir dir;
  // Payloads by entity number: uniform 20 KB ones, then sizes chosen so that where each page
  // ends does not depend on the (unknown, small) per-entity overhead, at 100 KB pages; one
  // entity, of two 60 KB properties, is larger than a page.
  const std::vector<size_t> varied = {3000, 40000, 120000, 64000, 64000, 1000,  9000,
                                      1000, 25000, 64000,  25000, 25000, 48000, 15000};
  std::vector<Entity> entities;
  std::map<Key, size_t> payload;
  for (int i = 0; i < 61 + static_cast<int>(varied.size()); ++i) {
    const bool uniform = i < 61;
    Entity e(uniform ? "u" + std::to_string(i % 7) : "v" + std::to_string(i % 3),
             "r" + std::to_string(1000 + i));
    const size_t size = uniform ? 20000 : varied[i - 61];
    // A property holds 64 KiB at most.
    const size_t first = size > 64000 ? size / 2 : size;
    e.Set("Blob", Value::Binary(std::string(first, static_cast<char>('a' + i % 26))));
    if (size > first) e.Set("Blob2", Value::Binary(std::string(size - first, 'z')));
    payload[KeyOf(e)] = size;
    entities.push_back(std::move(e));
  }
  {
    std::optional<Store> store = OpenStore(dir.Sub("store"), 8);
    ASSERT_TRUE(store);
    std::optional<Table> table = CreateTable(*store, "Blobs", 16);
    ASSERT_TRUE(table);
    ASSERT_NO_FATAL_FAILURE(WriteAll(*table, entities));
  }
  Model model;
  for (const Entity& e : entities) model.emplace(KeyOf(e), e);

  struct Case {
    std::string name;
    Query query;
    Predicate matches;
    size_t page_bytes;
  };
  std::vector<Case> cases;
  Query q;
  q.partition_upper = Bound::Exclusive("v");
  auto uniform = [](const Entity& e) { return e.partition_key() < "v"; };
  cases.push_back({"20 KB entities, 100 KB pages", q, uniform, 100000});
  cases.push_back({"20 KB entities, 10 KB pages (one a page)", q, uniform, 10000});
  q.partition_upper.reset();
  q.partition_lower = Bound::Inclusive("v");
  auto varied_pk = [](const Entity& e) { return e.partition_key() >= "v"; };
  cases.push_back({"varied entities, 100 KB pages", q, varied_pk, 100000});
  cases.push_back({"everything, 100 KB pages", Query(), Everything, 100000});
  q.partition_lower.reset();
  q.partition_key = "u3";
  cases.push_back({"one PartitionKey, 50 KB pages", q,
                   [](const Entity& e) { return e.partition_key() == "u3"; }, 50000});

  for (size_t threads : {size_t{1}, size_t{8}}) {
    std::optional<Store> store = OpenStore(dir.Sub("store"), threads);
    ASSERT_TRUE(store);
    std::optional<Table> table = OpenTable(*store, "Blobs");
    ASSERT_TRUE(table);
    for (const Case& c : cases) {
      for (bool descending : {false, true}) {
        SCOPED_TRACE(c.name + (descending ? ", descending, " : ", ascending, ") +
                     std::to_string(threads) + " scan threads");
        const auto want = Expected(model, c.matches, descending);
        std::vector<size_t> sizes;
        for (const Entity* e : want) sizes.push_back(payload[KeyOf(*e)]);
        const std::vector<size_t> expected = PagesByBytes(sizes, 1, c.page_bytes);
        ASSERT_EQ(expected, PagesByBytes(sizes, kMaxOverhead, c.page_bytes))
            << "the test's sizes leave the page ends to the overhead";
        Query query = c.query;
        query.descending = descending;
        query.page_bytes = c.page_bytes;
        std::vector<Page> pages = PageThrough(*table, query);
        ASSERT_EQ(ResultDiff(pages, want), "");
        EXPECT_EQ(PageSizes(pages), expected);
      }
    }
  }
}

TEST(PageBytesTest, DefaultPageBytesIs4MiB) {
  testing::TempDir dir;
  std::optional<Store> store = OpenStore(dir.Sub("store"), 8);
  ASSERT_TRUE(store);
  std::optional<Table> table = CreateTable(*store, "Blobs", 16);
  ASSERT_TRUE(table);
  std::vector<Entity> entities;
  for (int i = 0; i < 80; ++i) {
    Entity e("p" + std::to_string(i % 9), "r" + std::to_string(100 + i));
    e.Set("Blob", Value::Binary(std::string(60000, 'x')));
    entities.push_back(std::move(e));
  }
  ASSERT_NO_FATAL_FAILURE(WriteAll(*table, entities));
  const std::vector<size_t> sizes(80, 60000);
  const std::vector<size_t> expected = PagesByBytes(sizes, 1, Query::kDefaultPageBytes);
  ASSERT_EQ(expected, PagesByBytes(sizes, kMaxOverhead, Query::kDefaultPageBytes));
  ASSERT_EQ(expected, (std::vector<size_t>{70, 10}));
  EXPECT_EQ(PageSizes(PageThrough(*table, Query())), expected);
}

// A table of 64 physical partitions, large enough that scanning it takes many milliseconds.
class TimeBudgetTest : public ::testing::Test {
 protected:
  static constexpr int kEntities = 40000;

  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(Reopen(8));
    TableOptions options;
    options.physical_partitions = 64;
    ASSERT_OK(store_->CreateTable("Items", options));
    table_ = OpenTable(*store_, "Items");
    ASSERT_TRUE(table_);
    std::vector<Entity> entities;
    for (int i = 0; i < kEntities; ++i) {
      char rk[16];
      std::snprintf(rk, sizeof rk, "%06d", i);
      Entity e("p" + std::to_string(i % 400), rk);
      e.Set("Value", Value::Int32(i % 100));
      model_.emplace(KeyOf(e), e);
      entities.push_back(std::move(e));
    }
    ASSERT_NO_FATAL_FAILURE(WriteAll(*table_, entities));
  }

  // Opens the store (again) with `scan_threads`, and its table when it has one.
  void Reopen(size_t scan_threads) {
    table_.reset();
    store_.reset();
    store_ = OpenStore(dir_.Sub("store"), scan_threads);
    ASSERT_TRUE(store_);
    auto tables = store_->ListTables();
    ASSERT_OK(tables);
    if (tables->empty()) return;
    table_ = OpenTable(*store_, "Items");
    ASSERT_TRUE(table_);
  }

  // No row bound, no match: the whole table in one page unless the time budget ends it.
  static Query NoMatchUnboundedByRows(std::chrono::milliseconds time_budget) {
    Query q;
    q.filter = "Value eq 1000";
    q.scan_budget = std::numeric_limits<uint64_t>::max();
    q.scan_time_budget = time_budget;
    return q;
  }

  testing::TempDir dir_;
  std::optional<Store> store_;
  std::optional<Table> table_;
  Model model_;
};

TEST_F(TimeBudgetTest, TinyTimeBudgetPagesProgressToTheCompleteResult) {
  for (size_t threads : {size_t{8}, size_t{1}}) {
    ASSERT_NO_FATAL_FAILURE(Reopen(threads));
    for (bool descending : {false, true}) {
      SCOPED_TRACE(std::to_string(threads) + " scan threads, " +
                   (descending ? "descending" : "ascending"));
      Query q;
      q.filter = "Value eq 7";
      q.scan_budget = std::numeric_limits<uint64_t>::max();
      q.scan_time_budget = std::chrono::milliseconds(1);
      q.descending = descending;
      std::vector<Page> pages = PageThrough(*table_, q);
      for (size_t i = 0; i < pages.size(); ++i) {
        EXPECT_GE(pages[i].examined, 1u) << "page " << i + 1 << " examined nothing";
      }
      auto sevens = [](const Entity& e) { return ValueOf(e) == 7; };
      EXPECT_EQ(ResultDiff(pages, Expected(model_, sevens, descending)), "");
    }
  }
}

TEST_F(TimeBudgetTest, LargeTimeBudgetAnswersANoMatchScanInOnePage) {
  for (size_t threads : {size_t{8}, size_t{1}}) {
    ASSERT_NO_FATAL_FAILURE(Reopen(threads));
    auto page = table_->QueryEntities(NoMatchUnboundedByRows(std::chrono::seconds(600)));
    ASSERT_OK(page);
    EXPECT_TRUE(page->entities.empty());
    EXPECT_FALSE(page->has_more())
        << threads << " scan threads: a token after " << page->examined << " rows";
    EXPECT_GE(page->examined, static_cast<uint64_t>(kEntities));
  }
}

TEST_F(TimeBudgetTest, TinyTimeBudgetEndsALongScanEarly) {
  const auto start = std::chrono::steady_clock::now();
  auto whole = table_->QueryEntities(NoMatchUnboundedByRows(std::chrono::milliseconds(0)));
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_OK(whole);
  ASSERT_FALSE(whole->has_more());
  // The budget is checked between runs of rows, so a page may overrun it by a run; a page's runs
  // start small and double. A scan that takes five times the budget must be cut before its end.
  const auto took_us = std::chrono::duration_cast<std::chrono::microseconds>(took).count();
  if (took < std::chrono::milliseconds(5)) {
    GTEST_SKIP() << "the whole table scanned in " << took_us << " us; too fast to tell";
  }
  RecordProperty("whole_scan_us", std::to_string(took_us));
  auto page = table_->QueryEntities(NoMatchUnboundedByRows(std::chrono::milliseconds(1)));
  ASSERT_OK(page);
  EXPECT_TRUE(page->has_more()) << "one page read all " << page->examined << " rows";
  EXPECT_LT(page->examined, static_cast<uint64_t>(kEntities));
}

TEST(TimeBudgetValidationTest, NegativeTimeBudgetIsInvalidArgument) {
  testing::TempDir dir;
  std::optional<Store> store = OpenStore(dir.Sub("store"), 8);
  ASSERT_TRUE(store);
  std::optional<Table> table = CreateTable(*store, "Items", 64);
  ASSERT_TRUE(table);
  ASSERT_NO_FATAL_FAILURE(WriteAll(*table, MakeEntities(200, 3)));
  for (auto budget : {std::chrono::milliseconds(-1), std::chrono::milliseconds::min()}) {
    Query q;  // table-wide
    q.scan_time_budget = budget;
    auto wide = table->QueryEntities(q);
    EXPECT_THAT(wide, StatusIs(Status::Code::kInvalidArgument));
    q.partition_key = "p1";
    auto one = table->QueryEntities(q);
    EXPECT_THAT(one, StatusIs(Status::Code::kInvalidArgument));
  }
}

// Threads of this process (Linux: the entries of /proc/self/task).
size_t ThreadCount() {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
    (void)entry;
    ++n;
  }
  return n;
}
// ThreadCount(), once it has come down to `want` or after 10 s. A thread that has been joined can
// still be listed for a moment while the kernel finishes its exit, and there is nothing to wait
// on for that but /proc itself.
size_t ThreadsSettledAt(size_t want) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  size_t n = ThreadCount();
  while (n > want && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
    n = ThreadCount();
  }
  return n;
}

// A store of 64 physical partitions written with scan_threads = 1 and closed: the RocksDB threads
// a store starts are running from then on, so baseline_threads_ counts the process's threads
// without a store's scan pool.
class ScanPoolShutdownTest : public ::testing::Test {
 protected:
  static constexpr int kEntities = 2000;

  void SetUp() override {
    {
      std::optional<Store> store = OpenStore(path(), 1);
      ASSERT_TRUE(store);
      std::optional<Table> table = CreateTable(*store, "Items", 64);
      ASSERT_TRUE(table);
      std::vector<Entity> entities = MakeEntities(kEntities, 7);
      ASSERT_NO_FATAL_FAILURE(WriteAll(*table, entities));
      for (const Entity& e : entities) model_.emplace(KeyOf(e), e);
      auto page = table->QueryEntities(Query());
      ASSERT_OK(page);
    }
    baseline_threads_ = ThreadCount();
  }

  std::string path() const { return dir_.Sub("store"); }

  // The store is closed: another Open of its directory succeeds.
  void ExpectClosed() {
    EXPECT_EQ(ThreadsSettledAt(baseline_threads_), baseline_threads_) << "threads left running";
    auto again = Store::Open(path());
    EXPECT_OK(again) << "the store is still open";
  }
  void ExpectOpen() {
    auto again = Store::Open(path());
    EXPECT_THAT(again, StatusIs(Status::Code::kBusy));
  }

  testing::TempDir dir_;
  Model model_;
  size_t baseline_threads_ = 0;
};

TEST_F(ScanPoolShutdownTest, QueriesInFlightFinishAfterTheStoreHandleGoes) {
  constexpr int kWorkers = 4;
  constexpr int kPassesAfterRelease = 3;
  std::optional<Store> store = OpenStore(path(), 8);
  ASSERT_TRUE(store);
  std::latch started(kWorkers);  // every worker has its Table and has finished one pass
  std::atomic<bool> released{false};
  std::vector<std::string> failures(kWorkers);  // each worker's first wrong pass, if any
  std::vector<int> passes(kWorkers);
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&, w] {
      std::optional<Table> table = OpenTable(*store, "Items");
      if (!table) {  // (the test has failed)
        started.count_down();
        return;
      }
      // A filter matching 2% of the rows, paged 10 at a time: many pages, each merging every
      // physical partition.
      Query q;
      q.filter = "Value eq " + std::to_string(w) + " or Value eq " + std::to_string(50 + w);
      q.page_size = 10;
      q.descending = w % 2 == 1;
      const auto want = Expected(
          model_, [w](const Entity& e) { return ValueOf(e) == w || ValueOf(e) == 50 + w; },
          q.descending);
      bool counted_down = false;
      for (int after = 0; after < kPassesAfterRelease;) {
        const bool was_released = released.load();
        std::string diff = ResultDiff(PageThrough(*table, q), want);
        if (!diff.empty() && failures[w].empty()) failures[w] = diff;
        ++passes[w];
        if (!counted_down) {
          started.count_down();
          counted_down = true;
        }
        if (was_released) ++after;
      }
    });
  }
  started.wait();
  store.reset();  // while the workers page on
  ExpectOpen();   // their Tables keep it open
  released = true;
  for (std::thread& t : workers) t.join();
  for (int w = 0; w < kWorkers; ++w) {
    EXPECT_EQ(failures[w], "") << "worker " << w;
    EXPECT_GE(passes[w], 1 + kPassesAfterRelease) << "worker " << w;
  }
  ExpectClosed();
}

TEST_F(ScanPoolShutdownTest, StoreWithScanThreadsClosesWithoutAQuery) {
  for (int round = 0; round < 2; ++round) {
    {
      std::optional<Store> store = OpenStore(path(), 8);
      ASSERT_TRUE(store);
      TableOptions options;
      options.physical_partitions = 64;
      ASSERT_OK(store->CreateTable("Other" + std::to_string(round), options));
    }
    ExpectClosed();
    if (HasFailure()) return;
  }
}

TEST_F(ScanPoolShutdownTest, TablesOutliveTheStore) {
  std::optional<Store> store = OpenStore(path(), 8);
  ASSERT_TRUE(store);
  std::optional<Table> table = OpenTable(*store, "Items");
  ASSERT_TRUE(table);
  ASSERT_OK(table->QueryEntities(Query()));  // the pool is running
  store.reset();
  ExpectOpen();
  Query q;
  q.page_size = 100;
  EXPECT_EQ(ResultDiff(PageThrough(*table, q), Expected(model_, Everything, false)), "");
  Entity e("p1", "after_the_store");
  ASSERT_OK(table->Insert(e));
  q.filter = "RowKey eq 'after_the_store'";
  auto page = table->QueryEntities(q);
  ASSERT_OK(page);
  EXPECT_EQ(page->entities.size(), 1u);
  table.reset();
  ExpectClosed();
}

}  // namespace
}  // namespace partkv
