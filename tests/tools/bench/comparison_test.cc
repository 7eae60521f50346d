// The key-strategy comparison run at a tiny size (tools/bench/comparison.h), checked for
// internal consistency: every strategy holds exactly the workload on disk, reads return exactly
// the workload's entities, `date` alone is more skewed than `hash-suffix`, throttling refuses the
// hot key and not the spread one, and the CSV, HTML and terminal reports carry every strategy.
//
// The comparison runs once for the whole suite (this binary is one CTest test).

#include "tools/bench/comparison.h"

#include <algorithm>
#include <map>
#include <memory>
#include <sstream>

#include "gtest/gtest.h"
#include "tests/testing/csv.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tools/bench/csv_report.h"
#include "tools/bench/html_report.h"
#include "tools/bench/strategies.h"
#include "tools/bench/svg_charts.h"
#include "tools/bench/terminal_report.h"

namespace partkv::compare {
namespace {

constexpr uint64_t kEvents = 6000;
constexpr uint32_t kDays = 2;
constexpr uint32_t kPartitions = 16;

class ComparisonTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    ComparisonOptions o;
    o.workload.events = kEvents;
    o.workload.days = kDays;
    o.workload.seed = 42;
    o.physical_partitions = kPartitions;
    // Fast enough that the burst day's ~3,700 entities outrun one key's 2,000 entities/s.
    o.replay_rate = 1e6;
    o.work_dir = dir_->path();
    o.reads = DefaultReads();
    for (ReadSpec& r : o.reads) {
      if (r.name == "point") r.samples = 60;
      if (r.name == "device-day") r.samples = 5;
    }
    result_ = new Result<ComparisonResult>(RunComparison(o));
  }
  static void TearDownTestSuite() {
    delete result_;
    delete dir_;
  }
  void SetUp() override { ASSERT_OK(*result_); }

  static const ComparisonResult& R() { return **result_; }
  static const StrategyResult& By(const std::string& label) {
    for (const StrategyResult& s : R().strategies) {
      if (s.label == label) return s;
    }
    ADD_FAILURE() << "no strategy " << label;
    return R().strategies.front();
  }
  static const ReadStats& Read(const StrategyResult& s, const std::string& name) {
    for (const ReadStats& r : s.reads) {
      if (r.name == name) return r;
    }
    ADD_FAILURE() << "no read " << name << " for " << s.label;
    return s.reads.front();
  }
  static const ThrottleStats& Throttle(const StrategyResult& s, const std::string& profile) {
    for (const ThrottleStats& t : s.throttle) {
      if (t.profile == profile) return t;
    }
    ADD_FAILURE() << "no throttled replay under " << profile << " for " << s.label;
    return s.throttle.front();
  }

  static testing::TempDir* dir_;
  static Result<ComparisonResult>* result_;
};

testing::TempDir* ComparisonTest::dir_ = nullptr;
Result<ComparisonResult>* ComparisonTest::result_ = nullptr;

TEST_F(ComparisonTest, EveryStrategyOfTheComparisonIsMeasured) {
  std::vector<std::string> expected, got;
  for (const StrategySpec& s : DefaultStrategies()) expected.push_back(s.label);
  for (const StrategyResult& s : R().strategies) got.push_back(s.label);
  EXPECT_EQ(got, expected);
  EXPECT_EQ(R().workload.events, kEvents);
}

TEST_F(ComparisonTest, EveryStrategyHoldsExactlyTheWorkloadOnDisk) {
  for (const StrategyResult& s : R().strategies) {
    SCOPED_TRACE(s.label);
    EXPECT_EQ(s.entities_written, kEvents);
    EXPECT_EQ(s.entities_on_disk(), kEvents);
    ASSERT_EQ(s.physical_on_disk.size(), kPartitions);
    EXPECT_EQ(s.physical_on_disk, s.analysis.physical_counts);
    EXPECT_EQ(s.analysis.logical.total, kEvents);
    EXPECT_EQ(s.analysis.errors, 0u);
    EXPECT_GT(s.batches, 0u);
    EXPECT_GT(s.write_rate(), 0);
    EXPECT_GT(s.raw_write_rate(), 0);
    EXPECT_GT(s.bytes_on_disk, 0u);
    EXPECT_GT(s.raw_bytes_on_disk, 0u);
  }
  EXPECT_EQ(By("date").analysis.logical.partitions, kDays);
}

