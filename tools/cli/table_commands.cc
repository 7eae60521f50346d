// partkv table create | set | list | sweep | drop.
//
// `create` and `set` take the change feed and time to live (partkv/changes.h): durations with
// units s/m/h/d (a plain number is seconds), sizes with B/KiB/MiB/GiB/TiB (a plain number is
// bytes), and a time to live that is a duration, -1 (only entities with a "ttl" property expire)
// or off.

#include <cctype>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "nlohmann/json.hpp"
#include "partkv/keys.h"
#include "partkv/profile.h"
#include "tools/cli/cli.h"

namespace partkv::cli {
namespace {

struct CreateArgs {
  std::string name;
  uint32_t partitions = TableOptions().physical_partitions;
  std::optional<std::string> pk_scheme;
  std::optional<std::string> rk_scheme;
  std::string profile;  // empty: the store's (azure-table)
  bool throttling = false;
  bool change_feed = false;
  std::optional<std::string> feed_retention;
  std::optional<std::string> feed_max_bytes;
  std::optional<std::string> ttl;
};

struct SetArgs {
  std::string name;
  std::optional<std::string> change_feed;  // on | off
  std::optional<std::string> feed_retention;
  std::optional<std::string> feed_max_bytes;
  std::optional<std::string> ttl;
};

struct DropArgs {
  std::string name;
};

struct SweepArgs {
  std::string name;
};

// The error of a value `option` cannot take.
Status BadValue(std::string_view option, std::string_view value, std::string_view expected) {
  return Status::InvalidArgument(std::string(option) + ": '" + std::string(value) + "' is not " +
                                 std::string(expected));
}

// The digits at the start of `text` as a number; nullopt when there are none or it overflows.
// *rest receives what follows them.
std::optional<uint64_t> LeadingNumber(std::string_view text, std::string_view* rest) {
  size_t i = 0;
  uint64_t n = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (n > (std::numeric_limits<uint64_t>::max() - digit) / 10) return std::nullopt;
    n = n * 10 + digit;
    ++i;
  }
  if (i == 0) return std::nullopt;
  *rest = text.substr(i);
  return n;
}

constexpr char kDurationForm[] =
    "a duration: a number with a unit s, m, h or d (90s, 12h, 7d; a plain number is seconds)";

// "90s", "12h", "7d", "600" -> seconds.
Result<std::chrono::seconds> ParseDuration(std::string_view option, std::string_view text) {
  std::string_view unit;
  std::optional<uint64_t> n = LeadingNumber(text, &unit);
  uint64_t scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  if (unit == "m") scale = 60;
  if (unit == "h") scale = 3600;
  if (unit == "d") scale = 86400;
  // At most about 292 years: seconds that fit an int64 of nanoseconds.
  constexpr uint64_t kMaxSeconds = std::numeric_limits<int64_t>::max() / 1'000'000'000;
  if (!n || scale == 0) return BadValue(option, text, kDurationForm);
  if (*n > kMaxSeconds / scale) return BadValue(option, text, "a duration of at most 292 years");
  return std::chrono::seconds(static_cast<int64_t>(*n * scale));
}

// "1GiB", "512KiB", "100B", "4096" -> bytes.
Result<uint64_t> ParseSize(std::string_view option, std::string_view text) {
  std::string_view unit;
  std::optional<uint64_t> n = LeadingNumber(text, &unit);
  int shift = -1;
  if (unit.empty() || unit == "B") shift = 0;
  if (unit == "KiB") shift = 10;
  if (unit == "MiB") shift = 20;
  if (unit == "GiB") shift = 30;
  if (unit == "TiB") shift = 40;
  if (!n || shift < 0) {
    return BadValue(option, text,
                    "a size: a number with a unit B, KiB, MiB, GiB or TiB (1GiB, 512MiB; a "
                    "plain number is bytes)");
  }
  if (*n > (std::numeric_limits<uint64_t>::max() >> shift)) {
    return BadValue(option, text, "a size that fits 64 bits");
  }
  return *n << shift;
}

// A duration, "-1" or "off" -> TableOptions::ttl_seconds.
Result<int64_t> ParseTtl(std::string_view text) {
  if (text == "off") return kTtlOff;
  if (text == "-1") return kTtlNoDefault;
  constexpr char kTtlForm[] =
      "a time to live: a duration (90s, 12h, 7d; a plain number is seconds), -1 (entities "
      "expire only by their own ttl property) or off";
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) {
    return BadValue("--ttl", text, kTtlForm);
  }
  Result<std::chrono::seconds> seconds = ParseDuration("--ttl", text);
  if (!seconds.ok()) return BadValue("--ttl", text, kTtlForm);
  if (seconds->count() == 0) {
    return BadValue("--ttl", text,
                    "a time to live: it must be more than 0 s (--ttl off turns it off)");
  }
  return seconds->count();
}

