// The Table service over a Store: authentication, routing, common headers, table operations
// (service.h). Entity operations are in entity_ops.cc, $batch in batch.cc.

#include "tools/serve/service.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>

#include "partkv/filter.h"

namespace partkv::serve {
namespace {

// The service version the responses speak when the request names none (the SDKs' own).
constexpr char kDefaultVersion[] = "2019-02-02";

bool PrefersNoContent(const HttpRequest& request) {
  return request.Header("Prefer").find("return-no-content") != std::string::npos;
}

std::string LowerCase(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

// The request's Content-Encoding when it is not the identity, else "". Several codings
// ("gzip, identity") are refused as a whole, named as sent.
std::string ContentEncoding(const HttpRequest& request) {
  auto [first, last] = request.headers.equal_range("Content-Encoding");
  std::string named;
  bool identity = true;
  for (auto it = first; it != last; ++it) {
    std::string_view value = it->second;
    if (!named.empty() && !value.empty()) named += ", ";
    named += value;
    while (!value.empty()) {
      size_t comma = value.find(',');
      std::string_view coding = value.substr(0, comma);
      size_t begin = coding.find_first_not_of(" \t");
      coding = begin == std::string_view::npos
                   ? std::string_view()
                   : coding.substr(begin, coding.find_last_not_of(" \t") + 1 - begin);
      if (!coding.empty() && LowerCase(coding) != "identity") identity = false;
      value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
    }
  }
  if (identity) return std::string();
  constexpr size_t kMaxNamed = 100;  // the message quotes it; a long header is cut
  if (named.size() > kMaxNamed) named = named.substr(0, kMaxNamed) + "...";
  return named;
}

}  // namespace

Service::Service(Store store, Accounts accounts, ServiceOptions options)
    : store_(std::move(store)), accounts_(std::move(accounts)), options_(options) {
  policies_ = [this](std::string_view table, std::string_view id) { return FindPolicy(table, id); };
}

Result<Table> Service::OpenTable(std::string_view name) const {
  std::string key = LowerCase(name);
  uint64_t generation;
  {
    port::ReaderMutexLock lock(&tables_mu_);
    if (auto it = tables_.find(key); it != tables_.end()) return it->second;
    generation = tables_generation_;
  }
  Result<Table> table = store_.OpenTable(name);
  if (table.ok()) {
    port::WriterMutexLock lock(&tables_mu_);
    if (generation == tables_generation_) tables_.emplace(std::move(key), *table);
  }
  return table;
}

void Service::ForgetTables() const {
  port::WriterMutexLock lock(&tables_mu_);
  tables_.clear();
  ++tables_generation_;
}

void Service::AddCommonHeaders(const HttpRequest& request, bool xml, HttpReply* reply) {
  if (reply->Header("x-ms-request-id").empty()) {
    reply->SetHeader("x-ms-request-id", NewRequestId());
  }
  std::string version = request.Header("x-ms-version");
  reply->SetHeader("x-ms-version", version.empty() ? kDefaultVersion : version);
  if (std::string id = request.Header("x-ms-client-request-id"); !id.empty()) {
    reply->SetHeader("x-ms-client-request-id", id);
  }
  reply->SetHeader("Date", HttpDateNow());
  if (reply->status < 300 && !xml) reply->SetHeader("DataServiceVersion", "3.0;");
}

std::optional<HttpReply> Service::Admit(const HttpRequest& head, AuthResult* auth) const {
  const bool xml = IsXmlOperation(head);
  auto refuse = [&](const AzureError& e) {
    HttpReply reply = xml ? XmlErrorReply(e) : ErrorReply(e);
    AddCommonHeaders(head, xml, &reply);
    return reply;
  };
  auto resource = ParseResource(head.path);
  if (!resource.ok()) return refuse(MakeError(400, "InvalidUri", resource.status().message()));
  *auth = Authenticate(head, accounts_, resource->account, policies_, resource->secondary);
  if (auth->error) return refuse(*auth->error);
  // The secondary location of a read-access geo-redundant account serves reads only.
  if (resource->secondary && head.method != "GET" && head.method != "HEAD") {
    return refuse(MakeError(403, "AuthorizationFailure",
                            "the secondary location (" + resource->account +
                                "-secondary) is read-only: send writes to the primary"));
  }
  // Checked only after authentication, so that an unauthenticated client learns nothing of the
  // server beyond its refusal.
  if (std::string encoding = ContentEncoding(head); !encoding.empty()) {
    HttpReply reply = refuse(MakeError(
        415, "UnsupportedHeader",
        "Content-Encoding '" + encoding +
            "' is not supported: send the request body uncompressed (Content-Encoding: identity, "
            "or no Content-Encoding header)"));
    reply.SetHeader("Accept-Encoding", "identity");
    return reply;
  }
  return std::nullopt;
}

HttpReply Service::Handle(const HttpRequest& request, const AuthResult& auth) const {
  HttpReply reply;
  const bool xml = IsXmlOperation(request);
  auto error_reply = [xml](const AzureError& e) { return xml ? XmlErrorReply(e) : ErrorReply(e); };
  auto resource = ParseResource(request.path);
  if (!resource.ok()) {  // Admit refuses these; a caller that skipped it gets the same answer
    reply = error_reply(MakeError(400, "InvalidUri", resource.status().message()));
  } else if (auth.error) {
    reply = error_reply(*auth.error);
  } else if (xml) {
    reply = XmlOperation(request, *resource, auth);
  } else {
    ODataContext ctx;
    ctx.account = resource->account;
    ctx.account_url = request.base_url + "/" + resource->account;
    ctx.metadata = MetadataFor(request);
    reply = Dispatch(request, *resource, ctx, auth);
  }
  AddCommonHeaders(request, xml, &reply);
  return reply;
}

HttpReply Service::Handle(const HttpRequest& request) const {
  AuthResult auth;
  if (std::optional<HttpReply> refused = Admit(request, &auth)) return std::move(*refused);
  return Handle(request, auth);
}

HttpReply Service::Dispatch(const HttpRequest& request, const Resource& resource,
                            const ODataContext& ctx, const AuthResult& auth) const {
  if (IsXmlOperation(request)) {  // only a $batch sub-request gets here with one
    return ErrorReply(MakeError(400, "InvalidInput",
                                "service properties and table ACLs cannot be part of a batch"));
  }
  const std::string& m = request.method;
  auto not_allowed = [&] {
    return ErrorReply(MakeError(405, "UnsupportedHttpVerb",
                                "method " + m + " is not supported on this resource"));
  };
  switch (resource.kind) {
    case Resource::Kind::kServiceRoot:
      return ErrorReply(MakeError(400, "InvalidUri", "the request names no table or resource"));
    case Resource::Kind::kTables:
      if (m == "GET") return QueryTables(request, resource, ctx, auth);
      if (m == "POST") return CreateTable(request, ctx, auth);
      return not_allowed();
    case Resource::Kind::kTable:
      if (m == "DELETE") return DeleteTable(resource, auth);
      if (m == "GET") return QueryTables(request, resource, ctx, auth);
      return not_allowed();
    case Resource::Kind::kBatch:
      if (m == "POST") return Batch(request, ctx, auth);
      return not_allowed();
    case Resource::Kind::kEntities:
      if (m == "GET") return QueryEntities(request, resource, ctx, auth);
      if (m == "POST") return WriteEntity(request, resource, ctx, auth);
      return not_allowed();
    case Resource::Kind::kEntity:
      if (m == "GET") return GetEntity(request, resource, ctx, auth);
      if (m == "PUT" || m == "MERGE" || m == "DELETE") {
        return WriteEntity(request, resource, ctx, auth);
      }
      return not_allowed();
  }
  return not_allowed();
}

HttpReply Service::Failure(const Status& status, Subject subject, const Table* table) const {
  AzureError error = ErrorFor(status, subject);
  if (!status.IsThrottled()) return ErrorReply(error);
  int64_t ms = std::max<int64_t>(1, status.retry_after().count());
  const bool cosmos = table != nullptr && table->info().profile == "cosmos";
  if (cosmos) error = MakeError(429, "TooManyRequests", status.message());
  HttpReply reply = ErrorReply(error);
  reply.SetHeader("Retry-After", std::to_string((ms + 999) / 1000));
  reply.SetHeader("x-ms-retry-after-ms", std::to_string(ms));
  return reply;
}

HttpReply Service::QueryTables(const HttpRequest& request, const Resource& resource,
                               const ODataContext& ctx, const AuthResult& auth) const {
  if (auth.sas) {
    if (auto denied = AuthorizeSas(*auth.sas, SasOp::kListTables, "")) return ErrorReply(*denied);
  }
  auto tables = store_.ListTables();
  if (!tables.ok()) return Failure(tables.status(), Subject::kTableOperation, nullptr);
  HttpReply reply;
  reply.SetHeader("Content-Type", ContentTypeFor(ctx.metadata));
  if (resource.kind == Resource::Kind::kTable) {  // GET Tables('name')
    for (const TableInfo& t : *tables) {
      if (std::equal(t.name.begin(), t.name.end(), resource.table.begin(), resource.table.end(),
                     [](unsigned char a, unsigned char b) {
                       return std::tolower(a) == std::tolower(b);
                     })) {
        reply.body = TableJson(t.name, ctx, true);
        return reply;
      }
    }
    return ErrorReply(
        MakeError(404, "ResourceNotFound", "table '" + resource.table + "' does not exist"));
  }
  Filter filter;
  if (const std::string* text = request.Param("$filter")) {
    auto parsed = Filter::Parse(*text);
    if (!parsed.ok()) return ErrorReply(MakeError(400, "InvalidInput", parsed.status().message()));
    filter = std::move(*parsed);
  }
  size_t top = Query::kMaxPageSize;
  if (const std::string* text = request.Param("$top")) {
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), top);
    if (ec != std::errc() || end != text->data() + text->size() || top == 0) {
      return ErrorReply(MakeError(400, "InvalidInput", "$top must be a positive integer"));
    }
    top = std::min<size_t>(top, Query::kMaxPageSize);
  }
  const std::string* next = request.Param("NextTableName");
  std::vector<std::string> names;
  std::string next_name;
  for (const TableInfo& t : *tables) {
    if (next != nullptr && t.name < *next) continue;
    Entity row;
    row.Set("TableName", Value::String(t.name));
    if (!filter.Matches(row)) continue;
    if (names.size() == top) {
      next_name = t.name;
      break;
    }
    names.push_back(t.name);
  }
  if (!next_name.empty()) reply.SetHeader("x-ms-continuation-NextTableName", next_name);
  reply.body = TablePageJson(names, ctx);
  return reply;
}