TEST_F(ComparisonTest, DateAloneIsMoreSkewedThanHashSuffix) {
  const StrategyResult& date = By("date");
  const StrategyResult& hash = By("hash-suffix(date,orderId,200)");
  EXPECT_GT(date.physical_max_over_mean(), 2 * hash.physical_max_over_mean());
  EXPECT_GT(date.analysis.physical.cv, hash.analysis.physical.cv);
  EXPECT_GT(date.analysis.logical.hottest_share, 50 * hash.analysis.logical.hottest_share);
  // Every write of the burst hour goes to one key under `date`.
  EXPECT_EQ(date.peak_hour_hot_share, 1.0);
  EXPECT_LT(hash.peak_hour_hot_share, 0.05);
  EXPECT_GT(date.analysis.cloud[0].seconds_with_skew,
            10 * hash.analysis.cloud[0].seconds_with_skew);
}

TEST_F(ComparisonTest, ReadsReturnExactlyTheWorkloadsEntities) {
  for (const StrategyResult& s : R().strategies) {
    SCOPED_TRACE(s.label);
    ASSERT_EQ(s.reads.size(), 3u);
    const ReadStats& point = Read(s, "point");
    const ReadStats& day = Read(s, "day");
    const ReadStats& device_day = Read(s, "device-day");
    EXPECT_EQ(point.mismatches + day.mismatches + device_day.mismatches, 0u);
    EXPECT_EQ(point.samples, 60u);
    EXPECT_EQ(point.entities, 60u);
    EXPECT_TRUE(point.point);
    // Both days (the only distinct values), each read once: every entity once.
    EXPECT_EQ(day.samples, kDays);
    EXPECT_EQ(day.entities, kEvents);
    EXPECT_EQ(device_day.samples, 5u);
    EXPECT_GT(device_day.entities, 0u);
    EXPECT_GT(day.p99_micros, 0);
    EXPECT_LE(day.p50_micros, day.p99_micros);
  }
}

TEST_F(ComparisonTest, ReadFanOutFollowsTheKeyDesign) {
  // Page::examined may count one entry past the end of each stream a page reads; allow that.
  auto near = [](uint64_t examined, uint64_t expected, uint64_t slack) {
    return examined >= expected && examined <= expected + slack;
  };
  const StrategyResult& date = By("date");
  EXPECT_EQ(Read(date, "day").fanout, 1u);
  // One partition per day: the day's entities and nothing else.
  EXPECT_TRUE(near(Read(date, "day").examined, kEvents, Read(date, "day").pages))
      << Read(date, "day").examined;
  EXPECT_EQ(Read(By("random-suffix(date,200)"), "day").fanout, 200u);
  EXPECT_EQ(Read(By("hash-suffix(date,orderId,200)"), "day").fanout, 200u);
  // concat(deviceId,date) spreads a day over every device: each day read scans the whole table.
  const StrategyResult& concat = By("concat(deviceId,date)");
  EXPECT_EQ(Read(concat, "day").fanout, 0u);
  EXPECT_TRUE(near(Read(concat, "day").examined, kDays * kEvents,
                   Read(concat, "day").pages * (kPartitions + 1)))
      << Read(concat, "day").examined;
  // ... and one device's day is exactly one partition; under `date` it is a filtered day.
  EXPECT_TRUE(near(Read(concat, "device-day").examined, Read(concat, "device-day").entities,
                   Read(concat, "device-day").pages))
      << Read(concat, "device-day").examined;
  EXPECT_GT(Read(date, "device-day").examined, 5 * Read(date, "device-day").entities);
  EXPECT_EQ(Read(By("random-suffix(date,200)"), "point").fanout, 200u);
  EXPECT_EQ(Read(By("hash-suffix(date,orderId,200)"), "point").fanout, 1u);
}

TEST_F(ComparisonTest, ThrottlingRefusesTheHotKeyAndNotTheSpreadOne) {
  const StrategyResult& date = By("date");
  const StrategyResult& hash = By("hash-suffix(date,orderId,200)");
  for (const char* profile : {"azure-table", "dynamodb", "cosmos"}) {
    SCOPED_TRACE(profile);
    const ThrottleStats& hot = Throttle(date, profile);
    EXPECT_GT(hot.rate(), 0.2);
    EXPECT_EQ(hot.store_throttled, hot.throttled_calls);
    EXPECT_EQ(Throttle(hash, "azure-table").throttled_entities, 0u);
    // Both keys start with the date, so both are offered exactly the burst day.
    EXPECT_EQ(Throttle(hash, profile).offered_entities, hot.offered_entities);
  }
  EXPECT_EQ(Throttle(date, "azure-table").offered_entities, R().workload.busiest_day_events);
}

