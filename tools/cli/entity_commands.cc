// partkv insert | upsert | replace | merge | delete | get | batch: single-entity reads and writes
// and atomic batches, with entities in Azure Table's JSON format (partkv/json.h).
//
// A write prints the written entity — the content it was given, with any key computed by the
// table's key scheme, plus the Timestamp and ETag the store assigned — as one JSON line. For a
// merge that is the merged-in properties, not the whole stored entity (`get` prints that).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "partkv/json.h"
#include "partkv/table.h"
#include "tools/cli/cli.h"

namespace partkv::cli {
namespace {

struct WriteArgs {
  std::string table;
  std::optional<std::string> json;
  std::string if_match;  // replace, merge
  bool merge = false;    // upsert --merge
  SchemeArgs schemes;
};

struct KeyArgs {
  std::string table;
  std::string partition_key;
  std::string row_key;
  std::string if_match = "*";  // delete
  SchemeArgs schemes;
};

struct BatchArgs {
  std::string table;
  std::string file;
  SchemeArgs schemes;
};

Result<IfMatch> ParseIfMatch(const std::string& text, std::string_view where) {
  if (text.empty()) {
    return Status::InvalidArgument(std::string(where) +
                                   ": needs an ETag (as printed in \"odata.etag\") or *");
  }
  return IfMatch::FromHeader(text);
}

// Keys must be in the JSON unless the table computes them with a key scheme.
JsonReadOptions ReadOptionsFor(const Table& table) {
  const TableInfo info = table.info();
  return JsonReadOptions{.require_keys = !info.partition_key_strategy && !info.row_key_strategy};
}

Result<WriteResult> Apply(Table& table, OpType type, const Entity& entity,
                          const IfMatch& if_match) {
  switch (type) {
    case OpType::kInsert:
      return table.Insert(entity);
    case OpType::kReplace:
      return table.Replace(entity, if_match);
    case OpType::kMerge:
      return table.Merge(entity, if_match);
    case OpType::kInsertOrReplace:
      return table.InsertOrReplace(entity);
    case OpType::kInsertOrMerge:
      return table.InsertOrMerge(entity);
    case OpType::kDelete:
      break;
  }
  return Status::InvalidArgument("not a write of an entity");
}

Status WriteEntity(const Context& ctx, const WriteArgs& args, OpType type) {
  IfMatch if_match = IfMatch::Any();
  if (type == OpType::kReplace || type == OpType::kMerge) {
    PARTKV_ASSIGN_OR_RETURN(if_match, ParseIfMatch(args.if_match, "--if-match"));
  }
  PARTKV_ASSIGN_OR_RETURN(std::string json, ArgumentOrStdin(args.json, "entity JSON"));
  PARTKV_ASSIGN_OR_RETURN(Store store, OpenStore(ctx));
  PARTKV_ASSIGN_OR_RETURN(Table table, OpenTable(store, args.table, args.schemes));
  PARTKV_ASSIGN_OR_RETURN(Entity entity, EntityFromJson(json, ReadOptionsFor(table)));
  // Compute scheme keys here, so that the printed entity carries the keys that were written.
  PARTKV_ASSIGN_OR_RETURN(Entity out, table.ComputeKeys(entity, type));
  PARTKV_ASSIGN_OR_RETURN(WriteResult written, Apply(table, type, out, if_match));
  out.set_etag(written.etag);
  out.set_timestamp(written.timestamp);
  PrintLine(EntityToJson(out));
  return Status::OK();
}

Status DeleteEntity(const Context& ctx, const KeyArgs& args) {
  PARTKV_ASSIGN_OR_RETURN(IfMatch if_match, ParseIfMatch(args.if_match, "--if-match"));
  PARTKV_ASSIGN_OR_RETURN(Store store, OpenStore(ctx));
  PARTKV_ASSIGN_OR_RETURN(Table table, OpenTable(store, args.table, args.schemes));
  return table.Delete(args.partition_key, args.row_key, if_match);
}

Status GetEntity(const Context& ctx, const KeyArgs& args) {
  PARTKV_ASSIGN_OR_RETURN(Store store, OpenStore(ctx));
  PARTKV_ASSIGN_OR_RETURN(Table table, OpenTable(store, args.table, args.schemes));
  PARTKV_ASSIGN_OR_RETURN(Entity entity, table.Get(args.partition_key, args.row_key));
  PrintLine(EntityToJson(entity));
  return Status::OK();
}

// ---- batch ----

struct OpName {
  std::string_view name;
  OpType type;
};
constexpr OpName kOpNames[] = {
    {"insert", OpType::kInsert},
    {"upsert", OpType::kInsertOrReplace},
    {"upsert-merge", OpType::kInsertOrMerge},
    {"replace", OpType::kReplace},
    {"merge", OpType::kMerge},
    {"delete", OpType::kDelete},
};

bool TakesIfMatch(OpType type) {
  return type == OpType::kReplace || type == OpType::kMerge || type == OpType::kDelete;
}

// Parses JSON with nlohmann, rejecting duplicate member names at any depth (the library would
// otherwise keep one silently, and EntityFromJson rejects them too).
Result<nlohmann::json> ParseStrict(std::string_view text) {
  std::vector<std::vector<std::string>> names;  // member names of each open object
  std::string duplicate;
  auto callback = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start) {
      names.emplace_back();
    } else if (event == E::object_end && !names.empty()) {
      names.pop_back();
    } else if (event == E::key && !names.empty()) {
      std::string name = parsed.get<std::string>();
      for (const auto& seen : names.back()) {
        if (seen == name && duplicate.empty()) duplicate = name;
      }
      names.back().push_back(std::move(name));
    }
    return true;
  };
  nlohmann::json j = nlohmann::json::parse(text, callback, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    // Parse again with exceptions for nlohmann's message (with its byte position).
    try {
      nlohmann::json ignored = nlohmann::json::parse(text);
      (void)ignored;
    } catch (const nlohmann::json::exception& e) {
      std::string what = e.what();
      if (size_t p = what.find("] "); p != std::string::npos) what.erase(0, p + 2);
      return Status::InvalidArgument("invalid JSON: " + what);
    }
    return Status::InvalidArgument("invalid JSON");
  }
  if (!duplicate.empty()) {
    return Status::InvalidArgument("member '" + duplicate + "' appears more than once");
  }
  return j;
}

