// partkv query | query-shards | export.
//
// `query` prints one page as one JSON document {"value":[...],"continuation":"..." or null}, the
// shape of Azure's Query Entities response with the continuation carried in the body; with --all
// it follows the tokens itself and prints every entity as JSON Lines. `query-shards` does the
// same for a key written under N suffixes (Table::QueryShards). `export` prints a whole table (or
// what a filter selects) as JSON Lines, the input format of `import`.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "partkv/json.h"
#include "partkv/keys.h"
#include "tools/cli/cli.h"
#include "tools/common/progress.h"
#include "tools/common/token_trail.h"

namespace partkv::cli {
namespace {

struct QueryArgs {
  std::string table;
  std::string base;  // query-shards
  std::optional<std::string> pk_strategy;
  std::optional<std::string> pk;
  std::optional<std::string> rk_ge, rk_gt, rk_le, rk_lt, rk_prefix;
  std::string filter;
  std::string select;
  std::optional<uint32_t> top;
  bool descending = false;
  std::string continuation;
  bool all = false;
  SchemeArgs schemes;
};

Result<std::vector<std::string>> SplitSelect(const std::string& text) {
  std::vector<std::string> names;
  if (text.empty()) return names;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string name =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t b = name.find_first_not_of(' ');
    size_t e = name.find_last_not_of(' ');
    if (b == std::string::npos) {
      return Status::InvalidArgument("--select: an empty property name in '" + text + "'");
    }
    names.push_back(name.substr(b, e - b + 1));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return names;
}

Result<Query> BuildQuery(const QueryArgs& args) {
  Query q;
  q.partition_key = args.pk;
  if (args.rk_ge) q.row_lower = Bound::Inclusive(*args.rk_ge);
  if (args.rk_gt) q.row_lower = Bound::Exclusive(*args.rk_gt);
  if (args.rk_le) q.row_upper = Bound::Inclusive(*args.rk_le);
  if (args.rk_lt) q.row_upper = Bound::Exclusive(*args.rk_lt);
  q.row_prefix = args.rk_prefix;
  q.filter = args.filter;
  PARTKV_ASSIGN_OR_RETURN(q.select, SplitSelect(args.select));
  if (args.top) q.page_size = *args.top;
  q.descending = args.descending;
  q.continuation = args.continuation;
  return q;
}

// One page of `query` or `query-shards`, into *page (reusing its entities' storage).
using PageSource = std::function<Status(const Query&, Page*)>;

Status PrintPages(const QueryArgs& args, const PageSource& source) {
  PARTKV_ASSIGN_OR_RETURN(Query q, BuildQuery(args));
  Page page;
  if (!args.all) {
    PARTKV_RETURN_IF_ERROR(source(q, &page));
    std::string out = "{\"value\":[";
    for (size_t i = 0; i < page.entities.size(); ++i) {
      if (i > 0) out += ',';
      out += EntityToJson(page.entities[i]);
    }
    out += "],\"continuation\":";
    out += page.has_more() ? nlohmann::json(page.continuation).dump() : "null";
    out += '}';
    PrintLine(out);
    return Status::OK();
  }
  tools::TokenTrail trail;
  while (true) {
    PARTKV_RETURN_IF_ERROR(source(q, &page));
    for (const Entity& e : page.entities) PrintLine(EntityToJson(e));
    if (!page.has_more()) return Status::OK();
    PARTKV_RETURN_IF_ERROR(trail.Follow(page.continuation, "query table '" + args.table + "'"));
    q.continuation.swap(page.continuation);
  }
}

Status RunQuery(const Context& ctx, const QueryArgs& args) {
  PARTKV_ASSIGN_OR_RETURN(Store store, OpenStore(ctx));
  PARTKV_ASSIGN_OR_RETURN(Table table, OpenTable(store, args.table, args.schemes));
  return PrintPages(args, [&](const Query& q, Page* page) { return table.QueryEntities(q, page); });
}

Status RunQueryShards(const Context& ctx, const QueryArgs& args) {
  std::optional<KeyStrategy> strategy;
  if (args.pk_strategy) {
    auto parsed = KeyStrategy::Parse(*args.pk_strategy);
    if (!parsed.ok()) return parsed.status().WithContext("--pk-strategy");
    strategy = std::move(*parsed);
  }
  PARTKV_ASSIGN_OR_RETURN(Store store, OpenStore(ctx));
  PARTKV_ASSIGN_OR_RETURN(Table table, OpenTable(store, args.table, args.schemes));
  return PrintPages(args, [&](const Query& q, Page* page) {
    return strategy ? table.QueryShards(*strategy, args.base, q, page)
                    : table.QueryShards(args.base, q, page);
  });
}

Status RunExport(const Context& ctx, const QueryArgs& args) {
  PARTKV_ASSIGN_OR_RETURN(Store store, OpenStore(ctx));
  PARTKV_ASSIGN_OR_RETURN(Table table, OpenTable(store, args.table, args.schemes));
  Query q;
  q.filter = args.filter;
  Progress progress;
  uint64_t rows = 0;
  Page page;  // reused: its entities keep their storage from page to page
  tools::TokenTrail trail;
  while (true) {
    PARTKV_RETURN_IF_ERROR(table.QueryEntities(q, &page));
    for (const Entity& e : page.entities) PrintLine(EntityToJson(e));
    rows += page.entities.size();
    if (progress.Due()) progress.Show("exporting: " + GroupDigits(rows) + " rows");
    if (!page.has_more()) break;
    PARTKV_RETURN_IF_ERROR(trail.Follow(page.continuation, "export table '" + args.table + "'"));
    q.continuation.swap(page.continuation);
  }
  progress.Clear();
  return Status::OK();
}

// The key-range, filter, paging and order options of `query` and `query-shards`.
void AddQueryOptions(CLI::App* cmd, QueryArgs* args) {
  CLI::Option* ge = cmd->add_option("--rk-ge", args->rk_ge, "RowKey >= X")->type_name("X");
  CLI::Option* gt = cmd->add_option("--rk-gt", args->rk_gt, "RowKey > X")->type_name("X");
  CLI::Option* le = cmd->add_option("--rk-le", args->rk_le, "RowKey <= X")->type_name("X");
  CLI::Option* lt = cmd->add_option("--rk-lt", args->rk_lt, "RowKey < X")->type_name("X");
  ge->excludes(gt);
  le->excludes(lt);
  cmd->add_option("--rk-prefix", args->rk_prefix, "RowKey starts with X")->type_name("X");
  cmd->add_option("--filter", args->filter, "OData $filter, e.g. \"Price gt 10.0\"")
      ->type_name("ODATA");
  cmd->add_option("--select", args->select, "properties to return, e.g. Price,Quantity")
      ->type_name("A,B");
  cmd->add_option("--top", args->top, "entities per page, 1..1000 (default 1000)");
  cmd->add_flag("--desc", args->descending, "descending (PartitionKey, RowKey) order");
  cmd->add_option("--continuation", args->continuation,
                  "the \"continuation\" of the previous page of the same query")
      ->type_name("TOKEN");
  cmd->add_flag("--all", args->all,
                "follow continuation tokens and print every entity as JSON Lines");
}

}  // namespace

void AddQueryCommands(CLI::App& app, Context& ctx) {
  auto query = std::make_shared<QueryArgs>();
  CLI::App* query_cmd = app.add_subcommand(
      "query", "Query a table: one page as {\"value\":[...],\"continuation\":...}");
  query_cmd->add_option("TABLE", query->table, "table name")->required();
  query_cmd->add_option("--pk", query->pk, "only this PartitionKey")->type_name("P");
  AddQueryOptions(query_cmd, query.get());
  AddSchemeOptions(query_cmd, &query->schemes, /*short_names=*/false);
  query_cmd->callback(
      [&ctx, query] { ctx.action = [&ctx, query] { return RunQuery(ctx, *query); }; });

  auto shards = std::make_shared<QueryArgs>();
  CLI::App* shards_cmd = app.add_subcommand(
      "query-shards", "Query a key written under N suffixes (BASE.1 ... BASE.N), merged by RowKey");
  shards_cmd->add_option("TABLE", shards->table, "table name")->required();
  shards_cmd->add_option("BASE", shards->base, "the key before its suffix, e.g. 2018-08-09")
      ->required();
  shards_cmd
      ->add_option("--pk-strategy", shards->pk_strategy,
                   "the sharded PartitionKey strategy, when the table has no scheme")
      ->type_name("S");
  AddQueryOptions(shards_cmd, shards.get());
  AddSchemeOptions(shards_cmd, &shards->schemes, /*short_names=*/false);
  shards_cmd->callback(
      [&ctx, shards] { ctx.action = [&ctx, shards] { return RunQueryShards(ctx, *shards); }; });

  auto exp = std::make_shared<QueryArgs>();
  CLI::App* export_cmd =
      app.add_subcommand("export", "Print every entity (or those a filter selects) as JSON Lines");
  export_cmd->add_option("TABLE", exp->table, "table name")->required();
  export_cmd->add_option("--filter", exp->filter, "OData $filter")->type_name("ODATA");
  AddSchemeOptions(export_cmd, &exp->schemes, /*short_names=*/true);
  export_cmd->callback([&ctx, exp] { ctx.action = [&ctx, exp] { return RunExport(ctx, *exp); }; });
}

}  // namespace partkv::cli
