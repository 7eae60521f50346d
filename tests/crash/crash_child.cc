// The crash harness's victim: opens a store, then writes single entities, whole-group batches
// and bulk writes (partkv/bulk_writer.h, a group of rows acknowledged at a time) forever, now and
// then creating or dropping a side table and writing into the side tables, announcing each
// operation before it starts and acknowledging it on stdout after the store returned (protocol
// in crash_model.h). The driver SIGKILLs it at a random acknowledgement.
//
//   partkv_crash_child STORE_DIR SYNC(0|1) SEED GEN_BASE
//
// With PARTKV_CRASH_KILL_AT=N in the environment the child only opens (or creates) the store:
// it kills itself with SIGKILL at the N-th file-system change Store::Open makes (kill_point.h),
// or, when Open makes fewer, prints "CREATED <changes>" and exits 0. N = 0 only counts.
//
// The child learns the store's state by scanning every table at start-up (so every run starts
// from whatever the previous, killed run left) and checks on the way what must hold after any
// crash: no batch group is partially present, and every listed table opens and scans. A table it
// creates must be empty, also when its name belonged to a table dropped before. It also issues
// writes that must fail — an Insert of an acknowledged row, a Replace with a superseded ETag, a
// batch with one failing operation — and reports any other outcome with an "F" line and exit
// status 3.

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "partkv/partkv.h"
#include "tests/crash/crash_model.h"
#include "tests/crash/kill_point.h"

namespace partkv::crash {
namespace {

struct Row {
  std::string etag;
  std::string previous_etag;  // the ETag this row had before `etag`, if this run saw it
};

void Say(const std::string& line) {
  std::string out = line + "\n";
  const char* p = out.data();
  size_t left = out.size();
  while (left > 0) {
    ssize_t n = ::write(STDOUT_FILENO, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) std::_Exit(4);  // the driver is gone
    p += n;
    left -= static_cast<size_t>(n);
  }
}

[[noreturn]] void Fail(const std::string& what) {
  std::string one_line = what;
  for (char& c : one_line) {
    if (c == '\n') c = ' ';
  }
  Say("F " + one_line);
  std::_Exit(3);
}

class Child {
 public:
  Child(Store& store, Table table, bool sync, uint64_t seed, int64_t gen_base)
      : store_(store), table_(std::move(table)), rng_(seed), gen_(gen_base) {
    options_.sync = sync;
  }

  // Reads every entity; returns how many there are.
  size_t Scan() {
    Query q;
    size_t n = 0;
    for (;;) {
      auto page = table_.QueryEntities(q);
      if (!page.ok()) Fail("scan: " + page.status().ToString());
      for (const auto& e : page->entities) {
        rows_[{e.partition_key(), e.row_key()}] = Row{e.etag(), ""};
        ++n;
      }
      if (!page->has_more()) break;
      q.continuation = page->continuation;
    }
    for (int p = 0; p < kGroupPartitions; ++p) {
      for (int g = 0; g < kGroupsPerPartition; ++g) GroupPresence(p, g);  // fails if torn
    }
    return n;
  }

  // Reads every side table (every listed table but the main one); returns "<tables> <entities>".
  std::string ScanSideTables() {
    auto tables = store_.ListTables();
    if (!tables.ok()) Fail("list tables: " + tables.status().ToString());
    size_t n = 0;
    for (const TableInfo& info : *tables) {
      if (info.name == kTableName) continue;
      auto& rows = side_[info.name];
      for (const Entity& e : ReadAll(info.name)) {
        rows[{e.partition_key(), e.row_key()}] = Row{e.etag(), ""};
        ++n;
      }
    }
    return std::to_string(side_.size()) + " " + std::to_string(n);
  }

  [[noreturn]] void Run() {
    for (;;) {
      int dice = static_cast<int>(rng_() % 100);
      if (dice < 8) {
        TableOp();
      } else if (dice < 16) {
        SideWrite();
      } else if (dice < 24) {
        BulkOp();
      } else if (rng_() % 100 < 60) {
        SingleOp();
      } else {
        BatchOp();
      }
    }
  }

 private:
  using Key = std::pair<std::string, std::string>;

  Row* Find(const std::string& pk, const std::string& rk) {
    auto it = rows_.find({pk, rk});
    return it == rows_.end() ? nullptr : &it->second;
  }
  void Wrote(const std::string& pk, const std::string& rk, const std::string& etag) {
    Row& r = rows_[{pk, rk}];
    r.previous_etag = r.etag;
    r.etag = etag;
  }

