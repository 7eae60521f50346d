// partkv::serve::Service — the Azure Table service REST API over one partkv Store
// (docs/serve.md). Transport-neutral: it takes an HttpRequest and returns an HttpReply, so the
// HTTP server and $batch sub-requests share every operation.
//
// A request is taken in two steps, so that the HTTP server can refuse one before reading its
// body: Admit() looks at the request line and headers only (the URI, authentication (auth.h),
// Content-Encoding) and either refuses or accepts; Handle() then routes the accepted request by
// resource and method (uri.h), runs the operation on the store and answers with Azure's status
// codes, headers and JSON bodies (XML for service properties and table ACLs, service_xml.cc), and
// Azure's error codes on failure (errors.h). Writes are acknowledged only after the store has
// applied them (with ServiceOptions::sync, after the write-ahead log is fsync'ed).
//
// A Service serves the accounts it is given, over one store; `partkv serve` builds one Service
// per account, each over that account's own store (services.h).
//
// Thread-safety: Admit() and Handle() may be called from any number of threads at once.

#ifndef PARTKV_TOOLS_SERVE_SERVICE_H_
#define PARTKV_TOOLS_SERVE_SERVICE_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"
#include "partkv/batch.h"
#include "partkv/query.h"
#include "partkv/store.h"
#include "tools/serve/auth.h"
#include "tools/serve/errors.h"
#include "tools/serve/http_types.h"
#include "tools/serve/odata.h"
#include "tools/serve/uri.h"

namespace partkv::serve {

struct ServiceOptions {
  bool sync = false;  // fsync every acknowledged write
  // A query page ends after this long, or once its entities reach page_bytes (ServeOptions).
  std::chrono::milliseconds scan_time_budget{5000};
  size_t page_bytes = Query::kDefaultPageBytes;
};

// Azure's limit on a request body (and on a $batch payload): 4 MiB.
inline constexpr size_t kMaxBodyBytes = 4u << 20;

class Service {
 public:
  Service(Store store, Accounts accounts, ServiceOptions options);

  // Admission, from the request line and headers alone (request.body is not read): the server
  // calls it before it reads a body and refuses without reading one. Returns the complete reply
  // refusing the request (a malformed URI 400 InvalidUri, authentication 403, and — only once the
  // request is authenticated — a Content-Encoding other than "identity": 415 UnsupportedHeader
  // with an `Accept-Encoding: identity` header and a message naming the encoding and saying to
  // send the body uncompressed), or nullopt and sets *auth.
  std::optional<HttpReply> Admit(const HttpRequest& head, AuthResult* auth) const;
  // Executes a request Admit accepted (Admit is not repeated: HMAC costs CPU per request).
  HttpReply Handle(const HttpRequest& request, const AuthResult& auth) const;
  // Admit, then Handle.
  HttpReply Handle(const HttpRequest& request) const;

  // One entity write as a request describes it (also a $batch sub-request).
  struct EntityWrite {
    OpType type = OpType::kInsert;
    Entity entity;
    IfMatch if_match = IfMatch::Any();
    bool return_content = true;  // Insert: 201 with the entity, or 204 (Prefer: return-no-content)
  };
  using ParsedWrite = std::variant<EntityWrite, AzureError>;
  static ParsedWrite ParseEntityWrite(const HttpRequest& request, const Resource& resource);

