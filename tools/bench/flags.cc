#include "tools/bench/flags.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>

#include "CLI/CLI.hpp"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "partkv/store.h"
#include "tools/bench/format.h"
#include "tools/bench/reads.h"
#include "tools/bench/strategies.h"

namespace partkv::compare {
namespace {

template <typename T>
Status ParseWhole(const std::string& flag, const std::optional<std::string>& text, T min, T max,
                  T* out) {
  if (!text) return Status::OK();
  const std::string range = fmt::format("expected {}..{}", Grouped(min), Grouped(max));
  uint64_t v = 0;
  const char* begin = text->data();
  const char* end = begin + text->size();
  auto [ptr, ec] = std::from_chars(begin, end, v);
  if (text->empty() || ec == std::errc::invalid_argument || ptr != end) {
    return Status::InvalidArgument(
        fmt::format("{}: '{}' is not a whole number ({})", flag, *text, range));
  }
  if (ec == std::errc::result_out_of_range || v < min || v > max) {
    return Status::InvalidArgument(fmt::format("{}: {} is out of range ({})", flag, *text, range));
  }
  *out = static_cast<T>(v);
  return Status::OK();
}

Status ParseRate(const std::string& flag, const std::optional<std::string>& text, double max,
                 double* out) {
  if (!text) return Status::OK();
  const std::string range = fmt::format("expected a number of entities/s above 0, at most {}",
                                        Grouped(static_cast<uint64_t>(max)));
  double v = 0;
  const char* begin = text->data();
  const char* end = begin + text->size();
  auto [ptr, ec] = std::from_chars(begin, end, v);
  if (text->empty() || ec == std::errc::invalid_argument || ptr != end) {
    return Status::InvalidArgument(
        fmt::format("{}: '{}' is not a number ({})", flag, *text, range));
  }
  if (ec == std::errc::result_out_of_range || !std::isfinite(v) || v <= 0 || v > max) {
    return Status::InvalidArgument(fmt::format("{}: {} is out of range ({})", flag, *text, range));
  }
  *out = v;
  return Status::OK();
}

// --workload: fills `flags` from the file where the command line did not set a value; strategies
// and reads from the file come first. InvalidArgument "--workload FILE: ..." for anything wrong.
Status ApplyWorkloadFile(BenchFlags* flags, std::optional<std::string>* replay_rate,
                         std::optional<std::string>* partitions) {
  namespace fs = std::filesystem;
  const std::string& path = flags->workload;
  auto bad = [&](const std::string& what) {
    return Status::InvalidArgument(fmt::format("--workload {}: {}", path, what));
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) return bad("cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    return bad(fmt::format("not JSON ({})", e.what()));
  }
  if (!j.is_object()) return bad("must be a JSON object");
  static const std::set<std::string> kKnown = {"data", "strategies",  "row_key",    "reads",
                                               "time", "replay_rate", "partitions", "suggest"};
  for (const auto& [key, value] : j.items()) {
    if (kKnown.count(key) == 0) {
      return bad(
          fmt::format("unknown member '{}' (known: data, strategies, row_key, reads, "
                      "time, replay_rate, partitions, suggest)",
                      key));
    }
  }
  auto text_member = [&](const char* name, std::string* out) -> Status {
    if (!j.contains(name)) return Status::OK();
    if (!j[name].is_string()) return bad(fmt::format("'{}' must be a string", name));
    if (out->empty()) *out = j[name].get<std::string>();
    return Status::OK();
  };
  auto list_member = [&](const char* name, std::vector<std::string>* out,
                         bool objects_are_reads) -> Status {
    if (!j.contains(name)) return Status::OK();
    if (!j[name].is_array()) return bad(fmt::format("'{}' must be an array", name));
    std::vector<std::string> items;
    for (const auto& item : j[name]) {
      if (item.is_string()) {
        items.push_back(item.get<std::string>());
      } else if (objects_are_reads && item.is_object() && item.contains("name") &&
                 item["name"].is_string() && item.contains("attributes") &&
                 item["attributes"].is_array()) {
        // {"name": "by-day", "attributes": ["day"], "weight": 2} as by-day=day@2
        std::string spec = item["name"].get<std::string>() + "=";
        for (size_t k = 0; k < item["attributes"].size(); ++k) {
          if (!item["attributes"][k].is_string()) {
            return bad(fmt::format("read '{}': attributes must be strings",
                                   item["name"].get<std::string>()));
          }
          spec += (k == 0 ? "" : ",") + item["attributes"][k].get<std::string>();
        }
        if (item.contains("weight")) {
          if (!item["weight"].is_number()) {
            return bad(
                fmt::format("read '{}': weight must be a number", item["name"].get<std::string>()));
          }
          spec += fmt::format("@{}", item["weight"].get<double>());
        }
        items.push_back(spec);
      } else {
        return bad(fmt::format("'{}' must hold strings{}", name,
                               objects_are_reads ? " or {name, attributes, weight} objects" : ""));
      }
    }
    out->insert(out->begin(), items.begin(), items.end());
    return Status::OK();
  };
  std::string data;
  PARTKV_RETURN_IF_ERROR(text_member("data", &data));
  if (flags->data.empty() && !data.empty()) {
    // Relative to the workload file, so the file and its data can move together.
    flags->data = data == "-" || fs::path(data).is_absolute()
                      ? data
                      : (fs::path(path).parent_path() / data).lexically_normal().string();
  }
  PARTKV_RETURN_IF_ERROR(list_member("strategies", &flags->strategies, false));
  PARTKV_RETURN_IF_ERROR(text_member("row_key", &flags->row_key));
  PARTKV_RETURN_IF_ERROR(list_member("reads", &flags->reads, true));
  PARTKV_RETURN_IF_ERROR(text_member("time", &flags->time));
  for (auto [name, out] :
       {std::pair{"replay_rate", replay_rate}, std::pair{"partitions", partitions}}) {
    if (!j.contains(name) || out->has_value()) continue;
    if (!j[name].is_number()) return bad(fmt::format("'{}' must be a number", name));
    *out = j[name].dump();
  }
  if (j.contains("suggest")) {
    if (!j["suggest"].is_boolean()) return bad("'suggest' must be true or false");
    flags->suggest = flags->suggest || j["suggest"].get<bool>();
  }
  return Status::OK();
}

// The numeric flags as typed: parsed and range-checked once the workload file has filled the
// ones the command line left unset.
struct NumberTexts {
  std::optional<std::string> events, days, seed, partitions, replay_rate, target_in_flight;
};

// --events, --days, --seed, --partitions, --replay-rate.
void AddWorkloadOptions(CLI::App& app, const BenchFlags& flags, NumberTexts& texts) {
  app.add_option("--events", texts.events,
                 fmt::format("events in the workload ({}; default {})",
                             fmt::format("{}..{}", Grouped(BenchFlags::kMinEvents),
                                         Grouped(BenchFlags::kMaxEvents)),
                             Grouped(flags.events)))
      ->type_name("N");
  app.add_option(
         "--days", texts.days,
         fmt::format("days the events span (1..{}; default {})", BenchFlags::kMaxDays, flags.days))
      ->type_name("D");
  app.add_option(
         "--seed", texts.seed,
         fmt::format("seed of the workload and of the random suffixes (default {})", flags.seed))
      ->type_name("S");
  app.add_option("--partitions", texts.partitions,
                 fmt::format("physical partitions per table (1..{}; default {})",
                             BenchFlags::kMaxPartitions, flags.partitions))
      ->type_name("P");
  app.add_option("--replay-rate", texts.replay_rate,
                 fmt::format("average entities/s of the compressed timeline that batching and "
                             "the throttled replay use (default {:.0f})",
                             flags.replay_rate))
      ->type_name("R");
}

// --out, --work-dir, --sweep, and the target's --target, --target-in-flight,
// --keep-target-tables.
void AddRunOptions(CLI::App& app, BenchFlags& flags, NumberTexts& texts) {
  app.add_option("--out", flags.out,
                 "directory for partkv-compare.csv and partkv-compare.html (created; default "
                 "./partkv-report; the last one given wins)")
      ->type_name("DIR")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--work-dir", flags.work_dir,
                 "directory for the stores while the run lasts (default: a fresh one under "
                 "$TMPDIR, removed at the end)")
      ->type_name("DIR");
  app.add_flag("--sweep", flags.sweep,
               "run the comparison at 1x, 3x and 10x the events and report how the per-entity "
               "write cost and the per-page read cost grow");
  app.add_option("--target", flags.target,
                 "also write every strategy's batches, at the replay's pace, and run its reads "
                 "against this Table endpoint (an Azure Storage connection string or a table "
                 "endpoint URL with a SAS; Azure Table Storage, Cosmos DB for Table, Azurite, "
                 "partkv serve), and report the 503/429 answers and retry waits it met beside "
                 "the predicted throttling")
      ->type_name("CONN");
  app.add_option("--target-in-flight", texts.target_in_flight,
                 fmt::format("batches sent to the target at once (1..256; default {})",
                             flags.target_in_flight))
      ->type_name("N");
  app.add_flag("--keep-target-tables", flags.keep_target_tables,
               "leave the tables written on the target (default: deleted after each strategy)");
}

// --data, --strategy, --row-key, --read, --suggest, --workload, --export-workload, --time.
void AddDataOptions(CLI::App& app, BenchFlags& flags) {
  app.add_option("--data", flags.data,
                 "compare on your own entities: JSON Lines as `partkv export` writes them "
                 "(PartitionKey and RowKey optional), read in one streaming pass; - reads stdin. "
                 "Default: the built-in telemetry workload")
      ->type_name("FILE");
  app.add_option("--strategy", flags.strategies,
                 "a PartitionKey strategy to compare, in the text form of docs/keys.md, e.g. "
                 "'hash-suffix(orderDate,orderId,50)', or an attribute name alone for "
                 "concat(NAME) (repeatable; default: the built-in six)")
      ->type_name("SPEC");
  app.add_option("--row-key", flags.row_key,
                 "the RowKey scheme every strategy's table uses (docs/keys.md), e.g. "
                 "'concat(customerId,orderId)', or an attribute name alone: orderId for "
                 "concat(orderId) (default: the data's own RowKey; the built-in workload's "
                 "orderId)")
      ->type_name("SPEC");
  app.add_option("--read", flags.reads,
                 "a read the application makes: every entity with given values of these "
                 "attributes, values sampled from the data, WEIGHT its share of the reads "
                 "(repeatable; e.g. by-customer=customerId@3)")
      ->type_name("NAME=ATTR[,ATTR...][@WEIGHT]");
  app.add_flag("--suggest", flags.suggest,
               "also compare PartitionKey candidates proposed from the data: per read its "
               "attributes concatenated, bucketed keys with suffixes sized from the write rate, "
               "the best-spread attribute");
  app.add_option("--workload", flags.workload,
                 "a JSON file holding the comparison (data, strategies, row_key, reads, time, "
                 "replay_rate, partitions, suggest); flags add strategies and reads to it and "
                 "override the rest. The report prints the workload it ran")
      ->type_name("FILE");
  app.add_option("--export-workload", flags.export_workload,
                 "write the built-in workload (--events, --days, --seed) as JSON Lines to FILE "
                 "and exit: the entities without keys, as --data reads them")
      ->type_name("FILE");
  app.add_option("--time", flags.time,
                 "the attribute (DateTime, date-time text or Unix seconds) that orders the "
                 "data's timeline; without it, file order at --replay-rate")
      ->type_name("ATTR");
}

// The numeric flags into `flags`, each within its range; --sweep's ten times --events too.
Status ParseNumbers(const NumberTexts& texts, BenchFlags* flags) {
  PARTKV_RETURN_IF_ERROR(ParseWhole<uint64_t>("--events", texts.events, BenchFlags::kMinEvents,
                                              BenchFlags::kMaxEvents, &flags->events));
  PARTKV_RETURN_IF_ERROR(
      ParseWhole<uint32_t>("--days", texts.days, 1, BenchFlags::kMaxDays, &flags->days));
  PARTKV_RETURN_IF_ERROR(ParseWhole<uint64_t>("--seed", texts.seed, 0, UINT64_MAX, &flags->seed));
  PARTKV_RETURN_IF_ERROR(ParseWhole<uint32_t>("--partitions", texts.partitions, 1,
                                              BenchFlags::kMaxPartitions, &flags->partitions));
  PARTKV_RETURN_IF_ERROR(ParseRate("--replay-rate", texts.replay_rate, BenchFlags::kMaxReplayRate,
                                   &flags->replay_rate));
  if (flags->sweep && flags->events > BenchFlags::kMaxEvents / 10) {
    return Status::InvalidArgument(fmt::format(
        "--events: {} with --sweep runs {} events, above the limit of {}", Grouped(flags->events),
        Grouped(flags->events * 10), Grouped(BenchFlags::kMaxEvents)));
  }
  return ParseWhole<uint32_t>("--target-in-flight", texts.target_in_flight, 1, 256,
                              &flags->target_in_flight);
}

// --target names a remote store, and not with --sweep.
Status CheckTarget(const BenchFlags& flags) {
  if (flags.target.empty()) return Status::OK();
  if (!Store::IsRemoteLocation(flags.target)) {
    return Status::InvalidArgument(
        fmt::format("--target: '{}' is not a connection string or a table endpoint URL with a SAS "
                    "(the comparison's local store is its own; --target names a remote one)",
                    Store::RedactLocation(flags.target)));
  }
  if (flags.sweep) {
    return Status::InvalidArgument("--target: not with --sweep (one run goes to the target)");
  }
  return Status::OK();
}

// Each --strategy parses, and none is given twice.
Status CheckStrategies(const BenchFlags& flags) {
  for (size_t i = 0; i < flags.strategies.size(); ++i) {
    auto spec = UserStrategy(flags.strategies[i], i);
    if (!spec.ok())
      return Status::InvalidArgument("--strategy: " + std::string(spec.status().message()));
    for (size_t j = 0; j < i; ++j) {
      if (UserStrategy(flags.strategies[j], j)->partition_key == spec->partition_key) {
        return Status::InvalidArgument(
            fmt::format("--strategy: '{}' is given twice", spec->partition_key.ToString()));
      }
    }
  }
  return Status::OK();
}

// --row-key parses, and is not a random suffix.
Status CheckRowKey(const BenchFlags& flags) {
  if (flags.row_key.empty()) return Status::OK();
  auto rk = KeyStrategy::Parse(flags.row_key);
  if (!rk.ok()) return Status::InvalidArgument("--row-key: " + std::string(rk.status().message()));
  if (rk->kind() == KeyStrategy::Kind::kRandomSuffix) {
    return Status::InvalidArgument(
        "--row-key: a random suffix cannot be a RowKey (a point read could not compute it)");
  }
  return Status::OK();
}

// Each --read parses, and no two share a name.
Status CheckReads(const BenchFlags& flags) {
  std::vector<std::string> read_names;
  for (const std::string& text : flags.reads) {
    auto read = ParseReadSpec(text);
    if (!read.ok())
      return Status::InvalidArgument("--read: " + std::string(read.status().message()));
    if (std::find(read_names.begin(), read_names.end(), read->name) != read_names.end()) {
      return Status::InvalidArgument(
          fmt::format("--read: the name '{}' is given to two reads", read->name));
    }
    read_names.push_back(read->name);
  }
  return Status::OK();
}

// --data: a readable file (or -), with strategies to compare and without the built-in
// workload's flags; --time only with it.
Status CheckData(const BenchFlags& flags, const NumberTexts& texts) {
  if (!flags.data.empty()) {
    if (flags.sweep) {
      return Status::InvalidArgument(
          "--sweep: not with --data (the sweep scales the built-in "
          "workload)");
    }
    if (texts.events || texts.days) {
      return Status::InvalidArgument(fmt::format("{}: not with --data (the data is what it is)",
                                                 texts.events ? "--events" : "--days"));
    }
    if (flags.strategies.empty() && !flags.suggest) {
      return Status::InvalidArgument(
          "--strategy: --data needs at least one --strategy to compare, or --suggest");
    }
    if (flags.data != "-") {
      std::error_code ec;
      if (!std::filesystem::is_regular_file(flags.data, ec)) {
        return Status::InvalidArgument(
            fmt::format("--data: '{}' is not a file that can be read", flags.data));
      }
    }
  } else if (!flags.time.empty()) {
    return Status::InvalidArgument(
        "--time: only with --data (the built-in workload has its own "
        "timeline)");
  }
  return Status::OK();
}

}  // namespace