  void Expect(const Status& s, Status::Code code, int failed_op, const std::string& what) {
    if (s.code() != code || s.failed_op() != failed_op) {
      Fail(what + ": expected " + std::string(Status::CodeName(code)) + " at operation " +
           std::to_string(failed_op) + ", got " + s.ToString() + " at operation " +
           std::to_string(s.failed_op()));
    }
    Say("X " + std::string(Status::CodeName(code)) + " " + std::to_string(failed_op));
  }

  void SingleOp() {
    std::string pk = SinglePk(static_cast<int>(rng_() % kSinglePartitions));
    std::string rk = SingleRk(static_cast<int>(rng_() % kSingleRows));
    int64_t gen = ++gen_;
    Row* row = Find(pk, rk);
    int dice = static_cast<int>(rng_() % 100);
    std::string op;
    if (row == nullptr) {
      op = dice < 50 ? "ins" : dice < 75 ? "ior" : "iom";
    } else if (dice < 10) {
      op = "ins";  // must fail: the row is acknowledged
    } else if (dice < 30) {
      op = "rep";
    } else if (dice < 50) {
      op = "mrg";
    } else if (dice < 65) {
      op = "del";
    } else if (dice < 80) {
      op = "ior";
    } else if (dice < 90) {
      op = "iom";
    } else {
      op = row->previous_etag.empty() ? "rep" : "stale";
    }
    Say("I " + op + " " + pk + " " + rk + " " + std::to_string(gen));
    const std::string what = op + " " + pk + "/" + rk;
    if (op == "del") {
      Status s = table_.Delete(pk, rk, IfMatch::ETag(row->etag), options_);
      if (!s.ok()) Fail(what + ": " + s.ToString());
      rows_.erase({pk, rk});
      Say("A -");
      return;
    }
    if (op == "ins" && row != nullptr) {
      Expect(table_.Insert(Content(pk, rk, gen), options_).status(), Status::Code::kAlreadyExists,
             -1, what);
      return;
    }
    if (op == "stale") {
      Expect(table_.Replace(Content(pk, rk, gen), IfMatch::ETag(row->previous_etag), options_)
                 .status(),
             Status::Code::kPreconditionFailed, -1, what);
      return;
    }
    Result<WriteResult> r = Status::InvalidArgument("unreachable");
    if (op == "ins") r = table_.Insert(Content(pk, rk, gen), options_);
    if (op == "ior") r = table_.InsertOrReplace(Content(pk, rk, gen), options_);
    if (op == "iom") r = table_.InsertOrMerge(MergePatch(pk, rk, gen), options_);
    if (op == "rep") r = table_.Replace(Content(pk, rk, gen), IfMatch::ETag(row->etag), options_);
    if (op == "mrg") r = table_.Merge(MergePatch(pk, rk, gen), IfMatch::ETag(row->etag), options_);
    if (!r.ok()) Fail(what + ": " + r.status().ToString());
    Wrote(pk, rk, r->etag);
    Say("A " + r->etag);
  }

  // How many rows of the group exist; a partial group is a torn batch.
  int GroupPresence(int p, int g) {
    int present = 0;
    for (const auto& rk : GroupRks(g)) present += Find(GroupPk(p), rk) != nullptr ? 1 : 0;
    if (present != 0 && present != kGroupRows) {
      Fail("torn batch: group " + GroupPk(p) + "/g" + std::to_string(g) + " has " +
           std::to_string(present) + " of " + std::to_string(kGroupRows) + " rows");
    }
    return present;
  }

  // Every entity of side table `name`, by a paged query; a listed table that does not open or
  // scan is half there.
  std::vector<Entity> ReadAll(const std::string& name) {
    auto table = store_.OpenTable(name);
    if (!table.ok()) Fail("open table " + name + ": " + table.status().ToString());
    std::vector<Entity> out;
    Query q;
    for (;;) {
      auto page = table->QueryEntities(q);
      if (!page.ok()) Fail("scan " + name + ": " + page.status().ToString());
      for (auto& e : page->entities) out.push_back(std::move(e));
      if (!page->has_more()) return out;
      q.continuation = page->continuation;
    }
  }

  // Creates an absent side table or drops a present one.
  void TableOp() {
    std::string name = SideTableName(static_cast<int>(rng_() % kSideTables));
    if (side_.count(name) != 0) {
      Say("D " + name);
      Status s = store_.DropTable(name);
      if (!s.ok()) Fail("drop " + name + ": " + s.ToString());
      side_.erase(name);
      Say("A");
      return;
    }
    uint32_t partitions = 1 + static_cast<uint32_t>(rng_() % 2);
    Say("C " + name + " " + std::to_string(partitions));
    Status s = store_.CreateTable(name, {.physical_partitions = partitions});
    if (!s.ok()) Fail("create " + name + ": " + s.ToString());
    std::vector<Entity> left = ReadAll(name);
    if (!left.empty()) {
      Fail("created table " + name + " holds " + std::to_string(left.size()) + " entities, e.g. " +
           left.front().DebugString().substr(0, 120));
    }
    side_.try_emplace(name);
    Say("A");
  }

