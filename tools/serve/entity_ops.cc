// Entity operations of the Table service: insert, update, merge, upserts, delete, point read and
// query (service.h).

#include <algorithm>
#include <charconv>

#include "partkv/json.h"
#include "tools/serve/service.h"

namespace partkv::serve {
namespace {

// An If-Match value: "*" or an entity tag ("…" or W/"…"). Anything else is malformed, which
// Azure answers with 400 InvalidInput.
bool IsEntityTag(std::string_view v) {
  if (v == "*") return true;
  if (v.starts_with("W/")) v.remove_prefix(2);
  return v.size() >= 2 && v.front() == '"' && v.back() == '"';
}

SasOp SasOpFor(OpType type) {
  switch (type) {
    case OpType::kInsert:
      return SasOp::kInsert;
    case OpType::kReplace:
    case OpType::kMerge:
      return SasOp::kUpdate;
    case OpType::kInsertOrReplace:
    case OpType::kInsertOrMerge:
      return SasOp::kUpsert;
    case OpType::kDelete:
      return SasOp::kDelete;
  }
  return SasOp::kInsert;
}

std::vector<std::string> ParseSelect(const HttpRequest& request) {
  std::vector<std::string> names;
  const std::string* text = request.Param("$select");
  if (text == nullptr) return names;
  size_t at = 0;
  while (at <= text->size()) {
    size_t comma = text->find(',', at);
    std::string name =
        text->substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (!name.empty() && name != "*" &&
        std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(std::move(name));
    }
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return names;
}

AzureError KeyRangeError() {
  return MakeError(403, "AuthorizationFailure",
                   "the entity's keys are outside the SAS token's PartitionKey/RowKey range");
}

}  // namespace

Service::ParsedWrite Service::ParseEntityWrite(const HttpRequest& request,
                                               const Resource& resource) {
  EntityWrite w;
  const std::string& m = request.method;
  const bool has_if_match = request.HasHeader("If-Match");
  const std::string if_match = request.Header("If-Match");
  if (has_if_match && !IsEntityTag(if_match)) {
    return MakeError(400, "InvalidInput", "If-Match '" + if_match + "' is not an entity tag or *");
  }
  if (request.HasHeader("If-None-Match") && m != "GET") {
    return MakeError(400, "InvalidInput", "If-None-Match is not supported on writes");
  }
  if (resource.kind == Resource::Kind::kEntities && m == "POST") {
    w.type = OpType::kInsert;
    w.return_content = request.Header("Prefer").find("return-no-content") == std::string::npos;
  } else if (resource.kind == Resource::Kind::kEntity && m == "PUT") {
    w.type = has_if_match ? OpType::kReplace : OpType::kInsertOrReplace;
  } else if (resource.kind == Resource::Kind::kEntity && m == "MERGE") {
    w.type = has_if_match ? OpType::kMerge : OpType::kInsertOrMerge;
  } else if (resource.kind == Resource::Kind::kEntity && m == "DELETE") {
    if (!has_if_match) {
      return MakeError(400, "MissingRequiredHeader", "Delete Entity needs If-Match (an ETag or *)");
    }
    w.type = OpType::kDelete;
  } else {
    return MakeError(405, "UnsupportedHttpVerb", m + " is not an entity write");
  }
  if (has_if_match) w.if_match = IfMatch::FromHeader(if_match);
  if (w.type == OpType::kDelete) {
    w.entity = Entity(resource.partition_key, resource.row_key);
    return w;
  }
  JsonReadOptions read;
  read.require_keys = w.type == OpType::kInsert;
  auto entity = EntityFromJson(request.body, read);
  if (!entity.ok()) return MakeError(400, "InvalidInput", entity.status().message());
  w.entity = std::move(*entity);
  if (resource.kind == Resource::Kind::kEntity) {
    // The URI names the entity; keys in the body, when present, must agree with it.
    if ((!w.entity.partition_key().empty() && w.entity.partition_key() != resource.partition_key) ||
        (!w.entity.row_key().empty() && w.entity.row_key() != resource.row_key)) {
      return MakeError(400, "InvalidInput", "the keys in the body differ from the keys in the URI");
    }
    w.entity.set_partition_key(resource.partition_key);
    w.entity.set_row_key(resource.row_key);
  }
  return w;
}

HttpReply Service::WriteReply(const EntityWrite& write, const WriteResult& result,
                              std::string_view table, const ODataContext& ctx) {
  HttpReply reply;
  reply.status = 204;
  if (write.type != OpType::kDelete) reply.SetHeader("ETag", result.etag);
  if (write.type == OpType::kInsert) {
    std::string location = ctx.account_url + "/" +
                           EntityPath(table, write.entity.partition_key(), write.entity.row_key());
    reply.SetHeader("Location", location);
    reply.SetHeader("DataServiceId", location);
    if (write.return_content) {
      Entity stored = write.entity;
      stored.set_etag(result.etag);
      stored.set_timestamp(result.timestamp);
      reply.status = 201;
      reply.SetHeader("Content-Type", ContentTypeFor(ctx.metadata));
      reply.body = EntityJson(stored, table, ctx, true);
      reply.SetHeader("Preference-Applied", "return-content");
    } else {
      reply.SetHeader("Preference-Applied", "return-no-content");
    }
  }
  return reply;
}

HttpReply Service::WriteEntity(const HttpRequest& request, const Resource& resource,
                               const ODataContext& ctx, const AuthResult& auth) const {
  ParsedWrite parsed = ParseEntityWrite(request, resource);
  if (auto* error = std::get_if<AzureError>(&parsed)) return ErrorReply(*error);
  EntityWrite& w = std::get<EntityWrite>(parsed);
  if (auth.sas) {
    if (auto denied = AuthorizeSas(*auth.sas, SasOpFor(w.type), resource.table)) {
      return ErrorReply(*denied);
    }
    if (!InKeyRange(*auth.sas, w.entity.partition_key(), w.entity.row_key())) {
      return ErrorReply(KeyRangeError());
    }
  }
  auto table = OpenTable(resource.table);
  if (!table.ok()) return Failure(table.status(), Subject::kEntityOperation, nullptr);
  WriteOptions write_options;
  write_options.sync = options_.sync;
  Result<WriteResult> result = Status::InvalidArgument("unreachable");
  switch (w.type) {
    case OpType::kInsert:
      result = table->Insert(w.entity, write_options);
      break;
    case OpType::kReplace:
      result = table->Replace(w.entity, w.if_match, write_options);
      break;
    case OpType::kMerge:
      result = table->Merge(w.entity, w.if_match, write_options);
      break;
    case OpType::kInsertOrReplace:
      result = table->InsertOrReplace(w.entity, write_options);
      break;
    case OpType::kInsertOrMerge:
      result = table->InsertOrMerge(w.entity, write_options);
      break;
    case OpType::kDelete: {
      Status s =
          table->Delete(w.entity.partition_key(), w.entity.row_key(), w.if_match, write_options);
      if (s.ok()) {
        result = WriteResult{};
      } else {
        result = std::move(s);
      }
      break;
    }
  }
  if (!result.ok()) return Failure(result.status(), Subject::kEntityOperation, &*table);
  return WriteReply(w, *result, resource.table, ctx);
}

HttpReply Service::GetEntity(const HttpRequest& request, const Resource& resource,
                             const ODataContext& ctx, const AuthResult& auth) const {
  if (auth.sas) {
    if (auto denied = AuthorizeSas(*auth.sas, SasOp::kQueryEntities, resource.table)) {
      return ErrorReply(*denied);
    }
    if (!InKeyRange(*auth.sas, resource.partition_key, resource.row_key)) {
      return ErrorReply(KeyRangeError());
    }
  }
  auto table = OpenTable(resource.table);
  if (!table.ok()) return Failure(table.status(), Subject::kEntityOperation, nullptr);
  auto entity = table->Get(resource.partition_key, resource.row_key);
  if (!entity.ok()) return Failure(entity.status(), Subject::kEntityOperation, &*table);
  std::vector<std::string> select = ParseSelect(request);
  HttpReply reply;
  reply.SetHeader("Content-Type", ContentTypeFor(ctx.metadata));
  reply.SetHeader("ETag", entity->etag());
  reply.body = EntityJson(*entity, resource.table, ctx, true, select);
  return reply;
}

HttpReply Service::QueryEntities(const HttpRequest& request, const Resource& resource,
                                 const ODataContext& ctx, const AuthResult& auth) const {
  if (auth.sas) {
    if (auto denied = AuthorizeSas(*auth.sas, SasOp::kQueryEntities, resource.table)) {
      return ErrorReply(*denied);
    }
  }
  Query query;
  if (const std::string* filter = request.Param("$filter")) query.filter = *filter;
  query.select = ParseSelect(request);
  if (const std::string* text = request.Param("$top")) {
    uint64_t top = 0;
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), top);
    if (ec != std::errc() || end != text->data() + text->size() || top == 0) {
      return ErrorReply(MakeError(400, "InvalidInput", "$top must be a positive integer"));
    }
    // Azure returns at most 1,000 entities per page whatever $top asks.
    query.page_size = static_cast<uint32_t>(std::min<uint64_t>(top, Query::kMaxPageSize));
  }
  if (const std::string* next = request.Param("NextPartitionKey")) query.continuation = *next;
  // A page is bounded by time, as Azure's service bounds it, and by bytes; not by rows examined,
  // so that a filter matching little scans as far as the time allows before it answers.
  query.scan_budget = UINT64_MAX;
  query.scan_time_budget = options_.scan_time_budget;
  query.page_bytes = options_.page_bytes;
  // A table SAS's key range bounds the scan; its pair-wise ends are checked per entity.
  if (auth.sas && !auth.sas->account_sas) {
    if (!auth.sas->start_pk.empty()) query.partition_lower = Bound::Inclusive(auth.sas->start_pk);
    if (!auth.sas->end_pk.empty()) query.partition_upper = Bound::Inclusive(auth.sas->end_pk);
  }
  auto table = OpenTable(resource.table);
  if (!table.ok()) return Failure(table.status(), Subject::kEntityOperation, nullptr);
  auto page = table->QueryEntities(query);
  if (!page.ok()) return Failure(page.status(), Subject::kEntityOperation, &*table);
  if (auth.sas && !auth.sas->account_sas) {
    std::erase_if(page->entities, [&](const Entity& e) {
      return !InKeyRange(*auth.sas, e.partition_key(), e.row_key());
    });
  }
  HttpReply reply;
  reply.SetHeader("Content-Type", ContentTypeFor(ctx.metadata));
  // partkv's own token carries the whole resume point; NextRowKey is not needed.
  if (page->has_more()) reply.SetHeader("x-ms-continuation-NextPartitionKey", page->continuation);
  reply.body = EntityPageJson(page->entities, resource.table, ctx, query.select);
  return reply;
}

}  // namespace partkv::serve