HttpReply Service::CreateTable(const HttpRequest& request, const ODataContext& ctx,
                               const AuthResult& auth) const {
  if (auth.sas) {
    if (auto denied = AuthorizeSas(*auth.sas, SasOp::kCreateTable, "")) return ErrorReply(*denied);
  }
  nlohmann::json body = nlohmann::json::parse(request.body, nullptr, false);
  if (body.is_discarded() || !body.is_object() || !body.contains("TableName") ||
      !body["TableName"].is_string()) {
    return ErrorReply(MakeError(400, "InvalidInput",
                                "the body must be a JSON object with a string \"TableName\""));
  }
  std::string name = body["TableName"].get<std::string>();
  Status created = store_.CreateTable(name);
  ForgetTables();
  if (!created.ok()) return Failure(created, Subject::kTableOperation, nullptr);
  HttpReply reply;
  reply.SetHeader("Location", ctx.account_url + "/Tables('" + name + "')");
  if (PrefersNoContent(request)) {
    reply.status = 204;
    reply.SetHeader("Preference-Applied", "return-no-content");
  } else {
    reply.status = 201;
    if (request.HasHeader("Prefer")) reply.SetHeader("Preference-Applied", "return-content");
    reply.SetHeader("Content-Type", ContentTypeFor(ctx.metadata));
    reply.body = TableJson(name, ctx, true);
  }
  return reply;
}

HttpReply Service::DeleteTable(const Resource& resource, const AuthResult& auth) const {
  if (auth.sas) {
    if (auto denied = AuthorizeSas(*auth.sas, SasOp::kDeleteTable, resource.table)) {
      return ErrorReply(*denied);
    }
  }
  Status dropped = store_.DropTable(resource.table);
  ForgetTables();
  if (!dropped.ok()) return Failure(dropped, Subject::kTableOperation, nullptr);
  HttpReply reply;
  reply.status = 204;
  return reply;
}

}  // namespace partkv::serve
