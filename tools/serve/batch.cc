// $batch: entity group transactions (service.h; Azure's "Performing entity group transactions").
//
// One changeset of up to 100 writes to distinct rows of one PartitionKey of one table, applied
// atomically by Table::Submit. A structural problem of the request (not multipart, several
// changesets, over 100 operations) is an ordinary error reply. A problem with one operation
// (malformed, another table or partition, a repeated row, a failed condition) answers 202 with a
// single sub-response naming the operation's 0-based index ("3:The specified entity already
// exists."), and nothing is written. Success answers 202 with one sub-response per operation.
//
// A sub-request runs as the batch's account, on the batch's store: its path (an absolute URL's
// host is ignored; the path is percent-decoded as the outer request's) must name that account,
// or the operation is refused.

#include <optional>
#include <set>
#include <span>

#include "engine/protocol/multipart.h"
#include "tools/serve/service.h"
#include "tools/serve/sub_request.h"

namespace partkv::serve {
namespace {

using protocol::BatchSubResponse;
using protocol::MimePart;

constexpr size_t kMaxOperations = 100;

// One operation's reply as a sub-response: the headers Azure's sub-responses carry, the
// operation's Content-ID, then the reply's own but for those of the whole response.
BatchSubResponse SubResponse(const HttpReply& reply, const std::string& content_id) {
  BatchSubResponse sub;
  sub.status = reply.status;
  sub.reason = std::string(ReasonPhrase(reply.status));
  sub.headers = {{"X-Content-Type-Options", "nosniff"},
                 {"Cache-Control", "no-cache"},
                 {"DataServiceVersion", "3.0;"}};
  if (!content_id.empty()) sub.headers.emplace_back("Content-ID", content_id);
  for (const auto& [name, value] : reply.headers) {
    if (name == "x-ms-request-id" || name == "x-ms-version" || name == "Date") continue;
    sub.headers.emplace_back(name, value);
  }
  sub.body = reply.body;
  return sub;
}

HttpReply BatchEnvelope(const std::vector<HttpReply>& replies,
                        const std::vector<std::string>& content_ids) {
  std::string batch = "batchresponse_" + NewRequestId();
  std::string changeset = "changesetresponse_" + NewRequestId();
  std::vector<BatchSubResponse> subs;
  subs.reserve(replies.size());
  for (size_t i = 0; i < replies.size(); ++i) {
    subs.push_back(SubResponse(replies[i], i < content_ids.size() ? content_ids[i] : ""));
  }
  HttpReply reply;
  reply.status = 202;
  reply.SetHeader("Content-Type", "multipart/mixed; boundary=" + batch);
  reply.body = protocol::BatchResponseBody(batch, changeset, subs);
  return reply;
}

// The 202 reply of a changeset that failed at operation `index`.
HttpReply OperationFailed(size_t index, const AzureError& error, const std::string& content_id) {
  HttpReply sub;
  sub.status = error.status;
  sub.SetHeader("Content-Type",
                "application/json;odata=minimalmetadata;streaming=true;charset=utf-8");
  sub.body = ErrorBody(error, NewRequestId(), std::to_string(index) + ":");
  return BatchEnvelope({sub}, {content_id});
}

// The error of a changeset whose operations cannot all be one batch's.
std::optional<AzureError> CheckOperationCount(size_t count) {
  if (count == 0) return MakeError(400, "InvalidInput", "the changeset holds no operation");
  if (count > kMaxOperations) {
    return MakeError(400, "InvalidInput",
                     "The batch request operation exceeds the maximum 100 changes per "
                     "change set (it has " +
                         std::to_string(count) + ").");
  }
  return std::nullopt;
}

// A changeset's operations, read and checked.
struct Changeset {
  std::vector<Service::EntityWrite> writes;
  std::vector<std::string> content_ids;  // each operation's Content-ID, "" when it has none
  std::string table_name;                // the first operation's
  std::set<std::string> row_keys;        // the rows written
};

// Checks write `w` (operation `i`, to `table`) against the operations before it: the same table
// and PartitionKey, and a row none of them writes. The first operation sets the batch's table.
std::optional<AzureError> CheckSameBatch(size_t i, const std::string& table,
                                         const Service::EntityWrite& w, Changeset* changeset) {
  if (i == 0) {
    changeset->table_name = table;
  } else if (table != changeset->table_name) {
    return MakeError(400, "InvalidInput", "all operations of a batch must be on one table");
  } else if (w.entity.partition_key() != changeset->writes.front().entity.partition_key()) {
    return MakeError(400, "CommandsInBatchActOnDifferentPartitions");
  }
  if (!changeset->row_keys.insert(w.entity.row_key()).second) {
    return MakeError(
        400, "InvalidDuplicateRow",
        "A command with RowKey '" + w.entity.row_key() + "' is already present in the batch.");
  }
  return std::nullopt;
}

// The right a table SAS needs for a write of `type`.
SasOp SasOpOf(OpType type) {
  switch (type) {
    case OpType::kInsert:
      return SasOp::kInsert;
    case OpType::kReplace:
    case OpType::kMerge:
      return SasOp::kUpdate;
    case OpType::kDelete:
      return SasOp::kDelete;
    default:
      return SasOp::kUpsert;
  }
}

// The SAS's refusal of write `w` to `table`, when the request holds a SAS that refuses it.
std::optional<AzureError> AuthorizeWrite(const AuthResult& auth, const Service::EntityWrite& w,
                                         const std::string& table) {
  if (!auth.sas) return std::nullopt;
  if (auto denied = AuthorizeSas(*auth.sas, SasOpOf(w.type), table)) return denied;
  if (!InKeyRange(*auth.sas, w.entity.partition_key(), w.entity.row_key())) {
    return MakeError(403, "AuthorizationFailure",
                     "the entity's keys are outside the SAS token's range");
  }
  return std::nullopt;
}

// Reads operation `i` (`part`) into *changeset: a write to the batch's account, checked against
// the operations before it and the SAS. Its error when it fails.
std::optional<AzureError> ReadOperation(size_t i, const MimePart& part, const ODataContext& ctx,
                                        const AuthResult& auth, Changeset* changeset) {
  auto sub = ParseSubRequest(part.body);
  if (!sub.ok()) return MakeError(400, "InvalidInput", sub.status().message());
  auto resource = ParseResource(sub->path);
  if (!resource.ok()) return MakeError(400, "InvalidInput", resource.status().message());
  if (sub->method == "GET") {
    return MakeError(400, "InvalidInput", "a query must be the only operation of its batch");
  }
  if (resource->account != ctx.account) {
    return MakeError(400, "InvalidInput", "the operation names another account");
  }
  Service::ParsedWrite parsed = Service::ParseEntityWrite(*sub, *resource);
  if (auto* error = std::get_if<AzureError>(&parsed)) return *error;
  Service::EntityWrite& w = std::get<Service::EntityWrite>(parsed);
  if (auto error = CheckSameBatch(i, resource->table, w, changeset)) return error;
  if (auto error = AuthorizeWrite(auth, w, changeset->table_name)) return error;
  changeset->writes.push_back(std::move(w));
  return std::nullopt;
}

// Reads every operation of the changeset `parts` into *changeset; the 202 reply naming the first
// that fails, if one does.
std::optional<HttpReply> ReadChangeset(const std::vector<MimePart>& parts, const ODataContext& ctx,
                                       const AuthResult& auth, Changeset* changeset) {
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string* id = parts[i].Header("Content-ID");
    changeset->content_ids.push_back(id == nullptr ? "" : *id);
    if (auto error = ReadOperation(i, parts[i], ctx, auth, changeset)) {
      return OperationFailed(i, *error, changeset->content_ids[i]);
    }
  }
  return std::nullopt;
}

}  // namespace