std::string WorkloadJson(const BenchFlags& flags, const std::vector<std::string>& extra) {
  nlohmann::ordered_json j;
  if (!flags.data.empty()) j["data"] = flags.data;
  std::vector<std::string> strategies = flags.strategies;
  strategies.insert(strategies.end(), extra.begin(), extra.end());
  if (!strategies.empty()) j["strategies"] = strategies;
  if (!flags.row_key.empty()) j["row_key"] = flags.row_key;
  if (!flags.reads.empty()) j["reads"] = flags.reads;
  if (!flags.time.empty()) j["time"] = flags.time;
  j["replay_rate"] = flags.replay_rate;
  j["partitions"] = flags.partitions;
  return j.dump(2);
}

Status CheckWritableDirectory(const std::string& flag, const std::string& dir) {
  namespace fs = std::filesystem;
  if (dir.empty()) return Status::InvalidArgument(flag + ": the directory name is empty");
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    return Status::InvalidArgument(
        fmt::format("{}: '{}' exists and is not a directory", flag, dir));
  }
  fs::create_directories(dir, ec);
  if (ec) {
    return Status::InvalidArgument(
        fmt::format("{}: cannot create directory '{}': {}", flag, dir, ec.message()));
  }
  const std::string probe = dir + "/.partkv-bench-write-check";
  {
    std::ofstream f(probe);
    f << "ok\n";
    f.close();
    if (!f) {
      return Status::InvalidArgument(fmt::format("{}: cannot write files in '{}'", flag, dir));
    }
  }
  fs::remove(probe, ec);
  return Status::OK();
}