// One line of a batch file: {"op":"...", "entity":{...}, "if_match":"..."}.
Status AddBatchLine(std::string_view line, const JsonReadOptions& read_options, Batch* batch) {
  PARTKV_ASSIGN_OR_RETURN(nlohmann::json j, ParseStrict(line));
  if (!j.is_object()) return Status::InvalidArgument("an operation must be a JSON object");
  for (const auto& [name, value] : j.items()) {
    if (name != "op" && name != "entity" && name != "if_match") {
      return Status::InvalidArgument("unknown member '" + name +
                                     "' (an operation has \"op\", \"entity\" and \"if_match\")");
    }
  }
  auto op = j.find("op");
  if (op == j.end() || !op->is_string()) {
    return Status::InvalidArgument(
        "\"op\" must be one of insert, upsert, upsert-merge, replace, merge, delete");
  }
  const OpName* found = nullptr;
  for (const OpName& candidate : kOpNames) {
    if (op->get_ref<const std::string&>() == candidate.name) found = &candidate;
  }
  if (found == nullptr) {
    return Status::InvalidArgument("unknown op '" + op->get<std::string>() +
                                   "' (expected insert, upsert, upsert-merge, replace, merge "
                                   "or delete)");
  }
  auto entity_json = j.find("entity");
  if (entity_json == j.end() || !entity_json->is_object()) {
    return Status::InvalidArgument("\"entity\" must be a JSON object");
  }
  IfMatch if_match = IfMatch::Any();
  auto if_match_json = j.find("if_match");
  if (if_match_json != j.end()) {
    if (!TakesIfMatch(found->type)) {
      return Status::InvalidArgument("\"if_match\" applies to replace, merge and delete only");
    }
    if (!if_match_json->is_string()) {
      return Status::InvalidArgument("\"if_match\" must be a string: an ETag or \"*\"");
    }
    PARTKV_ASSIGN_OR_RETURN(if_match,
                            ParseIfMatch(if_match_json->get<std::string>(), "\"if_match\""));
  } else if (found->type == OpType::kReplace || found->type == OpType::kMerge) {
    return Status::InvalidArgument(std::string(found->name) +
                                   " needs \"if_match\": an ETag or \"*\"");
  }
  PARTKV_ASSIGN_OR_RETURN(
      Entity entity,
      EntityFromJson(entity_json->dump(),
                     found->type == OpType::kDelete ? JsonReadOptions{true} : read_options));
  batch->Add(found->type, std::move(entity), std::move(if_match));
  return Status::OK();
}

Status SubmitBatch(const Context& ctx, const BatchArgs& args) {
  PARTKV_ASSIGN_OR_RETURN(Store store, OpenStore(ctx));
  PARTKV_ASSIGN_OR_RETURN(Table table, OpenTable(store, args.table, args.schemes));
  PARTKV_ASSIGN_OR_RETURN(LineReader reader, LineReader::Open(args.file));
  JsonReadOptions read_options = ReadOptionsFor(table);
  Batch batch;
  std::vector<uint64_t> lines;  // the line of each operation
  Status read_status;
  while (auto line = reader.Next(&read_status)) {
    if (IsBlank(*line)) continue;
    if (batch.size() == Batch::kMaxOperations) {
      return Status::InvalidArgument("line " + std::to_string(reader.line_number()) +
                                     ": a batch holds at most " +
                                     std::to_string(Batch::kMaxOperations) + " operations");
    }
    Status s = AddBatchLine(*line, read_options, &batch);
    if (!s.ok()) {
      return Reworded(s, "line " + std::to_string(reader.line_number()) + ": " +
                             std::string(s.message()) + "; nothing was written");
    }
    lines.push_back(reader.line_number());
  }
  PARTKV_RETURN_IF_ERROR(read_status);
  if (batch.empty()) {
    return Status::InvalidArgument("the batch has no operations (one JSON object a line)");
  }
  auto written = table.Submit(batch);
  if (!written.ok()) {
    const Status& s = written.status();
    int op = s.failed_op();
    std::string where = op >= 0 && static_cast<size_t>(op) < lines.size()
                            ? "line " + std::to_string(lines[op]) + ": "
                            : "";
    return Reworded(s, where + WithoutOperationPrefix(s.message()) + "; nothing was written");
  }
  for (size_t i = 0; i < batch.size(); ++i) {
    const BatchOp& op = batch.ops()[i];
    if (op.type == OpType::kDelete) {
      PrintLine(EntityToJson(Entity(op.entity.partition_key(), op.entity.row_key())));
      continue;
    }
    Entity out = op.entity;
    out.set_etag((*written)[i].etag);
    out.set_timestamp((*written)[i].timestamp);
    PrintLine(EntityToJson(out));
  }
  return Status::OK();
}