HttpReply Service::Batch(const HttpRequest& request, const ODataContext& ctx,
                         const AuthResult& auth) const {
  auto outer =
      protocol::SplitMultipart(request.body, protocol::BoundaryOf(request.Header("Content-Type")));
  if (!outer.ok()) return ErrorReply(MakeError(400, "InvalidInput", outer.status().message()));
  if (outer->size() != 1) {
    return ErrorReply(MakeError(400, "InvalidInput",
                                "a batch holds exactly one changeset or one query; this one has " +
                                    std::to_string(outer->size()) + " parts"));
  }
  const MimePart& only = outer->front();
  const std::string* content_type = only.Header("Content-Type");
  std::string part_type = content_type ? *content_type : "";
  if (part_type.starts_with("application/http")) return QueryBatch(request, only.body, ctx, auth);
  auto parts = protocol::SplitMultipart(only.body, protocol::BoundaryOf(part_type));
  if (!parts.ok()) return ErrorReply(MakeError(400, "InvalidInput", parts.status().message()));
  if (auto error = CheckOperationCount(parts->size())) return ErrorReply(*error);
  Changeset changeset;
  if (auto failed = ReadChangeset(*parts, ctx, auth, &changeset)) return std::move(*failed);
  return SubmitChangeset(changeset.table_name, changeset.writes, changeset.content_ids, ctx);
}

