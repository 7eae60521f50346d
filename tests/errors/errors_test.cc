// The bad-input catalogue (docs/errors.md): every kind of bad input the library accepts from a
// user, the exact error it gets (code + message fragment), and the proof that nothing already
// stored was lost.
//
// Each row of the catalogue (catalogue.cc) is one test: the fixture writes known entities (every
// EDM type, single writes and a batch, with sync), takes a snapshot of the table (content and
// ETags), feeds the bad input, checks the code and fragment, then closes and reopens the store
// and compares the table with the snapshot. CatalogueMatchesTheDoc checks that docs/errors.md lists
// exactly these rows with the same codes and fragments, so the document cannot drift from the
// behaviour.

#include <fstream>
#include <map>
#include <regex>
#include <string>

#include "tests/errors/errors_fixture.h"
#include "tests/testing/status_matchers.h"

namespace partkv::errors {
namespace {

using ::partkv::testing::StatusIs;

TEST_P(ErrorsTest, FailsClearlyAndLosesNothing) {
  const Case& c = GetParam();
  Status s = c.feed(*this);
  if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
  // The whole message, for docs/errors.md (and the XML report).
  std::printf("[errors] %s %s\n", c.id, s.ToString().substr(0, 300).c_str());
  RecordProperty("error", s.ToString().substr(0, 300));
  EXPECT_THAT(s, StatusIs(c.code));
  EXPECT_NE(s.ToString().find(c.fragment), std::string::npos)
      << "fragment '" << c.fragment << "' not in: " << s.ToString();
  // Nothing already stored was lost: reopen, compare with the snapshot.
  ASSERT_OK(Open());
  EXPECT_EQ(Snapshot(), snapshot_);
}

INSTANTIATE_TEST_SUITE_P(Catalogue, ErrorsTest, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.id) + "_" + info.param.name;
                         });

// docs/errors.md lists exactly the rows above, with the same codes and fragments.
TEST(ErrorsDoc, CatalogueMatchesTheDoc) {
  std::ifstream in(std::string(PARTKV_SOURCE_DIR) + "/docs/errors.md");
  ASSERT_TRUE(in) << "docs/errors.md is missing";
  // | K01 | input | call | InvalidArgument | `fragment` |
  std::regex row(R"(^\| ([A-Z][0-9]{2}) \|.*\| (\w+) \| `(.*)` \|\s*$)");
  std::map<std::string, std::pair<std::string, std::string>> doc;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, row)) {
      EXPECT_TRUE(doc.emplace(m[1], std::make_pair(m[2], m[3])).second) << "duplicate row " << m[1];
    }
  }
  for (const Case& c : AllCases()) {
    auto it = doc.find(c.id);
    if (it == doc.end()) {
      ADD_FAILURE() << c.id << " (" << c.name << ") is not in docs/errors.md";
      continue;
    }
    EXPECT_EQ(it->second.first, Status::CodeName(c.code)) << c.id;
    EXPECT_EQ(it->second.second, c.fragment) << c.id;
    doc.erase(it);
  }
  for (const auto& [id, rest] : doc) ADD_FAILURE() << id << " is in docs/errors.md but not tested";
}

// Regression (docs/errors.md, "Known problems" 1): on a full disk, Debian's RocksDB 7.8.3 (built
// with assertions) aborted the process from its error-recovery thread, because it logged to the
// info LOG through a file writer whose earlier write had failed
// (WritableFileWriter::AssertFalseAndGetStatusForPrevError). The store now gives RocksDB a logger
// that drops a line it cannot write (engine/local/info_log.h). The worker must live through the
// failing write, the refused retry, a read and the close.
TEST(FullDisk, FullDiskDoesNotAbortTheProcess) {
  testing::TempDir dir;
  auto lines = RunHelper({"fill-disk", "tmpfs", dir.Sub("tmpfs")});
  if (std::string why = Find(lines, "SKIP "); !why.empty()) GTEST_SKIP() << why;
  EXPECT_EQ(Find(lines, "CRASHED "), "") << "the writing process died";
  std::string failed = Find(lines, "FAILED ");
  EXPECT_EQ(failed.rfind("IOError ", 0), 0u) << "the failing write: '" << failed << "'";
  EXPECT_NE(failed.find("No space left on device"), std::string::npos) << failed;
  EXPECT_EQ(Find(lines, "AGAIN ").rfind("IOError: ", 0), 0u) << Find(lines, "AGAIN ");
  EXPECT_EQ(Find(lines, "READ "), "OK");
  std::string stopped = Find(lines, "STOPPED ");
  EXPECT_EQ(stopped.rfind("IOError: the store still refuses writes", 0), 0u) << stopped;
  EXPECT_NE(stopped.find("No space left on device"), std::string::npos) << stopped;
  EXPECT_TRUE(Has(lines, "CLOSED")) << "the worker did not get to close the store";
  EXPECT_EQ(Find(lines, "VERIFY ").rfind("ok ", 0), 0u) << Find(lines, "VERIFY ");
}

// Once space is freed, the same open store takes writes again, without a reopen: RocksDB resumes
// a store stopped by a full disk when a memtable's worth of space is free. Every write it
// acknowledged before and after is there when the store is reopened.
TEST(FullDisk, WritesResumeOnceSpaceIsFreed) {
  testing::TempDir dir;
  auto lines = RunHelper({"fill-disk", "tmpfs", dir.Sub("tmpfs")});
  if (std::string why = Find(lines, "SKIP "); !why.empty()) GTEST_SKIP() << why;
  ASSERT_NE(Find(lines, "FAILED "), "") << "the store never ran out of space";
  ASSERT_TRUE(Has(lines, "FREED"));
  EXPECT_EQ(Find(lines, "WRITABLE "), "OK") << "Store::AwaitWritable after space was freed";
  EXPECT_EQ(Find(lines, "RESUMED "), "OK") << "the store did not take writes after space was freed";
  EXPECT_TRUE(Has(lines, "CLOSED"));
  EXPECT_EQ(Find(lines, "VERIFY ").rfind("ok ", 0), 0u) << Find(lines, "VERIFY ");
  EXPECT_EQ(Find(lines, "WRITE "), "OK") << "a write after reopening";
}

// Regression (docs/errors.md, "Known problems" 2): engine/local/rocks_status.cc once took any
// RocksDB IOError whose text contains "lock" for the LOCK file held by another process, so every
// I/O error of a store whose path contains "lock" (/srv/blocks, /var/lib/clock, ...) was reported
// as Busy "the store is already open in another process" -- here a file-size limit.
TEST(IoErrors, IoErrorUnderAPathContainingLockIsNotBusy) {
  testing::TempDir dir;
  auto lines = RunHelper({"fill-disk", "fsize", dir.Sub("blocks")});
  std::string failed = Find(lines, "FAILED ");
  EXPECT_TRUE(failed.rfind("IOError ", 0) == 0) << failed;
  EXPECT_TRUE(failed.find("already open in another process") == std::string::npos) << failed;
}

}  // namespace
}  // namespace partkv::errors