 private:
  // The headers every reply carries (x-ms-request-id, x-ms-version, Date, the client's request
  // id echoed, DataServiceVersion on JSON successes), refusals included.
  static void AddCommonHeaders(const HttpRequest& request, bool xml, HttpReply* reply);
  HttpReply Dispatch(const HttpRequest& request, const Resource& resource, const ODataContext& ctx,
                     const AuthResult& auth) const;
  HttpReply QueryTables(const HttpRequest& request, const Resource& resource,
                        const ODataContext& ctx, const AuthResult& auth) const;
  HttpReply CreateTable(const HttpRequest& request, const ODataContext& ctx,
                        const AuthResult& auth) const;
  HttpReply DeleteTable(const Resource& resource, const AuthResult& auth) const;
  HttpReply QueryEntities(const HttpRequest& request, const Resource& resource,
                          const ODataContext& ctx, const AuthResult& auth) const;
  HttpReply GetEntity(const HttpRequest& request, const Resource& resource, const ODataContext& ctx,
                      const AuthResult& auth) const;
  HttpReply WriteEntity(const HttpRequest& request, const Resource& resource,
                        const ODataContext& ctx, const AuthResult& auth) const;
  HttpReply Batch(const HttpRequest& request, const ODataContext& ctx,
                  const AuthResult& auth) const;  // batch.cc
  // Batch's two kinds: a query batch, whose one part (`body`) is a GET answered as the batch's
  // one sub-response; and a changeset, whose writes (each checked) are submitted as one Batch and
  // answered one sub-response each.
  HttpReply QueryBatch(const HttpRequest& request, const std::string& body, const ODataContext& ctx,
                       const AuthResult& auth) const;
  HttpReply SubmitChangeset(const std::string& table_name, const std::vector<EntityWrite>& writes,
                            const std::vector<std::string>& content_ids,
                            const ODataContext& ctx) const;

  // The XML operations (service_xml.cc): Get/Set Table Service Properties
  // (?restype=service&comp=properties) and Get/Set Table ACL (table?comp=acl). Their errors are
  // XML too.
  static bool IsXmlOperation(const HttpRequest& request);
  HttpReply XmlOperation(const HttpRequest& request, const Resource& resource,
                         const AuthResult& auth) const;
  HttpReply GetServiceProperties(const AuthResult& auth) const;
  HttpReply GetServiceStats(const AuthResult& auth) const;
  HttpReply SetServiceProperties(const HttpRequest& request, const AuthResult& auth) const
      PARTKV_EXCLUDES(properties_mu_);
  HttpReply GetTableAcl(const Resource& resource, const AuthResult& auth) const;
  HttpReply SetTableAcl(const HttpRequest& request, const Resource& resource,
                        const AuthResult& auth) const;
  // The stored access policy a table SAS names (sas.h PolicyLookup).
  std::optional<AccessPolicy> FindPolicy(std::string_view table, std::string_view id) const;

  // The reply for a failed library call; a throttled call answers as the table's profile's
  // service does (503 ServerBusy, or 429 for cosmos).
  HttpReply Failure(const Status& status, Subject subject, const Table* table) const;
  // The headers and body of a successful write.
  static HttpReply WriteReply(const EntityWrite& write, const WriteResult& result,
                              std::string_view table, const ODataContext& ctx);

  // A handle on the table, from a cache: opening one per request costs a catalog lookup under
  // the store's lock. Create Table and Delete Table empty the cache after changing the catalog;
  // a handle opened before such a change is not cached (generation check), so a dropped table's
  // handle (every call NotFound) never outlives the drop in the cache.
  Result<Table> OpenTable(std::string_view name) const PARTKV_EXCLUDES(tables_mu_);
  void ForgetTables() const PARTKV_EXCLUDES(tables_mu_);

  mutable Store store_;  // thread-safe: the Handle() paths share it
  mutable port::SharedMutex tables_mu_;
  // By lower-case name.
  mutable std::unordered_map<std::string, Table> tables_ PARTKV_GUARDED_BY(tables_mu_);
  // Bumped by ForgetTables.
  mutable uint64_t tables_generation_ PARTKV_GUARDED_BY(tables_mu_) = 0;
  Accounts accounts_;
  ServiceOptions options_;
  PolicyLookup policies_;  // FindPolicy, bound to this service
  // Set Table Service Properties reads, merges and writes the document: one at a time, so that
  // concurrent Sets of different elements do not lose each other's changes. It guards the
  // document in the store, not a field: nothing here is GUARDED_BY it. Independent of
  // tables_mu_: neither is taken with the other held.
  mutable port::Mutex properties_mu_;
};

}  // namespace partkv::serve

#endif  // PARTKV_TOOLS_SERVE_SERVICE_H_