// Registers a write command: TABLE [JSON], and --if-match when the op takes one.
void AddWrite(CLI::App& app, Context& ctx, const char* name, const char* help, OpType type) {
  auto args = std::make_shared<WriteArgs>();
  CLI::App* cmd = app.add_subcommand(name, help);
  cmd->add_option("TABLE", args->table, "table name")->required();
  cmd->add_option("JSON", args->json, "the entity as Azure Table JSON (default: read stdin)");
  if (type == OpType::kReplace || type == OpType::kMerge) {
    cmd->add_option("--if-match", args->if_match,
                    "write only while the entity's ETag is this one; * for any")
        ->required()
        ->type_name("ETAG|*");
  }
  AddSchemeOptions(cmd, &args->schemes, /*short_names=*/true);
  if (type == OpType::kInsertOrReplace) {
    cmd->add_flag("--merge", args->merge,
                  "merge into an existing entity instead of replacing it (InsertOrMerge)");
  }
  cmd->callback([&ctx, args, type] {
    ctx.action = [&ctx, args, type] {
      OpType t = type == OpType::kInsertOrReplace && args->merge ? OpType::kInsertOrMerge : type;
      return WriteEntity(ctx, *args, t);
    };
  });
}

}  // namespace

void AddEntityCommands(CLI::App& app, Context& ctx) {
  AddWrite(app, ctx, "insert", "Insert an entity; fails (exit 4) when its keys exist",
           OpType::kInsert);
  AddWrite(app, ctx, "upsert", "Insert or replace an entity (--merge: insert or merge)",
           OpType::kInsertOrReplace);
  AddWrite(app, ctx, "replace", "Replace a whole entity under an ETag condition", OpType::kReplace);
  AddWrite(app, ctx, "merge", "Merge properties into an entity under an ETag condition",
           OpType::kMerge);

  auto del = std::make_shared<KeyArgs>();
  CLI::App* del_cmd = app.add_subcommand("delete", "Delete an entity; prints nothing");
  del_cmd->add_option("TABLE", del->table, "table name")->required();
  del_cmd->add_option("PK", del->partition_key, "PartitionKey")->required();
  del_cmd->add_option("RK", del->row_key, "RowKey")->required();
  del_cmd->add_option("--if-match", del->if_match, "delete only at this ETag; default *")
      ->type_name("ETAG|*");
  AddSchemeOptions(del_cmd, &del->schemes, /*short_names=*/true);
  del_cmd->callback([&ctx, del] { ctx.action = [&ctx, del] { return DeleteEntity(ctx, *del); }; });

  auto get = std::make_shared<KeyArgs>();
  CLI::App* get_cmd = app.add_subcommand("get", "Print one stored entity as JSON");
  get_cmd->add_option("TABLE", get->table, "table name")->required();
  get_cmd->add_option("PK", get->partition_key, "PartitionKey")->required();
  get_cmd->add_option("RK", get->row_key, "RowKey")->required();
  AddSchemeOptions(get_cmd, &get->schemes, /*short_names=*/true);
  get_cmd->callback([&ctx, get] { ctx.action = [&ctx, get] { return GetEntity(ctx, *get); }; });

  auto batch = std::make_shared<BatchArgs>();
  CLI::App* batch_cmd = app.add_subcommand(
      "batch",
      "Apply up to 100 operations on one PartitionKey atomically, from JSON Lines of "
      "{\"op\":...,\"entity\":{...},\"if_match\":...}");
  batch_cmd->add_option("TABLE", batch->table, "table name")->required();
  batch_cmd->add_option("FILE", batch->file, "JSON Lines file; - or absent: stdin");
  AddSchemeOptions(batch_cmd, &batch->schemes, /*short_names=*/true);
  batch_cmd->callback(
      [&ctx, batch] { ctx.action = [&ctx, batch] { return SubmitBatch(ctx, *batch); }; });
}

}  // namespace partkv::cli
