// The remote backend: tables and entity calls (remote_backend.h; queries in remote_query.cc).

#include "engine/remote/remote_backend.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "engine/batch_rules.h"
#include "engine/etag.h"
#include "engine/key_schemes.h"
#include "engine/profile_spec.h"
#include "engine/protocol/multipart.h"
#include "engine/protocol/shared_key.h"
#include "engine/remote/remote_table.h"
#include "partkv/json.h"

namespace partkv::remote {
namespace {

// Cosmos DB for Table's endpoints (*.table.cosmos.azure.com and its sovereign clouds' names):
// its own limits, and query results it does not sort.
bool IsCosmos(const Endpoint& endpoint) {
  return endpoint.host.find(".cosmos.") != std::string::npos;
}

const StoreCapabilities& RemoteCapabilities(bool cosmos) {
  static const StoreCapabilities kRemote{
      .backend = "remote", .ordered_scans = true, .service_properties = true};
  static const StoreCapabilities kCosmos{.backend = "remote", .service_properties = true};
  return cosmos ? kCosmos : kRemote;
}

Status Missing(std::string_view what, std::string_view capability) {
  return engine::MissingCapability(what, capability, "remote");
}

std::string TablePath(std::string_view name) {
  return "/Tables('" + EncodeComponent(std::string(name)) + "')";
}

// The WriteResult of a response's ETag: Azure's ETags name the write's Timestamp.
WriteResult ResultOf(const HttpResponse& response) {
  WriteResult result;
  result.etag = response.Header("ETag");
  if (auto ticks = engine::ParseEtag(result.etag))
    result.timestamp = DateTime{static_cast<int64_t>(*ticks)};
  return result;
}

std::string_view MethodOf(OpType type) {
  switch (type) {
    case OpType::kInsert:
      return "POST";
    case OpType::kReplace:
    case OpType::kInsertOrReplace:
      return "PUT";
    case OpType::kMerge:
    case OpType::kInsertOrMerge:
      return "MERGE";
    case OpType::kDelete:
      return "DELETE";
  }
  return "POST";
}

std::string IfMatchHeader(OpType type, const IfMatch& if_match) {
  if (type == OpType::kReplace || type == OpType::kMerge || type == OpType::kDelete) {
    return if_match.is_any() ? "*" : if_match.etag();
  }
  return "";
}

// The failures a write's own earlier, lost attempt would cause on its retry.
bool LostWriteSymptom(OpType type, const Status& s) {
  switch (type) {
    case OpType::kInsert:
      return s.IsAlreadyExists();
    case OpType::kReplace:
    case OpType::kMerge:
      return s.IsPreconditionFailed();
    case OpType::kDelete:
      return s.IsNotFound() || s.IsPreconditionFailed();
    default:
      return false;
  }
}

// Whether a value read back is the one a write sent. A Double NaN travels as the string "NaN",
// which carries neither its sign nor its payload, so every NaN reads back as the same one: the NaN
// of 0.0 / 0.0 (its sign bit set on x86) must still count as sent.
bool SameAsSent(const Value& sent, const Value& stored) {
  if (sent.type() == Type::kDouble && stored.type() == Type::kDouble &&
      std::isnan(sent.as_double()) && std::isnan(stored.as_double())) {
    return true;
  }
  return sent == stored;
}

std::string EntityBody(const Entity& entity) {
  return EntityToJson(
      entity, JsonWriteOptions{.metadata = JsonMetadata::kMinimal, .include_system = false});
}

// The outcome of a write whose response was lost when reading its rows back failed too: whether
// it was applied is unknown, which is neither the conflict the retry met nor a success.
Status UnknownOutcome(const std::string& what, const Status& conflict, const Status& read_back) {
  return Status::IOError(what +
                         ": the response to an attempt was lost and may have been "
                         "applied (the retry met " +
                         std::string(Status::CodeName(conflict.code())) + "), and " +
                         std::string(read_back.message()) +
                         "; read the row to know whether the write happened");
}

}  // namespace

// ---- RemoteStore ----------------------------------------------------------------------------

RemoteStore::RemoteStore(std::shared_ptr<ServiceClient> client)
    : client_(std::move(client)), url_(client_->endpoint().Url()) {}

Result<std::shared_ptr<RemoteStore>> RemoteStore::Open(std::string_view location,
                                                       const StoreOptions& options) {
  if (options.throttling) {
    return Missing("StoreOptions::throttling", "throttling-emulation");
  }
  PARTKV_ASSIGN_OR_RETURN(Endpoint endpoint, ParseLocation(location));
  PARTKV_ASSIGN_OR_RETURN(auto client, ServiceClient::Create(std::move(endpoint), options.remote));
  return std::make_shared<RemoteStore>(std::move(client));
}

const StoreCapabilities& RemoteStore::capabilities() const {
  return RemoteCapabilities(IsCosmos(client_->endpoint()));
}

Status RemoteStore::CreateTable(std::string_view name, const TableOptions& options) {
  PARTKV_RETURN_IF_ERROR(engine::ValidateTableName(name));
  if (options.physical_partitions != TableOptions().physical_partitions) {
    return Missing("TableOptions::physical_partitions", "physical-partitions");
  }
  if (options.partition_key_scheme || options.row_key_scheme) {
    return Missing("a key scheme in TableOptions (give it to OpenTable instead)",
                   "key-scheme-catalog");
  }
  if (!options.profile.empty() || options.throttling.value_or(false)) {
    return Missing("TableOptions::profile and throttling", "throttling-emulation");
  }
  if (options.change_feed.enabled) return Missing("TableOptions::change_feed", "change-feed");
  if (options.ttl_seconds != kTtlOff) return Missing("TableOptions::ttl_seconds", "time-to-live");
  Call call{.method = "POST",
            .path = "/Tables",
            .body = nlohmann::json{{"TableName", name}}.dump(),
            .content_type = "application/json",
            .return_no_content = true,
            .what = "create table '" + std::string(name) + "'"};
  PARTKV_ASSIGN_OR_RETURN(Outcome out, client_->Send(call));
  if (out.response.status < 300) return Status::OK();
  Status s = client_->StatusOf(out.response, call.what);
  // A lost response of our own create: the table exists now, as asked.
  if (s.IsAlreadyExists() && out.maybe_applied) return Status::OK();
  return s;
}

Status RemoteStore::DropTable(std::string_view name) {
  PARTKV_RETURN_IF_ERROR(engine::ValidateTableName(name));
  Call call{.method = "DELETE",
            .path = TablePath(name),
            .what = "drop table '" + std::string(name) + "'"};
  PARTKV_ASSIGN_OR_RETURN(Outcome out, client_->Send(call));
  if (out.response.status < 300) return Status::OK();
  Status s = client_->StatusOf(out.response, call.what);
  if (s.IsNotFound() && out.maybe_applied) return Status::OK();
  return s;
}

Result<std::vector<TableInfo>> RemoteStore::ListTables() const {
  std::vector<TableInfo> tables;
  std::string next;
  std::unordered_set<std::string> seen;  // every NextTableName followed: none may come twice
  do {
    Call call{.method = "GET", .path = "/Tables", .what = "list tables"};
    if (!next.empty()) call.query = "NextTableName=" + EncodeComponent(next);
    PARTKV_ASSIGN_OR_RETURN(Outcome out, client_->Send(call));
    if (out.response.status >= 300) return client_->StatusOf(out.response, call.what);
    auto json = nlohmann::json::parse(out.response.body, nullptr, false);
    if (!json.is_object() || !json.contains("value") || !json["value"].is_array()) {
      return Status::Corruption("list tables: the service's answer is not a table list");
    }
    for (const auto& t : json["value"]) {
      if (!t.is_object() || !t.contains("TableName") || !t["TableName"].is_string()) {
        return Status::Corruption("list tables: a table without a TableName");
      }
      TableInfo info;
      info.name = t["TableName"].get<std::string>();
      tables.push_back(std::move(info));
    }
    next = out.response.Header("x-ms-continuation-NextTableName");
    if (next.size() > kMaxServiceContinuationBytes) {
      return Status::Corruption("list tables: the service's continuation is " +
                                std::to_string(next.size()) + " bytes");
    }
    if (!next.empty() && !seen.insert(next).second) {
      return Status::Corruption("list tables: the endpoint " + client_->endpoint().Url() +
                                " answered with a continuation it gave before (NextTableName '" +
                                client_->ServiceText(next, 128) +
                                "'): following it would never end");
    }
  } while (!next.empty());
  std::sort(tables.begin(), tables.end(),
            [](const TableInfo& a, const TableInfo& b) { return a.name < b.name; });
  return tables;
}

Result<std::shared_ptr<engine::TableBackend>> RemoteStore::OpenTable(
    std::string_view name, const OpenTableOptions& options) const {
  PARTKV_RETURN_IF_ERROR(engine::ValidateTableName(name));
  Call call{
      .method = "GET", .path = TablePath(name), .what = "open table '" + std::string(name) + "'"};
  PARTKV_ASSIGN_OR_RETURN(Outcome out, client_->Send(call));
  if (out.response.status == 404) {
    // Table names compare case-insensitively (Azure); a server that looks them up by case
    // (Azurite) is asked for the list.
    PARTKV_ASSIGN_OR_RETURN(std::vector<TableInfo> tables, ListTables());
    for (const TableInfo& t : tables) {
      if (t.name.size() == name.size() &&
          std::equal(t.name.begin(), t.name.end(), name.begin(), [](char a, char b) {
            return std::tolower(static_cast<unsigned char>(a)) ==
                   std::tolower(static_cast<unsigned char>(b));
          })) {
        return std::shared_ptr<engine::TableBackend>(
            std::make_shared<RemoteTable>(client_, t.name, options));
      }
    }
  }
  if (out.response.status >= 300) return client_->StatusOf(out.response, call.what);
  std::string stored(name);
  auto json = nlohmann::json::parse(out.response.body, nullptr, false);
  if (json.is_object() && json.contains("TableName") && json["TableName"].is_string()) {
    stored = json["TableName"].get<std::string>();
    // The table asked about, in the case the service keeps; never another one.
    if (!SameTableName(stored, name)) {
      return Status::Corruption(call.what + ": the service answered about table '" +
                                client_->ServiceText(stored, 128) + "'");
    }
  }
  return std::shared_ptr<engine::TableBackend>(
      std::make_shared<RemoteTable>(client_, std::move(stored), options));
}

Result<std::string> RemoteStore::ServiceProperties() const {
  Call call{.method = "GET",
            .path = "/",
            .query = "restype=service&comp=properties",
            .accept = "application/xml",
            .what = "get service properties"};
  PARTKV_ASSIGN_OR_RETURN(Outcome out, client_->Send(call));
  if (out.response.status >= 300) return client_->StatusOf(out.response, call.what);
  return std::move(out.response.body);
}

namespace {

// The text of the first <name>…</name> element in `xml`, or nullopt.
std::optional<std::string_view> ElementText(std::string_view xml, std::string_view name) {
  const std::string open = "<" + std::string(name) + ">";
  const std::string close = "</" + std::string(name) + ">";
  size_t begin = xml.find(open);
  if (begin == std::string_view::npos) return std::nullopt;
  begin += open.size();
  size_t end = xml.find(close, begin);
  if (end == std::string_view::npos) return std::nullopt;
  return xml.substr(begin, end - begin);
}

}  // namespace

Result<ServiceStatistics> RemoteStore::ServiceStats() const {
  if (client_->secondary_url().empty()) {
    return Status::InvalidArgument(
        "the endpoint " + client_->endpoint().Url() +
        " has no secondary location to ask for service statistics: its host does not start with "
        "the account name");
  }
  Call call{.method = "GET",
            .path = "/",
            .query = "restype=service&comp=stats",
            .accept = "application/xml",
            .what = "get service statistics",
            .secondary = true};
  PARTKV_ASSIGN_OR_RETURN(Outcome out, client_->Send(call));
  if (out.response.status >= 300) return client_->StatusOf(out.response, call.what);
  const std::string& body = out.response.body;
  auto bad = [&](std::string_view what) {
    return Status::Corruption("the endpoint's service statistics " + std::string(what) + ": '" +
                              client_->ServiceText(body, 200) + "'");
  };
  auto geo = ElementText(body, "GeoReplication");
  if (body.find("<StorageServiceStats") == std::string::npos || !geo) {
    return bad("are not a StorageServiceStats document with GeoReplication");
  }
  auto status = ElementText(*geo, "Status");
  if (!status || (*status != "live" && *status != "bootstrap" && *status != "unavailable")) {
    return bad("have no Status of live, bootstrap or unavailable");
  }
  ServiceStatistics stats{.geo_replication_status = std::string(*status)};
  if (auto last_sync = ElementText(*geo, "LastSyncTime"); last_sync && !last_sync->empty()) {
    auto when = protocol::ParseHttpDate(*last_sync);
    if (!when.ok()) return bad("have a LastSyncTime that is not an RFC 1123 date");
    stats.last_sync_time = DateTime::FromUnixMicros(
        std::chrono::duration_cast<std::chrono::microseconds>(when->time_since_epoch()).count());
  }
  return stats;
}

Status RemoteStore::SetServiceProperties(std::string_view document) {
  Call call{.method = "PUT",
            .path = "/",
            .query = "restype=service&comp=properties",
            .body = std::string(document),
            .content_type = "application/xml",
            .accept = "application/xml",
            .what = "set service properties"};
  PARTKV_ASSIGN_OR_RETURN(Outcome out, client_->Send(call));
  if (out.response.status >= 300) return client_->StatusOf(out.response, call.what);
  return Status::OK();
}

// ---- RemoteTable: entities ------------------------------------------------------------------

RemoteTable::RemoteTable(std::shared_ptr<ServiceClient> client, std::string name,
                         const OpenTableOptions& options)
    : client_(std::move(client)),
      name_(std::move(name)),
      path_("/" + name_),
      partition_key_scheme_(options.partition_key_scheme),
      row_key_scheme_(options.row_key_scheme),
      stats_(std::make_unique<engine::TableStatsCollector>(1)) {
  // Cosmos DB for Table's limits on its endpoints; Azure Table Storage's everywhere else.
  auto profile = engine::GetProfile(IsCosmos(client_->endpoint()) ? "cosmos" : "azure-table");
  limits_ = profile.ok() ? profile->limits : engine::Limits::AzureTable();
}

TableInfo RemoteTable::info() const {
  TableInfo info;
  info.name = name_;
  info.physical_partitions = 0;
  info.profile = std::string(limits_.name);
  if (partition_key_scheme_) {
    info.partition_key_scheme = partition_key_scheme_->ToString();
    info.partition_key_strategy = partition_key_scheme_;
  }
  if (row_key_scheme_) {
    info.row_key_scheme = row_key_scheme_->ToString();
    info.row_key_strategy = row_key_scheme_;
  }
  return info;
}

std::string RemoteTable::EntityPath(std::string_view pk, std::string_view rk) const {
  return path_ + "(PartitionKey=" + EncodeComponent(ODataString(pk)) +
         ",RowKey=" + EncodeComponent(ODataString(rk)) + ")";
}

void RemoteTable::Record(std::string_view pk, const Outcome& outcome, bool write, uint64_t entities,
                         uint64_t bytes) const {
  for (int i = 0; i < outcome.throttled; ++i) stats_->RecordThrottled(0);
  if (outcome.waited.count() > 0) {
    stats_->RecordRetryWait(
        0, static_cast<uint64_t>(
               std::chrono::duration_cast<std::chrono::microseconds>(outcome.waited).count()));
  }
  if (outcome.response.status >= 300 || (write && entities == 0)) return;
  if (write) {
    stats_->RecordWrite(0, pk, entities, bytes);
  } else if (!pk.empty()) {
    stats_->RecordRead(0, pk, entities, bytes);
  } else {
    stats_->RecordScan(0, entities, bytes);
  }
}

Result<Entity> RemoteTable::ComputeKeys(const Entity& entity, OpType type) const {
  std::optional<Entity> computed;
  PARTKV_ASSIGN_OR_RETURN(
      const Entity* keyed,
      engine::WithSchemeKeys({partition_key_scheme_, row_key_scheme_}, type, entity, &computed));
  if (computed) return std::move(*computed);
  return *keyed;
}

Result<WriteResult> RemoteTable::Write(OpType type, const Entity& given, const IfMatch& if_match,
                                       const WriteOptions& options) {
  std::optional<Entity> computed;
  PARTKV_ASSIGN_OR_RETURN(
      const Entity* keyed,
      engine::WithSchemeKeys({partition_key_scheme_, row_key_scheme_}, type, given, &computed));
  const Entity& entity = *keyed;
  if (type != OpType::kDelete) {
    PARTKV_RETURN_IF_ERROR(engine::ValidateEntity(entity, limits_));
  } else {
    PARTKV_RETURN_IF_ERROR(engine::ValidateKey(entity.partition_key(), "PartitionKey", limits_));
    PARTKV_RETURN_IF_ERROR(engine::ValidateKey(entity.row_key(), "RowKey", limits_));
  }
  return Send(type, entity, if_match);
}

Result<WriteResult> RemoteTable::Send(OpType type, const Entity& entity, const IfMatch& if_match) {
  write_generation_.fetch_add(1);  // kept QueryShards cursors may now miss a row
  Call call;
  call.method = MethodOf(type);
  call.path =
      type == OpType::kInsert ? path_ : EntityPath(entity.partition_key(), entity.row_key());
  if (type != OpType::kDelete) {
    call.body = EntityBody(entity);
    call.content_type = "application/json";
  }
  call.if_match = IfMatchHeader(type, if_match);
  call.return_no_content = type == OpType::kInsert;
  call.what = std::string(OpTypeName(type)) + " of (" + ODataString(entity.partition_key()) + ", " +
              ODataString(entity.row_key()) + ") in table '" + name_ + "'";
  PARTKV_ASSIGN_OR_RETURN(Outcome out, client_->Send(call));
  Record(entity.partition_key(), out, true, 1, call.body.size());
  if (out.response.status < 300) return ResultOf(out.response);
  Status s = client_->StatusOf(out.response, call.what);
  if (out.maybe_applied && LostWriteSymptom(type, s)) {
    WriteResult stored;
    Result<bool> holds = HoldsWrite(type, entity, &stored);
    if (!holds.ok()) return UnknownOutcome(call.what, s, holds.status());
    if (*holds) return stored;
  }
  return s;
}

Result<bool> RemoteTable::HoldsWrite(OpType type, const Entity& sent, WriteResult* stored) const {
  auto current = Get(sent.partition_key(), sent.row_key());
  if (!current.ok() && !current.status().IsNotFound()) {
    return Status::IOError("reading (" + ODataString(sent.partition_key()) + ", " +
                           ODataString(sent.row_key()) +
                           ") back failed: " + current.status().ToString());
  }
  if (type == OpType::kDelete) return !current.ok();
  if (!current.ok()) return false;
  // Every sent property stored as sent; for all but a merge, no other property either.
  const bool merge = type == OpType::kMerge || type == OpType::kInsertOrMerge;
  bool holds = (merge || current->property_count() == sent.property_count()) &&
               std::all_of(sent.begin(), sent.end(), [&](const auto& property) {
                 const Value* v = current->Get(property.first);
                 return v != nullptr && SameAsSent(property.second, *v);
               });
  if (holds) {
    stored->etag = current->etag();
    stored->timestamp = current->timestamp();
  }
  return holds;
}

Result<Entity> RemoteTable::Get(std::string_view pk, std::string_view rk) const {
  // A key Azure refuses cannot name a stored entity (and some servers fail on its URL).
  for (auto [key, what] : {std::pair{pk, "PartitionKey"}, std::pair{rk, "RowKey"}}) {
    Status valid = engine::ValidateKey(key, what, limits_);
    if (!valid.ok()) {
      return Status::NotFound("no entity (" + ODataString(pk) + ", " + ODataString(rk) +
                              ") in table '" + name_ + "': " + std::string(valid.message()));
    }
  }
  Call call{
      .method = "GET",
      .path = EntityPath(pk, rk),
      .what = "get (" + ODataString(pk) + ", " + ODataString(rk) + ") in table '" + name_ + "'"};
  PARTKV_ASSIGN_OR_RETURN(Outcome out, client_->Send(call));
  Record(pk, out, false, 1, out.response.body.size());
  if (out.response.status >= 300) return client_->StatusOf(out.response, call.what);
  auto entity = EntityFromJson(out.response.body, JsonReadOptions{.read_system = true});
  if (!entity.ok()) {
    return Status::Corruption(call.what + ": the service's entity does not read: " +
                              client_->ServiceText(entity.status().message()));
  }
  // The answer must be the entity asked for: a server that answers with another one is wrong,
  // whatever it holds.
  if (entity->partition_key() != pk || entity->row_key() != rk) {
    return Status::Corruption(call.what + ": the service answered with the entity (PartitionKey '" +
                              client_->ServiceText(entity->partition_key(), 128) + "', RowKey '" +
                              client_->ServiceText(entity->row_key(), 128) + "')");
  }
  if (entity->etag().empty()) entity->set_etag(out.response.Header("ETag"));
  return entity;
}

Result<Entity> RemoteTable::GetFirst(
    const std::vector<std::pair<std::string, std::string>>& candidates) const {
  if (candidates.size() == 1) return Get(candidates[0].first, candidates[0].second);
  std::vector<Result<Entity>> found(candidates.size(), Result<Entity>(Status::NotFound("")));
  client_->ParallelFor(candidates.size(), [&](size_t i) {
    found[i] = Get(candidates[i].first, candidates[i].second);
  });
  for (auto& f : found) {
    if (f.ok() || !f.status().IsNotFound()) return std::move(f);
  }
  return std::move(found.back());
}

Result<Entity> RemoteTable::GetByAttributes(const Entity& attributes) const {
  return engine::GetByAttributes(
      {partition_key_scheme_, row_key_scheme_}, name_, attributes,
      [this](const std::vector<std::pair<std::string, std::string>>& c) { return GetFirst(c); });
}

Result<std::vector<WriteResult>> RemoteTable::Submit(const Batch& batch,
                                                     const WriteOptions& options) {
  std::vector<BatchOp> ops;
  ops.reserve(batch.ops().size());
  for (size_t i = 0; i < batch.ops().size(); ++i) {
    const BatchOp& op = batch.ops()[i];
    std::optional<Entity> computed;
    auto e = engine::WithSchemeKeys({partition_key_scheme_, row_key_scheme_}, op.type, op.entity,
                                    &computed);
    if (!e.ok()) return e.status().WithFailedOp(static_cast<int>(i));
    ops.push_back(BatchOp{op.type, **e, op.if_match});
  }
  PARTKV_RETURN_IF_ERROR(engine::ValidateBatch(ops, limits_));
  if (ops.empty()) return std::vector<WriteResult>();
  return SendBatch(ops);
}

Result<std::vector<WriteResult>> RemoteTable::SendBatch(const std::vector<BatchOp>& ops) {
  write_generation_.fetch_add(1);  // kept QueryShards cursors may now miss a row
  static std::atomic<uint64_t> counter{0};
  const uint64_t n = counter.fetch_add(1);
  const std::string batch_boundary = "batch_partkv_" + std::to_string(n);
  const std::string changeset_boundary = "changeset_partkv_" + std::to_string(n);
  std::vector<protocol::BatchSubRequest> parts;
  parts.reserve(ops.size());
  const std::string base = client_->endpoint().Url();
  size_t bytes = 0;
  for (const BatchOp& op : ops) {
    protocol::BatchSubRequest part;
    part.method = std::string(MethodOf(op.type));
    part.url = base + (op.type == OpType::kInsert
                           ? path_
                           : EntityPath(op.entity.partition_key(), op.entity.row_key()));
    part.headers.emplace_back("Accept", "application/json;odata=minimalmetadata");
    if (op.type != OpType::kDelete) {
      part.body = EntityBody(op.entity);
      part.headers.emplace_back("Content-Type", "application/json");
      bytes += part.body.size();
    }
    if (std::string m = IfMatchHeader(op.type, op.if_match); !m.empty()) {
      part.headers.emplace_back("If-Match", std::move(m));
    }
    if (op.type == OpType::kInsert) part.headers.emplace_back("Prefer", "return-no-content");
    parts.push_back(std::move(part));
  }
  const std::string& pk = ops[0].entity.partition_key();
  Call call{.method = "POST",
            .path = "/$batch",
            .body = protocol::BatchRequestBody(batch_boundary, changeset_boundary, parts),
            .content_type = "multipart/mixed; boundary=" + batch_boundary,
            .accept = "application/json",
            .what = "batch of " + std::to_string(ops.size()) + " in partition " + ODataString(pk) +
                    " of table '" + name_ + "'"};
  PARTKV_ASSIGN_OR_RETURN(Outcome out, client_->Send(call));
  if (out.response.status >= 300) {
    Record(pk, out, true, 0, 0);
    return client_->StatusOf(out.response, call.what);
  }
  PARTKV_ASSIGN_OR_RETURN(
      protocol::BatchResponse response,
      protocol::ParseBatchResponse(out.response.body, out.response.Header("Content-Type")));
  if (response.failed) {
    Record(pk, out, true, 0, 0);  // only the throttled answers: nothing was written
    const protocol::BatchSubResponse& failure = response.responses.back();
    HttpResponse as_http{failure.status, failure.headers, failure.body};
    int index = response.failed_index && *response.failed_index < ops.size()
                    ? static_cast<int>(*response.failed_index)
                    : -1;
    Status s = client_->StatusOf(as_http, call.what,
                                 index >= 0 ? std::optional<size_t>(index) : std::nullopt);
    if (out.maybe_applied && LostWriteSymptom(index >= 0 ? ops[index].type : OpType::kInsert, s)) {
      // Our own earlier attempt may have committed the whole batch: it did when every
      // operation's row holds what it wrote.
      std::vector<WriteResult> results(ops.size());
      bool all = true;
      for (size_t i = 0; all && i < ops.size(); ++i) {
        Result<bool> holds = HoldsWrite(ops[i].type, ops[i].entity, &results[i]);
        if (!holds.ok()) return UnknownOutcome(call.what, s, holds.status());
        all = *holds;
        if (ops[i].type == OpType::kDelete) results[i] = WriteResult{};
      }
      if (all) return results;
    }
    return index >= 0 ? s.WithFailedOp(index) : s;
  }
  Record(pk, out, true, ops.size(), bytes);  // the changeset was applied
  if (response.responses.size() != ops.size()) {
    return Status::Corruption(call.what + ": the service answered " +
                              std::to_string(response.responses.size()) + " operations, not " +
                              std::to_string(ops.size()));
  }
  std::vector<WriteResult> results;
  results.reserve(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const protocol::BatchSubResponse& part = response.responses[i];
    HttpResponse as_http{part.status, part.headers, {}};
    results.push_back(ops[i].type == OpType::kDelete ? WriteResult{} : ResultOf(as_http));
  }
  return results;
}

Result<TableCensus> RemoteTable::Census(const CensusOptions&) const {
  return Missing("Table::Census", "census");
}

Result<std::vector<AccessPolicy>> RemoteTable::AccessPolicies() const {
  return Missing("Table::AccessPolicies", "access-policies");
}

Status RemoteTable::SetAccessPolicies(const std::vector<AccessPolicy>&) {
  return Missing("Table::SetAccessPolicies", "access-policies");
}

}  // namespace partkv::remote
