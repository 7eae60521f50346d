// partkv export of large entities keeps its memory bounded: 2,000 entities of about 1 MiB each
// (2 GB) go out through a process whose peak resident set stays under twice the store's memory
// budget, because a page ends once its entities reach Query::page_bytes (4 MiB) and the tool
// writes each page before it reads the next. Without the byte bound a page is up to 1,000 such
// entities, held whole: a gigabyte.
//
// Slow (minutes: 2 GB imported, then exported, then read back) and it needs about 7 GB of
// temporary disk at its peak, so it is its own executable with the CTest label `memory`:
//   ctest -L memory

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>

#include "partkv/entity.h"
#include "partkv/json.h"
#include "partkv/value.h"
#include "tests/testing/status_matchers.h"
#include "tests/tools/cli/cli_runner.h"

namespace partkv::testing {
namespace {

// Azure caps a property at 64 KiB and an entity at 1 MiB by its size formula (engine/validation.h):
// 16 Binary properties of 65,000 bytes are 1,040,306 bytes by that formula with these keys.
constexpr int kEntities = 2000;
constexpr int kRowsPerPartition = 100;
constexpr int kProperties = 16;
constexpr size_t kPropertyBytes = 65000;
// The store's default memory budget (StoreOptions::memory_budget_bytes), which the tool uses.
constexpr long kMemoryBudgetKib = 64 << 10;

std::string PartitionKeyOf(int i) {
  char pk[8];
  std::snprintf(pk, sizeof pk, "p%02d", i / kRowsPerPartition);
  return pk;
}

std::string RowKeyOf(int i) {
  char rk[8];
  std::snprintf(rk, sizeof rk, "r%03d", i % kRowsPerPartition);
  return rk;
}

std::string PropertyName(int p) {
  char name[8];
  std::snprintf(name, sizeof name, "b%02d", p);
  return name;
}

// Property p of entity i: pseudo-random bytes (splitmix64), so that compression cannot shrink
// the store.
std::string PropertyBytes(int i, int p) {
  static_assert(kPropertyBytes % 8 == 0);
  std::string bytes(kPropertyBytes, '\0');
  uint64_t state = 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(i * kProperties + p + 1);
  for (size_t b = 0; b < bytes.size(); b += 8) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    std::memcpy(&bytes[b], &z, 8);
  }
  return bytes;
}

// Entity i, keyed so that export order is index order: PartitionKey "p00".."p19", RowKey
// "r000".."r099" (20 logical partitions spread over the table's 16 physical ones).
Entity MakeEntity(int i) {
  Entity e(PartitionKeyOf(i), RowKeyOf(i));
  for (int p = 0; p < kProperties; ++p) e.Set(PropertyName(p), Value::Binary(PropertyBytes(i, p)));
  return e;
}

// Appends the base64 of `bytes` to *out.
void AppendBase64(std::string_view bytes, std::string* out) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t at = out->size();
  out->resize(at + (bytes.size() + 2) / 3 * 4);
  char* d = out->data() + at;
  const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3, d += 4) {
    uint32_t v = uint32_t{s[i]} << 16 | uint32_t{s[i + 1]} << 8 | s[i + 2];
    d[0] = kDigits[v >> 18];
    d[1] = kDigits[(v >> 12) & 63];
    d[2] = kDigits[(v >> 6) & 63];
    d[3] = kDigits[v & 63];
  }
  if (i < bytes.size()) {
    uint32_t v = uint32_t{s[i]} << 16;
    if (i + 1 < bytes.size()) v |= uint32_t{s[i + 1]} << 8;
    d[0] = kDigits[v >> 18];
    d[1] = kDigits[(v >> 12) & 63];
    d[2] = i + 1 < bytes.size() ? kDigits[(v >> 6) & 63] : '=';
    d[3] = '=';
  }
}