nlohmann::ordered_json SchemeJson(const std::string& scheme) {
  return scheme.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(scheme);
}

// One table as JSON. "TableName" is Azure's name for the member (Query Tables). A remote store
// knows only the name: the rest is the local catalog's.
std::string TableJson(const TableInfo& info, bool remote) {
  nlohmann::ordered_json j;
  j["TableName"] = info.name;
  if (remote) return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  j["physical_partitions"] = info.physical_partitions;
  j["partition_key_scheme"] = SchemeJson(info.partition_key_scheme);
  j["row_key_scheme"] = SchemeJson(info.row_key_scheme);
  j["profile"] = info.profile;
  j["throttling"] = info.throttling;
  j["created"] = info.created.ToString();
  j["change_feed"] = {{"enabled", info.change_feed.enabled},
                      {"retention_seconds", info.change_feed.retention.count()},
                      {"max_bytes", info.change_feed.max_bytes}};
  j["ttl_seconds"] = info.ttl_seconds;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<std::optional<KeyStrategy>> ParseScheme(const std::optional<std::string>& text,
                                               std::string_view option) {
  if (!text) return std::optional<KeyStrategy>();
  auto strategy = KeyStrategy::Parse(*text);
  if (!strategy.ok()) return strategy.status().WithContext(option);
  return std::optional<KeyStrategy>(std::move(*strategy));
}

Status CreateTable(const Context& ctx, const CreateArgs& args) {
  if (!args.profile.empty()) {
    if (Status s = CheckProfileName(args.profile); !s.ok()) return s.WithContext("--profile");
  }
  TableOptions options;
  options.profile = args.profile;
  if (args.throttling) options.throttling = true;
  options.physical_partitions = args.partitions;
  PARTKV_ASSIGN_OR_RETURN(options.partition_key_scheme, ParseScheme(args.pk_scheme, "--pk"));
  PARTKV_ASSIGN_OR_RETURN(options.row_key_scheme, ParseScheme(args.rk_scheme, "--rk"));
  if (!args.change_feed && (args.feed_retention || args.feed_max_bytes)) {
    return Status::InvalidArgument(
        std::string(args.feed_retention ? "--feed-retention" : "--feed-max-bytes") +
        " sets the change feed's retention: it needs --change-feed");
  }
  options.change_feed.enabled = args.change_feed;
  if (args.feed_retention) {
    PARTKV_ASSIGN_OR_RETURN(options.change_feed.retention,
                            ParseDuration("--feed-retention", *args.feed_retention));
  }
  if (args.feed_max_bytes) {
    PARTKV_ASSIGN_OR_RETURN(options.change_feed.max_bytes,
                            ParseSize("--feed-max-bytes", *args.feed_max_bytes));
  }
  if (args.ttl) {
    PARTKV_ASSIGN_OR_RETURN(options.ttl_seconds, ParseTtl(*args.ttl));
  }
  PARTKV_ASSIGN_OR_RETURN(Store store, OpenStore(ctx, /*create_if_missing=*/true));
  const bool remote = !store.capabilities().key_scheme_catalog;
  if (remote && (args.pk_scheme || args.rk_scheme)) {
    return Status::InvalidArgument(
        std::string(args.pk_scheme ? "--pk" : "--rk") +
        ": a remote store keeps no key schemes with its tables: create the table without them "
        "and give them to every command that opens it (--pk/--rk, or --pk-scheme/--rk-scheme "
        "for query and query-shards)");
  }
  PARTKV_RETURN_IF_ERROR(store.CreateTable(args.name, options));
  PARTKV_ASSIGN_OR_RETURN(Table table, store.OpenTable(args.name));
  PrintLine(TableJson(table.info(), remote));
  return Status::OK();
}

Status SetTable(const Context& ctx, const SetArgs& args) {
  if (!args.change_feed && !args.feed_retention && !args.feed_max_bytes && !args.ttl) {
    return Status::InvalidArgument(
        "table set: nothing to change: give --change-feed on|off, --feed-retention, "
        "--feed-max-bytes or --ttl (see `partkv table set --help`)");
  }
  std::optional<bool> feed_on;
  if (args.change_feed) {
    if (*args.change_feed != "on" && *args.change_feed != "off") {
      return BadValue("--change-feed", *args.change_feed, "on or off");
    }
    feed_on = *args.change_feed == "on";
  }
  std::optional<std::chrono::seconds> retention;
  if (args.feed_retention) {
    PARTKV_ASSIGN_OR_RETURN(retention, ParseDuration("--feed-retention", *args.feed_retention));
  }
  std::optional<uint64_t> max_bytes;
  if (args.feed_max_bytes) {
    PARTKV_ASSIGN_OR_RETURN(max_bytes, ParseSize("--feed-max-bytes", *args.feed_max_bytes));
  }
  TableSettings settings;
  if (args.ttl) {
    PARTKV_ASSIGN_OR_RETURN(settings.ttl_seconds, ParseTtl(*args.ttl));
  }
  PARTKV_ASSIGN_OR_RETURN(Store store, OpenStore(ctx));
  if (feed_on || retention || max_bytes) {
    // The fields not given keep their values: the feed's options are set as a whole.
    ChangeFeedOptions feed;
    {
      PARTKV_ASSIGN_OR_RETURN(Table table, store.OpenTable(args.name));
      feed = table.info().change_feed;
    }
    if (feed_on) feed.enabled = *feed_on;
    if (retention) feed.retention = *retention;
    if (max_bytes) feed.max_bytes = *max_bytes;
    settings.change_feed = feed;
  }
  PARTKV_RETURN_IF_ERROR(store.SetTableOptions(args.name, settings));
  PARTKV_ASSIGN_OR_RETURN(Table table, store.OpenTable(args.name));
  PrintLine(TableJson(table.info(), !store.capabilities().key_scheme_catalog));
  return Status::OK();
}

Status SweepTable(const Context& ctx, const SweepArgs& args) {
  PARTKV_ASSIGN_OR_RETURN(Store store, OpenStore(ctx));
  PARTKV_ASSIGN_OR_RETURN(Table table, store.OpenTable(args.name));
  PARTKV_ASSIGN_OR_RETURN(SweepReport report, table.Sweep());
  nlohmann::ordered_json j;
  j["table"] = table.info().name;
  j["feed_entries_trimmed"] = report.feed_entries_trimmed;
  j["expiries_recorded"] = report.expiries_recorded;
  PrintLine(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  return Status::OK();
}

Status ListTables(const Context& ctx) {
  PARTKV_ASSIGN_OR_RETURN(Store store, OpenStore(ctx));
  PARTKV_ASSIGN_OR_RETURN(std::vector<TableInfo> tables, store.ListTables());
  std::string out = "{\"value\":[";
  for (size_t i = 0; i < tables.size(); ++i) {
    if (i > 0) out += ',';
    out += TableJson(tables[i], !store.capabilities().key_scheme_catalog);
  }
  out += "]}";
  PrintLine(out);
  return Status::OK();
}

Status DropTable(const Context& ctx, const DropArgs& args) {
  PARTKV_ASSIGN_OR_RETURN(Store store, OpenStore(ctx));
  return store.DropTable(args.name);
}

}  // namespace

void AddTableCommands(CLI::App& app, Context& ctx) {
  CLI::App* table = app.add_subcommand("table", "Create, change, list, sweep and drop tables");
  table->require_subcommand(1, 1);

  auto create_args = std::make_shared<CreateArgs>();
  CLI::App* create = table->add_subcommand(
      "create", "Create a table (and the store, if there is none); prints the table as JSON");
  create->add_option("NAME", create_args->name, "table name: ^[A-Za-z][A-Za-z0-9]{2,62}$")
      ->required();
  create->add_option("--partitions", create_args->partitions,
                     "physical partitions (RocksDB column families), 1..1024; default 16");
  create
      ->add_option("--pk", create_args->pk_scheme,
                   "PartitionKey scheme, e.g. 'hash-suffix(date,OrderId,200)', or a property "
                   "name alone for concat(NAME) (docs/keys.md)")
      ->type_name("STRATEGY");
  create
      ->add_option("--rk", create_args->rk_scheme,
                   "RowKey scheme, e.g. 'desc-ticks(time)' or orderId")
      ->type_name("STRATEGY");
  create
      ->add_option("--profile", create_args->profile,
                   "cloud profile: azure-table (default), cosmos, dynamodb or none "
                   "(docs/profiles.md)")
      ->type_name("P");
  create->add_flag("--throttling", create_args->throttling,
                   "emulate the profile's per-partition throughput budgets (exit 6 when over)");
  create->add_flag("--change-feed", create_args->change_feed,
                   "keep a change feed of the table's writes (`partkv changes`)");
  create
      ->add_option("--feed-retention", create_args->feed_retention,
                   "trim feed entries older than D (90s, 12h, 7d; default: no limit); needs "
                   "--change-feed")
      ->type_name("D");
  create
      ->add_option("--feed-max-bytes", create_args->feed_max_bytes,
                   "trim the oldest feed entries while the feed is over N on disk (512MiB, "
                   "1GiB; default: no limit); needs --change-feed")
      ->type_name("N");
  create
      ->add_option("--ttl", create_args->ttl,
                   "entities' time to live: D (7d), -1 (only entities with a ttl property "
                   "expire) or off (the default)")
      ->type_name("D|-1|off");
  create->callback([&ctx, create_args] {
    ctx.action = [&ctx, create_args] { return CreateTable(ctx, *create_args); };
  });

  auto set_args = std::make_shared<SetArgs>();
  CLI::App* set = table->add_subcommand(
      "set", "Change a table's change feed and time to live; prints the table as JSON");
  set->add_option("NAME", set_args->name, "table name")->required();
  set->add_option("--change-feed", set_args->change_feed, "turn the change feed on or off")
      ->type_name("on|off");
  set->add_option("--feed-retention", set_args->feed_retention,
                  "trim feed entries older than D (90s, 12h, 7d; 0: no limit)")
      ->type_name("D");
  set->add_option("--feed-max-bytes", set_args->feed_max_bytes,
                  "trim the oldest feed entries while the feed is over N on disk (0: no limit)")
      ->type_name("N");
  set->add_option("--ttl", set_args->ttl,
                  "entities' time to live: D (7d), -1 (only entities with a ttl property "
                  "expire) or off")
      ->type_name("D|-1|off");
  set->callback(
      [&ctx, set_args] { ctx.action = [&ctx, set_args] { return SetTable(ctx, *set_args); }; });

  CLI::App* list = table->add_subcommand("list", "List the tables as {\"value\":[...]}");
  list->callback([&ctx] { ctx.action = [&ctx] { return ListTables(ctx); }; });

  auto drop_args = std::make_shared<DropArgs>();
  CLI::App* drop = table->add_subcommand("drop", "Drop a table and all its entities");
  drop->add_option("NAME", drop_args->name, "table name")->required();
  drop->callback(
      [&ctx, drop_args] { ctx.action = [&ctx, drop_args] { return DropTable(ctx, *drop_args); }; });

  auto sweep_args = std::make_shared<SweepArgs>();
  CLI::App* sweep = table->add_subcommand(
      "sweep",
      "Run the table's maintenance now (the feed's retention, expired entities); prints what "
      "it did as JSON");
  sweep->add_option("NAME", sweep_args->name, "table name")->required();
  sweep->callback([&ctx, sweep_args] {
    ctx.action = [&ctx, sweep_args] { return SweepTable(ctx, *sweep_args); };
  });
}

}  // namespace partkv::cli
