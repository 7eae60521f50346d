// partkv-bench: the key-strategy comparison on disk (comparison.h). Prints the terminal tables to
// stdout, writes partkv-compare.csv and partkv-compare.html into --out and prints their paths;
// with --sweep also partkv-compare-sweep.csv and one CSV per run. Progress goes to stderr, only
// when stderr is a terminal. Exit status: 0 done, 1 the run failed, 2 bad flags.

#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "bench/compare/comparison.h"
#include "bench/compare/csv_report.h"
#include "bench/compare/flags.h"
#include "bench/compare/format.h"
#include "bench/compare/html_report.h"
#include "bench/compare/progress_bar.h"
#include "bench/compare/terminal_report.h"
#include "fmt/format.h"

namespace partkv::compare {
namespace {

namespace fs = std::filesystem;

constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

int Fail(const std::string& message, int code) {
  std::fprintf(stderr, "partkv-bench: error: %s\n", message.c_str());
  return code;
}

// A fresh directory under `base`, removed with its contents when the object goes.
class ScratchDir {
 public:
  explicit ScratchDir(std::string base) {
    if (base.empty()) {
      const char* tmp = std::getenv("TMPDIR");
      base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    }
    std::string tmpl = base + "/partkv-bench-XXXXXX";
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

Status WriteFile(const std::string& path, const std::string& content) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << content;
  f.close();
  if (!f) return Status::IOError("cannot write " + path);
  return Status::OK();
}

std::string Absolute(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

int Main(int argc, char** argv) {
  auto flags = ParseFlags(argc, argv);
  if (!flags.ok()) return Fail(std::string(flags.status().message()), kExitUsage);
  if (flags->help) {
    std::fputs(flags->help_text.c_str(), stdout);
    return 0;
  }
  ScratchDir scratch(flags->work_dir);
  if (scratch.path().empty()) {
    return Fail("cannot create a working directory (set --work-dir or TMPDIR)", kExitFailed);
  }

  const std::vector<uint64_t> multipliers =
      flags->sweep ? std::vector<uint64_t>{1, 3, 10} : std::vector<uint64_t>{1};
  uint64_t total_weight = 0, done_weight = 0;
  for (uint64_t m : multipliers) total_weight += m;

  ProgressBar bar;
  SweepResult sweep;
  for (size_t k = 0; k < multipliers.size(); ++k) {
    ComparisonOptions options;
    options.workload.events = flags->events * multipliers[k];
    options.workload.days = flags->days;
    options.workload.seed = flags->seed;
    options.physical_partitions = flags->partitions;
    options.replay_rate = flags->replay_rate;
    options.target.location = flags->target;
    options.target.in_flight = flags->target_in_flight;
    options.target.keep_tables = flags->keep_target_tables;
    options.work_dir = scratch.path() + "/run-" + std::to_string(k);
    std::error_code ec;
    fs::create_directories(options.work_dir, ec);
    if (ec) return Fail("cannot create " + options.work_dir + ": " + ec.message(), kExitFailed);
    bar.Scope(static_cast<double>(done_weight) / total_weight,
              static_cast<double>(done_weight + multipliers[k]) / total_weight,
              flags->sweep ? fmt::format("{}× ", multipliers[k]) : "");
    auto result = RunComparison(options, &bar);
    bar.Clear();
    if (!result.ok()) return Fail(result.status().ToString(), kExitFailed);
    fs::remove_all(options.work_dir, ec);
    done_weight += multipliers[k];
    if (flags->sweep) {
      std::string phases;
      for (const auto& [phase, seconds] : result->phase_seconds) {
        if (seconds >= 0.05)
          phases += (phases.empty() ? "" : ", ") + phase + " " + Duration(seconds);
      }
      std::fprintf(stderr, "partkv-bench: %s× (%s events) done in %s (%s)%s\n",
                   std::to_string(multipliers[k]).c_str(), Grouped(options.workload.events).c_str(),
                   Duration(result->wall_seconds).c_str(), phases.c_str(),
                   result->settled ? "" : "; background work had not settled before the reads");
    }
    sweep.runs.push_back(std::move(*result));
  }

  const ComparisonResult& base = sweep.runs.front();
  std::fputs(RenderTerminalReport(base).c_str(), stdout);
  const std::string csv = flags->out + "/partkv-compare.csv";
  const std::string html = flags->out + "/partkv-compare.html";
  if (Status s = WriteFile(csv, RenderCsv(base)); !s.ok()) return Fail(s.ToString(), kExitFailed);
  if (flags->sweep) {
    std::fputs("\n", stdout);
    std::fputs(RenderSweepReport(sweep).c_str(), stdout);
    const std::string sweep_csv = flags->out + "/partkv-compare-sweep.csv";
    if (Status s = WriteFile(sweep_csv, RenderSweepCsv(sweep)); !s.ok()) {
      return Fail(s.ToString(), kExitFailed);
    }
    for (const ComparisonResult& run : sweep.runs) {
      const std::string path =
          fmt::format("{}/partkv-compare-{}.csv", flags->out, run.workload.events);
      if (Status s = WriteFile(path, RenderCsv(run)); !s.ok())
        return Fail(s.ToString(), kExitFailed);
    }
    std::printf("sweep csv: %s\n", Absolute(sweep_csv).c_str());
  }
  if (Status s = WriteFile(html, RenderHtml(base, flags->sweep ? &sweep : nullptr)); !s.ok()) {
    return Fail(s.ToString(), kExitFailed);
  }
  std::printf("csv:    %s\nreport: %s\n", Absolute(csv).c_str(), Absolute(html).c_str());
  return 0;
}

}  // namespace
}  // namespace partkv::compare

int main(int argc, char** argv) { return partkv::compare::Main(argc, argv); }
