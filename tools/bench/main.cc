// partkv-bench: the key-strategy comparison on disk (comparison.h). Prints the terminal tables to
// stdout, writes partkv-compare.csv and partkv-compare.html into --out and prints their paths;
// with --sweep also partkv-compare-sweep.csv and one CSV per run. Progress goes to stderr, only
// when stderr is a terminal. Exit status: 0 done, 1 the run failed, 2 bad flags or bad input (a
// line of --data that is not an entity, an attribute no entity has, keys that collide).

#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <system_error>

#include "fmt/format.h"
#include "partkv/json.h"
#include "tools/bench/comparison.h"
#include "tools/bench/csv_report.h"
#include "tools/bench/dataset.h"
#include "tools/bench/flags.h"
#include "tools/bench/format.h"
#include "tools/bench/html_report.h"
#include "tools/bench/progress_bar.h"
#include "tools/bench/reads.h"
#include "tools/bench/strategies.h"
#include "tools/bench/suggest.h"
#include "tools/bench/terminal_report.h"

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

// What the user asked to compare: strategies, RowKey scheme, reads, and the data loaded with
// every attribute they name kept. InvalidArgument (exit 2) for anything the input gets wrong.
struct Subject {
  std::vector<StrategySpec> strategies;
  std::optional<KeyStrategy> row_key;
  std::vector<ReadSpec> reads;
  std::shared_ptr<const DataSet> data;
};

Result<Subject> MakeSubject(const BenchFlags& flags, const std::string& spool_dir) {
  Subject s;
  // Which flag names each attribute, for the error when no entity has it.
  std::vector<std::pair<std::string, std::string>> uses;  // attribute, flag and value
  for (size_t i = 0; i < flags.strategies.size(); ++i) {
    PARTKV_ASSIGN_OR_RETURN(StrategySpec spec, UserStrategy(flags.strategies[i], i));
    for (const std::string& f : spec.partition_key.fields()) {
      uses.push_back({f, "--strategy " + spec.label});
    }
    s.strategies.push_back(std::move(spec));
  }
  if (!flags.row_key.empty()) {
    PARTKV_ASSIGN_OR_RETURN(KeyStrategy rk, KeyStrategy::Parse(flags.row_key));
    for (const std::string& f : rk.fields()) uses.push_back({f, "--row-key " + rk.ToString()});
    s.row_key = rk;
  } else if (!flags.data.empty()) {
    s.row_key = *KeyStrategy::Parse("concat(RowKey)");
    uses.push_back({"RowKey", "the RowKey (no --row-key given)"});
  }
  for (const std::string& text : flags.reads) {
    PARTKV_ASSIGN_OR_RETURN(ReadSpec read, ParseReadSpec(text));
    for (const std::string& a : read.attributes) uses.push_back({a, "--read " + text});
    s.reads.push_back(std::move(read));
  }
  if (flags.data.empty()) {
    // The built-in workload keeps date, deviceId, orderId and time.
    for (const auto& [attribute, flag] : uses) {
      if (attribute != "date" && attribute != "deviceId" && attribute != "orderId" &&
          attribute != "time") {
        return Status::InvalidArgument(fmt::format(
            "{}: the built-in workload has no attribute '{}' a key or a read can use (it has "
            "date, deviceId, orderId, time; --data compares on your own entities)",
            flag, attribute));
      }
    }
    return s;
  }
  DataSetOptions o;
  o.path = flags.data;
  for (const auto& [attribute, flag] : uses) o.keep.push_back(attribute);
  // The time attribute is read into each entity's time, not kept as a column (a column of a
  // million distinct times would cost tens of MiB for nothing).
  o.time_attribute = flags.time;
  o.default_rate = flags.replay_rate;
  o.spool_dir = spool_dir;
  Result<DataSet> data = DataSet::Load(o);
  if (!data.ok()) {
    // Name the flag that asked for an attribute no entity has.
    const std::string message(data.status().message());
    constexpr std::string_view kNoEntity = "no entity has the attribute '";
    if (message.starts_with(kNoEntity)) {
      const std::string attribute =
          message.substr(kNoEntity.size(), message.find('\'', kNoEntity.size()) - kNoEntity.size());
      for (const auto& [a, flag] : uses) {
        if (a == attribute) return Status::InvalidArgument(flag + ": " + message);
      }
      if (attribute == flags.time) return Status::InvalidArgument("--time: " + message);
    }
    const std::string where = flags.data == "-" ? "stdin" : flags.data;
    if (data.status().IsInvalidArgument()) {
      return Status::InvalidArgument("--data " + where + ": " + message);
    }
    return data.status().WithContext("--data " + where);
  }
  s.data = std::make_shared<const DataSet>(std::move(*data));
  if (flags.suggest) {
    const Peaks peaks = FindPeaks(*s.data);
    const double hours = std::max(
        1.0, static_cast<double>(s.data->TimeMicros(s.data->size() - 1) - s.data->TimeMicros(0)) /
                 3.6e9);
    SuggestInput in;
    in.attributes = &s.data->attributes();
    in.entities = s.data->size();
    in.reads = &s.reads;
    in.row_key = &*s.row_key;
    in.replay_rate = flags.replay_rate;
    in.burst_factor = s.data->has_time() ? static_cast<double>(peaks.hour_end - peaks.hour_begin) /
                                               (static_cast<double>(s.data->size()) / hours)
                                         : 1;
    in.given = &s.strategies;
    std::vector<StrategySpec> suggested = Suggest(in);
    // A suggestion may key on an attribute the data did not keep: read it again keeping it.
    bool missing = false;
    for (const StrategySpec& spec : suggested) {
      for (const std::string& f : spec.partition_key.fields()) {
        if (!s.data->Column(f)) {
          o.keep.push_back(f);
          missing = true;
        }
      }
    }
    if (missing) {
      PARTKV_ASSIGN_OR_RETURN(DataSet again, DataSet::Load(o));
      s.data = std::make_shared<const DataSet>(std::move(again));
    }
    for (StrategySpec& spec : suggested) s.strategies.push_back(std::move(spec));
  }
  return s;
}