HttpReply Service::QueryBatch(const HttpRequest& request, const std::string& body,
                              const ODataContext& ctx, const AuthResult& auth) const {
  auto sub = ParseSubRequest(body);
  if (!sub.ok() || sub->method != "GET") {
    return ErrorReply(
        MakeError(400, "InvalidInput", "a batch without a changeset may hold only one GET"));
  }
  sub->base_url = request.base_url;
  sub->remote_addr = request.remote_addr;
  auto resource = ParseResource(sub->path);
  if (!resource.ok())
    return ErrorReply(MakeError(400, "InvalidInput", resource.status().message()));
  if (resource->account != ctx.account) {
    return ErrorReply(MakeError(400, "InvalidInput", "the query names another account"));
  }
  HttpReply inner = Dispatch(*sub, *resource, ctx, auth);
  // Answered directly in the batch, with all of its headers.
  BatchSubResponse answer;
  answer.status = inner.status;
  answer.reason = std::string(ReasonPhrase(inner.status));
  answer.headers = std::move(inner.headers);
  answer.body = std::move(inner.body);
  std::string batch = "batchresponse_" + NewRequestId();
  HttpReply reply;
  reply.status = 202;
  reply.SetHeader("Content-Type", "multipart/mixed; boundary=" + batch);
  reply.body = protocol::BatchResponseBody(batch, "", std::span(&answer, 1));
  return reply;
}

HttpReply Service::SubmitChangeset(const std::string& table_name,
                                   const std::vector<EntityWrite>& writes,
                                   const std::vector<std::string>& content_ids,
                                   const ODataContext& ctx) const {
  auto table = OpenTable(table_name);
  if (!table.ok())
    return OperationFailed(0, ErrorFor(table.status(), Subject::kEntityOperation), content_ids[0]);
  partkv::Batch batch;
  for (const EntityWrite& w : writes) batch.Add(w.type, w.entity, w.if_match);
  WriteOptions write_options;
  write_options.sync = options_.sync;
  auto results = table->Submit(batch, write_options);
  if (!results.ok()) {
    size_t index =
        results.status().failed_op() >= 0 ? static_cast<size_t>(results.status().failed_op()) : 0;
    if (results.status().IsThrottled())
      return Failure(results.status(), Subject::kEntityOperation, &*table);
    return OperationFailed(index, ErrorFor(results.status(), Subject::kEntityOperation),
                           index < content_ids.size() ? content_ids[index] : "");
  }
  std::vector<HttpReply> replies;
  for (size_t i = 0; i < writes.size(); ++i) {
    replies.push_back(WriteReply(writes[i], (*results)[i], table_name, ctx));
  }
  return BatchEnvelope(replies, content_ids);
}

}  // namespace partkv::serve