TEST_F(ComparisonTest, CsvHasARowPerStrategyWithItsCounts) {
  std::istringstream csv(RenderCsv(R()));
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  const std::vector<std::string> columns = CsvColumns(R());
  ASSERT_EQ(testing::SplitCsvLine(line), columns);
  auto col = [&](const std::string& name) {
    return static_cast<size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin());
  };
  std::vector<std::string> labels;
  std::map<std::string, double> hottest_share;
  while (std::getline(csv, line)) {
    const auto cells = testing::SplitCsvLine(line);
    ASSERT_EQ(cells.size(), columns.size()) << line;
    labels.push_back(cells[col("strategy")]);
    EXPECT_EQ(cells[col("entities_on_disk")], std::to_string(kEvents));
    EXPECT_EQ(cells[col("entities_written")], std::to_string(kEvents));
    EXPECT_GT(std::stod(cells[col("write_ratio_to_raw")]), 0);
    hottest_share[cells[col("strategy")]] = std::stod(cells[col("physical_max_over_mean")]);
  }
  std::vector<std::string> expected;
  for (const StrategyResult& s : R().strategies) expected.push_back(s.label);
  EXPECT_EQ(labels, expected);
  EXPECT_GT(hottest_share["date"], hottest_share["hash-suffix(date,orderId,200)"]);
}

TEST_F(ComparisonTest, HtmlHasAHeatHistogramPerStrategyAndLoadsNothing) {
  const std::string html = RenderHtml(R());
  for (const StrategyResult& s : R().strategies) {
    SCOPED_TRACE(s.label);
    const std::string tag = "<svg class=\"heat\" data-strategy=\"" + Escape(s.label) + "\"";
    const size_t at = html.find(tag);
    ASSERT_NE(at, std::string::npos);
    EXPECT_EQ(html.find(tag, at + 1), std::string::npos);  // exactly one
    const std::string svg = html.substr(at, html.find("</svg>", at) - at);
    size_t bars = 0;
    for (size_t p = svg.find("<rect"); p != std::string::npos; p = svg.find("<rect", p + 1)) ++bars;
    EXPECT_EQ(bars, kPartitions);
    EXPECT_NE(html.find("<tr data-strategy=\"" + Escape(s.label) + "\""), std::string::npos);
  }
  size_t charts = 0;
  for (size_t p = html.find("<svg class=\"chart\""); p != std::string::npos;
       p = html.find("<svg class=\"chart\"", p + 1)) {
    ++charts;
  }
  EXPECT_GE(charts, 6u);
  // Self-contained: nothing to fetch.
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_NE(html.find("data-report-check"), std::string::npos);
}

TEST_F(ComparisonTest, TerminalReportListsEveryStrategyInEveryTable) {
  const std::string text = RenderTerminalReport(R());
  for (const StrategyResult& s : R().strategies) {
    size_t n = 0;
    for (size_t p = text.find("\n" + s.label + " "); p != std::string::npos;
         p = text.find("\n" + s.label + " ", p + 1)) {
      ++n;
    }
    EXPECT_EQ(n, 3u) << s.label;  // writes, cloud, the recommendation's scores
    // The reads table: a row per read and strategy, the read's name first.
    for (const ReadStats& r : s.reads) {
      const size_t row = text.find("\n" + r.name + " ");
      ASSERT_NE(row, std::string::npos) << r.name;
      bool found = false;
      for (size_t p = row; p != std::string::npos && !found;
           p = text.find("\n" + r.name + " ", p + 1)) {
        const std::string line = text.substr(p + 1, text.find('\n', p + 1) - p - 1);
        found = line.find("  " + s.label + "  ") != std::string::npos;
      }
      EXPECT_TRUE(found) << r.name << " / " << s.label;
    }
  }
  for (const auto& line : {"Writes and layout", "Reads on disk", "Cloud:", "Findings"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line;
  }
}

}  // namespace
}  // namespace partkv::compare
