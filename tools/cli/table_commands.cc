// partkv table create | list | drop.

#include <memory>
#include <optional>
#include <string>

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
};

struct DropArgs {
  std::string name;
};

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
  CLI::App* table = app.add_subcommand("table", "Create, list and drop tables");
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
  create->callback([&ctx, create_args] {
    ctx.action = [&ctx, create_args] { return CreateTable(ctx, *create_args); };
  });

  CLI::App* list = table->add_subcommand("list", "List the tables as {\"value\":[...]}");
  list->callback([&ctx] { ctx.action = [&ctx] { return ListTables(ctx); }; });

  auto drop_args = std::make_shared<DropArgs>();
  CLI::App* drop = table->add_subcommand("drop", "Drop a table and all its entities");
  drop->add_option("NAME", drop_args->name, "table name")->required();
  drop->callback(
      [&ctx, drop_args] { ctx.action = [&ctx, drop_args] { return DropTable(ctx, *drop_args); }; });
}

}  // namespace partkv::cli