  // An InsertOrReplace into a side table (creating one when there is none).
  void SideWrite() {
    if (side_.empty()) return TableOp();
    auto it = side_.begin();
    std::advance(it, static_cast<long>(rng_() % side_.size()));
    const std::string& name = it->first;
    std::string pk = SidePk(static_cast<int>(rng_() % kSidePartitionKeys));
    std::string rk = SingleRk(static_cast<int>(rng_() % kSideRows));
    int64_t gen = ++gen_;
    Say("W " + name + " " + pk + " " + rk + " " + std::to_string(gen));
    auto table = store_.OpenTable(name);
    if (!table.ok()) Fail("open table " + name + ": " + table.status().ToString());
    auto r = table->InsertOrReplace(Content(pk, rk, gen), options_);
    if (!r.ok()) Fail("write " + name + " " + pk + "/" + rk + ": " + r.status().ToString());
    it->second[{pk, rk}] = Row{r->etag, ""};
    Say("A " + r->etag);
  }

  void BatchOp() {
    int p = static_cast<int>(rng_() % kGroupPartitions);
    int g = static_cast<int>(rng_() % kGroupsPerPartition);
    std::string pk = GroupPk(p);
    std::vector<std::string> rks = GroupRks(g);
    bool present = GroupPresence(p, g) == kGroupRows;
    int64_t gen = ++gen_;
    int dice = static_cast<int>(rng_() % 100);
    std::string op;
    int fail_at = -1;
    if (!present) {
      op = dice < 60 ? "ins" : "ior";
      if (dice >= 85) fail_at = static_cast<int>(rng_() % kGroupRows);
    } else {
      op = dice < 35 ? "rep" : dice < 55 ? "del" : "ior";
      if (dice >= 80) fail_at = static_cast<int>(rng_() % kGroupRows);
    }
    Batch batch;
    for (int k = 0; k < kGroupRows; ++k) {
      const std::string& rk = rks[k];
      if (k == fail_at) {
        // The failing operation: an Insert of an existing row, or a Replace of a missing one.
        if (present) {
          batch.Insert(Content(pk, rk, gen));
        } else {
          batch.Replace(Content(pk, rk, gen), IfMatch::Any());
        }
      } else if (op == "ins") {
        batch.Insert(Content(pk, rk, gen));
      } else if (op == "ior") {
        batch.InsertOrReplace(Content(pk, rk, gen));
      } else if (op == "rep") {
        batch.Replace(Content(pk, rk, gen), IfMatch::ETag(Find(pk, rk)->etag));
      } else {
        batch.Delete(pk, rk, IfMatch::ETag(Find(pk, rk)->etag));
      }
    }
    Say("B " + op + " " + pk + " " + std::to_string(g) + " " + std::to_string(gen) + " " +
        std::to_string(fail_at));
    auto r = table_.Submit(batch, options_);
    const std::string what = "batch " + op + " " + pk + "/g" + std::to_string(g);
    if (fail_at >= 0) {
      Expect(r.status(), present ? Status::Code::kAlreadyExists : Status::Code::kNotFound, fail_at,
             what);
      return;
    }
    if (!r.ok()) Fail(what + ": " + r.status().ToString());
    if (r->size() != rks.size()) Fail(what + ": " + std::to_string(r->size()) + " results");
    std::string ack = "A";
    for (size_t k = 0; k < rks.size(); ++k) {
      if (op == "del") {
        rows_.erase({pk, rks[k]});
        ack += " -";
      } else {
        Wrote(pk, rks[k], (*r)[k].etag);
        ack += " " + (*r)[k].etag;
      }
    }
    Say(ack);
  }