// --export-workload: the built-in workload's entities, without keys, as JSON Lines. The exit
// status.
int ExportWorkload(const BenchFlags& flags) {
  WorkloadOptions wo;
  wo.events = flags.events;
  wo.days = flags.days;
  wo.seed = flags.seed;
  const Workload workload = Workload::Generate(wo);
  std::ofstream out(flags.export_workload, std::ios::binary | std::ios::trunc);
  // The keys are what --data chooses: left out rather than written empty.
  constexpr std::string_view kNoKeys = R"({"PartitionKey":"","RowKey":"",)";
  for (size_t i = 0; i < workload.size() && out; ++i) {
    std::string line = EntityToJson(workload.MakeEntity(i));
    if (line.starts_with(kNoKeys)) line.replace(0, kNoKeys.size(), "{");
    out << line << '\n';
  }
  out.close();
  if (!out) return Fail("cannot write " + flags.export_workload, kExitFailed);
  std::printf("%s: %s entities\n", Absolute(flags.export_workload).c_str(),
              Grouped(workload.size()).c_str());
  return 0;
}

// The comparison of `subject` at `multiplier` times --events, in `work_dir`.
ComparisonOptions OptionsFor(const BenchFlags& flags, const Subject& subject, uint64_t multiplier,
                             std::string work_dir) {
  ComparisonOptions options;
  options.workload.events = flags.events * multiplier;
  options.workload.days = flags.days;
  options.workload.seed = flags.seed;
  options.data = subject.data;
  options.strategies = subject.strategies;
  options.row_key = subject.row_key;
  options.reads = subject.reads;
  options.time_attribute = flags.time;
  options.physical_partitions = flags.partitions;
  options.replay_rate = flags.replay_rate;
  options.target.location = flags.target;
  options.target.in_flight = flags.target_in_flight;
  options.target.keep_tables = flags.keep_target_tables;
  options.work_dir = std::move(work_dir);
  return options;
}

// A sweep's line on stderr for one finished run: its time, by phase.
void PrintRunTime(uint64_t multiplier, const ComparisonOptions& options,
                  const ComparisonResult& result) {
  std::string phases;
  for (const auto& [phase, seconds] : result.phase_seconds) {
    if (seconds >= 0.05) phases += (phases.empty() ? "" : ", ") + phase + " " + Duration(seconds);
  }
  std::fprintf(stderr, "partkv-bench: %s× (%s events) done in %s (%s)%s\n",
               std::to_string(multiplier).c_str(), Grouped(options.workload.events).c_str(),
               Duration(result.wall_seconds).c_str(), phases.c_str(),
               result.settled ? "" : "; background work had not settled before the reads");
}