Result<BenchFlags> ParseFlags(int argc, const char* const* argv) {
  BenchFlags flags;
  CLI::App app{
      "partkv-bench: compares partition-key strategies on disk — the same workload written under "
      "each strategy into its own table, against raw RocksDB on the same bytes — and writes a "
      "terminal table, a CSV and an HTML report."};
  app.set_help_flag("-h,--help", "print this help and exit");
  NumberTexts texts;
  AddWorkloadOptions(app, flags, texts);
  AddRunOptions(app, flags, texts);
  AddDataOptions(app, flags);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    flags.help = true;
    flags.help_text = app.help();
    return flags;
  } catch (const CLI::ParseError& e) {
    return Status::InvalidArgument(e.what());
  }
  if (!flags.workload.empty()) {
    PARTKV_RETURN_IF_ERROR(ApplyWorkloadFile(&flags, &texts.replay_rate, &texts.partitions));
  }
  PARTKV_RETURN_IF_ERROR(ParseNumbers(texts, &flags));
  PARTKV_RETURN_IF_ERROR(CheckTarget(flags));
  PARTKV_RETURN_IF_ERROR(CheckStrategies(flags));
  PARTKV_RETURN_IF_ERROR(CheckRowKey(flags));
  PARTKV_RETURN_IF_ERROR(CheckReads(flags));
  PARTKV_RETURN_IF_ERROR(CheckData(flags, texts));
  PARTKV_RETURN_IF_ERROR(CheckWritableDirectory("--out", flags.out));
  if (!flags.work_dir.empty()) {
    PARTKV_RETURN_IF_ERROR(CheckWritableDirectory("--work-dir", flags.work_dir));
  }
  return flags;
}

}  // namespace partkv::compare