  // A bulk write of Content(key, gen) to 8..40 distinct keys of k0..k5 × u00..u11, in a random
  // order (PartitionKeys interleaved), in groups of 1..8 rows: streaming (groups in stream
  // order) or validating first (groups in key order: physical partition, PartitionKey, RowKey).
  // Every key absent: an Insert half the time, else an InsertOrReplace. Each group written is
  // acknowledged from the writer's callback; the child checks that the groups are the ones it
  // announced.
  void BulkOp() {
    std::vector<Key> keys;
    for (int p = 0; p < kBulkPartitions; ++p) {
      for (int j = 0; j < kBulkRows; ++j) keys.emplace_back(BulkPk(p), BulkRk(j));
    }
    std::shuffle(keys.begin(), keys.end(), rng_);
    keys.resize(8 + rng_() % 33);
    bool absent = true;
    for (const Key& k : keys) absent = absent && Find(k.first, k.second) == nullptr;
    const std::string op = absent && rng_() % 2 == 0 ? "ins" : "ior";
    const size_t group = 1 + rng_() % 8;
    const bool staged = rng_() % 2 == 0;
    const int64_t gen = ++gen_;
    std::vector<size_t> order(keys.size());  // stream positions in the order they are written
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    if (staged) {
      auto sort_key = [&](size_t i) {
        return std::tuple(table_.PhysicalPartitionOf(keys[i].first), keys[i].first, keys[i].second);
      };
      std::sort(order.begin(), order.end(),
                [&](size_t a, size_t b) { return sort_key(a) < sort_key(b); });
    }
    std::string line = "K " + op + " " + std::to_string(gen) + " " + std::to_string(group);
    for (size_t i : order) line += " " + keys[i].first + "/" + keys[i].second;
    Say(line);

    BulkWriteOptions o;
    o.mode = op == "ins" ? OpType::kInsert : OpType::kInsertOrReplace;
    o.max_group_rows = group;
    o.validate_before_writing = staged;
    o.write = options_;
    size_t written = 0;
    o.on_group_written = [&](const BulkWrittenGroup& g, const BulkWriteReport&) {
      const size_t want = std::min(group, keys.size() - written);
      if (g.size() != want) {
        Fail("bulk " + op + ": a group of " + std::to_string(g.size()) + " rows; expected " +
             std::to_string(want));
      }
      std::string ack = "A";
      for (size_t i = 0; i < g.size(); ++i) {
        if (g.row(i) != order[written + i]) {
          Fail("bulk " + op + ": row " + std::to_string(g.row(i)) + " written " +
               std::to_string(written + i) + "th; expected row " +
               std::to_string(order[written + i]));
        }
        const Key& k = keys[g.row(i)];
        const std::string etag = g.result(i).etag;
        Wrote(k.first, k.second, etag);
        ack += " " + etag;
      }
      written += g.size();
      Say(ack);
    };
    auto writer = BulkWriter::Create(table_, o);
    if (!writer.ok()) Fail("bulk writer: " + writer.status().ToString());
    for (const Key& k : keys) {
      Status s = writer->Add(Content(k.first, k.second, gen));
      if (!s.ok()) Fail("bulk " + op + " add: " + s.ToString());
    }
    Status s = writer->Finish();
    if (!s.ok()) Fail("bulk " + op + ": " + s.ToString());
    if (written != keys.size()) {
      Fail("bulk " + op + ": " + std::to_string(written) + " of " + std::to_string(keys.size()) +
           " rows acknowledged");
    }
  }

  Store& store_;
  Table table_;
  WriteOptions options_;
  std::mt19937_64 rng_;
  int64_t gen_;
  std::map<Key, Row> rows_;
  std::map<std::string, std::map<Key, Row>> side_;  // the side tables that exist, and their rows
};

}  // namespace
}  // namespace partkv::crash

int main(int argc, char** argv) {
  using namespace partkv;
  if (argc != 5) {
    std::fprintf(stderr, "usage: partkv_crash_child STORE_DIR SYNC(0|1) SEED GEN_BASE\n");
    return 2;
  }
  bool sync = std::string(argv[2]) == "1";
  uint64_t seed = std::strtoull(argv[3], nullptr, 10);
  int64_t gen_base = std::strtoll(argv[4], nullptr, 10);

  crash::Say("OPEN");
  const char* kill_at = std::getenv("PARTKV_CRASH_KILL_AT");
  if (kill_at != nullptr) crash::ArmKillPoint(std::strtoull(kill_at, nullptr, 10));
  auto store = Store::Open(argv[1], crash::CrashStoreOptions());
  if (kill_at != nullptr) {
    uint64_t changes = crash::DisarmKillPoint();
    if (!store.ok()) crash::Fail("open: " + store.status().ToString());
    crash::Say("CREATED " + std::to_string(changes));
    return 0;
  }
  if (!store.ok()) crash::Fail("open: " + store.status().ToString());
  // With a change feed, which the driver checks against the table (crash_test.cc).
  Status created = store->CreateTable(crash::kTableName,
                                      {.physical_partitions = 4, .change_feed = {.enabled = true}});
  if (!created.ok() && !created.IsAlreadyExists()) crash::Fail("create: " + created.ToString());
  auto table = store->OpenTable(crash::kTableName);
  if (!table.ok()) crash::Fail("open table: " + table.status().ToString());

  crash::Child child(*store, std::move(*table), sync, seed, gen_base);
  size_t n = child.Scan();
  crash::Say("READY " + std::to_string(n) + " " + child.ScanSideTables());
  child.Run();
}