// Runs the comparison once, or once per multiplier of --sweep, each in its own directory under
// `scratch`, into `sweep`. 0, or the exit status of the failure it reported.
int RunComparisons(const BenchFlags& flags, const Subject& subject, const std::string& scratch,
                   SweepResult* sweep) {
  const std::vector<uint64_t> multipliers =
      flags.sweep ? std::vector<uint64_t>{1, 3, 10} : std::vector<uint64_t>{1};
  uint64_t total_weight = 0, done_weight = 0;
  for (uint64_t m : multipliers) total_weight += m;

  ProgressBar bar;
  for (size_t k = 0; k < multipliers.size(); ++k) {
    const ComparisonOptions options =
        OptionsFor(flags, subject, multipliers[k], scratch + "/run-" + std::to_string(k));
    std::error_code ec;
    fs::create_directories(options.work_dir, ec);
    if (ec) return Fail("cannot create " + options.work_dir + ": " + ec.message(), kExitFailed);
    bar.Scope(static_cast<double>(done_weight) / total_weight,
              static_cast<double>(done_weight + multipliers[k]) / total_weight,
              flags.sweep ? fmt::format("{}× ", multipliers[k]) : "");
    auto result = RunComparison(options, &bar);
    bar.Clear();
    if (!result.ok()) {
      // Bad input found while running (a key an entity cannot give, two entities with the same
      // keys): the user's to fix, exit 2.
      if (result.status().IsInvalidArgument()) {
        return Fail(std::string(result.status().message()), kExitUsage);
      }
      return Fail(result.status().ToString(), kExitFailed);
    }
    fs::remove_all(options.work_dir, ec);
    done_weight += multipliers[k];
    if (flags.sweep) PrintRunTime(multipliers[k], options, *result);
    std::vector<std::string> suggested;
    for (const StrategySpec& spec : subject.strategies) {
      if (spec.suggested) suggested.push_back(spec.label);
    }
    result->workload_file = WorkloadJson(flags, suggested);
    sweep->runs.push_back(std::move(*result));
  }
  return 0;
}

// The terminal tables to stdout; partkv-compare.csv and partkv-compare.html into --out, with
// --sweep also partkv-compare-sweep.csv and one CSV per run. The exit status.
int WriteReports(const BenchFlags& flags, const SweepResult& sweep) {
  const ComparisonResult& base = sweep.runs.front();
  std::fputs(RenderTerminalReport(base).c_str(), stdout);
  const std::string csv = flags.out + "/partkv-compare.csv";
  const std::string html = flags.out + "/partkv-compare.html";
  if (Status s = WriteFile(csv, RenderCsv(base)); !s.ok()) return Fail(s.ToString(), kExitFailed);
  if (flags.sweep) {
    std::fputs("\n", stdout);
    std::fputs(RenderSweepReport(sweep).c_str(), stdout);
    const std::string sweep_csv = flags.out + "/partkv-compare-sweep.csv";
    if (Status s = WriteFile(sweep_csv, RenderSweepCsv(sweep)); !s.ok()) {
      return Fail(s.ToString(), kExitFailed);
    }
    for (const ComparisonResult& run : sweep.runs) {
      const std::string path =
          fmt::format("{}/partkv-compare-{}.csv", flags.out, run.workload.events);
      if (Status s = WriteFile(path, RenderCsv(run)); !s.ok()) {
        return Fail(s.ToString(), kExitFailed);
      }
    }
    std::printf("sweep csv: %s\n", Absolute(sweep_csv).c_str());
  }
  if (Status s = WriteFile(html, RenderHtml(base, flags.sweep ? &sweep : nullptr)); !s.ok()) {
    return Fail(s.ToString(), kExitFailed);
  }
  std::printf("csv:    %s\nreport: %s\n", Absolute(csv).c_str(), Absolute(html).c_str());
  return 0;
}

int Main(int argc, char** argv) {
  auto flags = ParseFlags(argc, argv);
  if (!flags.ok()) return Fail(std::string(flags.status().message()), kExitUsage);
  if (flags->help) {
    std::fputs(flags->help_text.c_str(), stdout);
    return 0;
  }
  if (!flags->export_workload.empty()) return ExportWorkload(*flags);
  ScratchDir scratch(flags->work_dir);
  if (scratch.path().empty()) {
    return Fail("cannot create a working directory (set --work-dir or TMPDIR)", kExitFailed);
  }
  Result<Subject> subject = MakeSubject(*flags, scratch.path());
  if (!subject.ok()) {
    return Fail(std::string(subject.status().message()),
                subject.status().IsInvalidArgument() ? kExitUsage : kExitFailed);
  }
  SweepResult sweep;
  if (int code = RunComparisons(*flags, *subject, scratch.path(), &sweep); code != 0) {
    return code;
  }
  return WriteReports(*flags, sweep);
}

}  // namespace
}  // namespace partkv::compare

int main(int argc, char** argv) { return partkv::compare::Main(argc, argv); }