// MakeEntity(i) as an import line, into *line. Written here rather than by EntityToJson, which
// takes several times as long over Binary properties (the import parses it back all the same).
void ImportLine(int i, std::string* line) {
  line->clear();  // keeps its capacity from line to line
  *line += R"({"PartitionKey":")" + PartitionKeyOf(i) + R"(","RowKey":")" + RowKeyOf(i) + '"';
  for (int p = 0; p < kProperties; ++p) {
    const std::string name = PropertyName(p);
    *line += ",\"" + name + R"(@odata.type":"Edm.Binary",")" + name + R"(":")";
    AppendBase64(PropertyBytes(i, p), line);
    *line += '"';
  }
  *line += "}\n";
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

long OwnPeakRssKib() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

TEST(CliExportMemoryTest, ExportOfLargeEntitiesStaysUnderTwiceTheMemoryBudget) {
  TempDir dir;
  CliRunner cli(dir);
  ASSERT_EQ(cli.Run({"table", "create", "Big"}).exit_code, 0);

  // The input is written one line at a time, so that this process stays small: a child's
  // ru_maxrss includes this process's pages copied by fork (cli_runner.h).
  const std::string input = dir.Sub("big.jsonl");
  auto start = std::chrono::steady_clock::now();
  {
    std::FILE* f = std::fopen(input.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::string line;
    for (int i = 0; i < kEntities; ++i) {
      ImportLine(i, &line);
      ASSERT_EQ(std::fwrite(line.data(), 1, line.size(), f), line.size());
    }
    ASSERT_EQ(std::fclose(f), 0);
  }
  const double write_s = SecondsSince(start);
  start = std::chrono::steady_clock::now();
  RunResult imported = cli.Run({"import", "Big", input});
  const double import_s = SecondsSince(start);
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  ASSERT_NE(imported.err.find("2000 of 2000 rows written to Big"), std::string::npos)
      << imported.err;
  std::remove(input.c_str());  // 2.8 GB of disk back before the export writes as much

  // Sanity of the measurement: the forked copy of this process must not be what is measured.
  ASSERT_LT(OwnPeakRssKib(), kMemoryBudgetKib / 2);
  const std::string output = dir.Sub("export.jsonl");
  RunOptions options;
  options.stdout_path = output;
  start = std::chrono::steady_clock::now();
  RunResult exported = cli.RunRaw({"--store", cli.store(), "export", "Big"}, options);
  const double export_s = SecondsSince(start);
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  std::printf(
      "partkv export of %d entities of %zu bytes: peak RSS %.1f MiB (limit %.0f MiB; "
      "this process %.1f MiB); input written in %.1f s, imported in %.1f s, exported in "
      "%.1f s\n",
      kEntities, kProperties * kPropertyBytes, exported.max_rss_kib / 1024.0,
      2 * kMemoryBudgetKib / 1024.0, OwnPeakRssKib() / 1024.0, write_s, import_s, export_s);
  EXPECT_LT(exported.max_rss_kib, 2 * kMemoryBudgetKib)
      << "partkv export's peak RSS is over twice the store's 64 MiB memory budget";

  // Every entity is there, in order: every line's keys, and every 40th line's (and the last
  // line's) content to the byte. A full comparison of every line (EntityFromJson of 1.4 MB of
  // JSON each) would take longer than the export.
  start = std::chrono::steady_clock::now();
  std::ifstream in(output, std::ios::binary);
  ASSERT_TRUE(in.is_open());
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    const int i = lines++;
    if (i >= kEntities) continue;
    const std::string keys =
        R"("PartitionKey":")" + PartitionKeyOf(i) + R"(","RowKey":")" + RowKeyOf(i) + '"';
    ASSERT_NE(line.find(keys), std::string::npos)
        << "line " << i + 1 << " does not hold entity " << keys << ": " << line.substr(0, 200);
    if (i % 40 == 0 || i == kEntities - 1) {
      Result<Entity> got = EntityFromJson(line);
      ASSERT_OK(got) << "line " << i + 1;
      ASSERT_TRUE(got->SameContent(MakeEntity(i)))
          << "line " << i + 1 << " holds entity " << keys << " with other content";
    }
  }
  EXPECT_EQ(lines, kEntities);
  std::printf("read back and compared in %.1f s\n", SecondsSince(start));
}

}  // namespace
}  // namespace partkv::testing
