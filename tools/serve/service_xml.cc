// The Table service's XML operations (service.h): Get/Set Table Service Properties, Get Table
// Service Stats and Get/Set Table ACL. Requests and replies are Azure's XML documents
// (service_properties.h, table_acl.h); every error is Azure's XML error body. A SAS may read or set
// the service properties (an account SAS with resource type s), but no SAS may touch a table's ACL
// (Azure: Shared Key only).

#include "tools/serve/service.h"
#include "tools/serve/service_properties.h"
#include "tools/serve/table_acl.h"

namespace partkv::serve {
namespace {

HttpReply XmlReply(int status, std::string body) {
  HttpReply reply;
  reply.status = status;
  reply.SetHeader("Content-Type", "application/xml");
  reply.body = std::move(body);
  return reply;
}

HttpReply BadDocument(const Status& status) {
  return XmlErrorReply(MakeError(400, "InvalidXmlDocument", status.message()));
}

HttpReply NotAllowed(const HttpRequest& request) {
  return XmlErrorReply(
      MakeError(405, "UnsupportedHttpVerb",
                "method " + request.method + " is not supported on this resource"));
}

}  // namespace

bool Service::IsXmlOperation(const HttpRequest& request) {
  return request.Param("comp") != nullptr || request.Param("restype") != nullptr;
}

HttpReply Service::XmlOperation(const HttpRequest& request, const Resource& resource,
                                const AuthResult& auth) const {
  const std::string* comp = request.Param("comp");
  const std::string* restype = request.Param("restype");
  const std::string& m = request.method;
  if (resource.kind == Resource::Kind::kServiceRoot && restype != nullptr &&
      *restype == "service" && comp != nullptr && *comp == "properties") {
    if (m == "GET") return GetServiceProperties(auth);
    if (m == "PUT") return SetServiceProperties(request, auth);
    return NotAllowed(request);
  }
  if (resource.kind == Resource::Kind::kEntities && restype == nullptr && comp != nullptr &&
      *comp == "acl") {
    if (m == "GET" || m == "HEAD") return GetTableAcl(resource, auth);  // Azure allows both
    if (m == "PUT") return SetTableAcl(request, resource, auth);
    return NotAllowed(request);
  }
  if (resource.kind == Resource::Kind::kServiceRoot && restype != nullptr &&
      *restype == "service" && comp != nullptr && *comp == "stats") {
    if (m != "GET") return NotAllowed(request);
    // As Azure: only the secondary location of an account answers.
    if (!resource.secondary) {
      return XmlErrorReply(MakeError(400, "InvalidQueryParameterValue",
                                     "service statistics are answered at the secondary location "
                                     "only: /" +
                                         resource.account +
                                         "-secondary/?restype=service&comp=stats"));
    }
    return GetServiceStats(auth);
  }
  return XmlErrorReply(MakeError(400, "InvalidQueryParameterValue",
                                 "comp and restype name no operation on this resource"));
}

HttpReply Service::GetServiceProperties(const AuthResult& auth) const {
  if (auth.sas) {
    if (auto denied = AuthorizeSas(*auth.sas, SasOp::kGetServiceProperties, "")) {
      return XmlErrorReply(*denied);
    }
  }
  auto stored = store_.ServiceProperties();
  if (!stored.ok()) return XmlErrorReply(ErrorFor(stored.status(), Subject::kTableOperation));
  // Stored documents are written by ServicePropertiesXml; none yet means the defaults.
  if (!stored->empty()) return XmlReply(200, std::move(*stored));
  return XmlReply(200, ServicePropertiesXml(ServiceProperties{}));
}

// Azure's StorageServiceStats document. The store is one copy, so its "secondary" is itself:
// live, and current to the second (ServiceStatistics, docs/serve.md).
HttpReply Service::GetServiceStats(const AuthResult& auth) const {
  if (auth.sas) {
    if (auto denied = AuthorizeSas(*auth.sas, SasOp::kGetServiceProperties, "")) {
      return XmlErrorReply(*denied);
    }
  }
  auto stats = store_.ServiceStats();
  if (!stats.ok()) return XmlErrorReply(ErrorFor(stats.status(), Subject::kTableOperation));
  std::string xml =
      "<?xml version=\"1.0\" encoding=\"utf-8\"?><StorageServiceStats><GeoReplication><Status>" +
      stats->geo_replication_status + "</Status>";
  if (stats->last_sync_time) {
    const std::time_t when = stats->last_sync_time->ToUnixMicros() / 1000000;
    xml += "<LastSyncTime>" + HttpDate(when) + "</LastSyncTime>";
  }
  xml += "</GeoReplication></StorageServiceStats>";
  return XmlReply(200, std::move(xml));
}

HttpReply Service::SetServiceProperties(const HttpRequest& request, const AuthResult& auth) const {
  if (auth.sas) {
    if (auto denied = AuthorizeSas(*auth.sas, SasOp::kSetServiceProperties, "")) {
      return XmlErrorReply(*denied);
    }
  }
  port::MutexLock lock(&properties_mu_);
  auto stored = store_.ServiceProperties();
  if (!stored.ok()) return XmlErrorReply(ErrorFor(stored.status(), Subject::kTableOperation));
  auto properties = ParseServiceProperties(*stored);
  if (!properties.ok()) {
    return XmlErrorReply(MakeError(500, "InternalError",
                                   "the stored service properties cannot be read: " +
                                       std::string(properties.status().message())));
  }
  Status applied = ApplyServicePropertiesXml(request.body, &*properties);
  if (!applied.ok()) return BadDocument(applied);
  Status saved = store_.SetServiceProperties(ServicePropertiesXml(*properties));
  if (saved.IsInvalidArgument()) return BadDocument(saved);  // over the store's size limit
  if (!saved.ok()) return XmlErrorReply(ErrorFor(saved, Subject::kTableOperation));
  HttpReply reply;
  reply.status = 202;
  return reply;
}

HttpReply Service::GetTableAcl(const Resource& resource, const AuthResult& auth) const {
  if (auth.sas) {
    if (auto denied = AuthorizeSas(*auth.sas, SasOp::kTableAcl, resource.table)) {
      return XmlErrorReply(*denied);
    }
  }
  auto table = OpenTable(resource.table);
  if (!table.ok()) return XmlErrorReply(ErrorFor(table.status(), Subject::kTableOperation));
  auto policies = table->AccessPolicies();
  if (!policies.ok()) return XmlErrorReply(ErrorFor(policies.status(), Subject::kTableOperation));
  return XmlReply(200, SignedIdentifiersXml(*policies));
}

HttpReply Service::SetTableAcl(const HttpRequest& request, const Resource& resource,
                               const AuthResult& auth) const {
  if (auth.sas) {
    if (auto denied = AuthorizeSas(*auth.sas, SasOp::kTableAcl, resource.table)) {
      return XmlErrorReply(*denied);
    }
  }
  auto policies = ParseSignedIdentifiers(request.body);
  if (!policies.ok()) return BadDocument(policies.status());
  auto table = OpenTable(resource.table);
  if (!table.ok()) return XmlErrorReply(ErrorFor(table.status(), Subject::kTableOperation));
  Status set = table->SetAccessPolicies(*policies);
  if (set.IsInvalidArgument()) return BadDocument(set);
  if (!set.ok()) return XmlErrorReply(ErrorFor(set, Subject::kTableOperation));
  HttpReply reply;
  reply.status = 204;
  return reply;
}

std::optional<AccessPolicy> Service::FindPolicy(std::string_view table, std::string_view id) const {
  auto handle = OpenTable(table);
  if (!handle.ok()) return std::nullopt;
  auto policies = handle->AccessPolicies();
  if (!policies.ok()) return std::nullopt;
  for (AccessPolicy& p : *policies) {
    if (p.id == id) return std::move(p);
  }
  return std::nullopt;
}

}  // namespace partkv::serve
