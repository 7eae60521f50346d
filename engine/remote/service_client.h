// One remote Table service endpoint as the remote backend talks to it: requests built, signed
// (Shared Key, or the SAS appended), sent through the HTTP transport (http_client.h) and retried
// by the store's RetryOptions; error responses turned into partkv Statuses.
//
// Retries (docs/remote.md "Retries"): 503, 429, 500, 502, 504, 408 and transport failures (but
// a TLS failure or a response over the size limit, which would fail again) are retried with
// exponential back-off and full jitter, honouring x-ms-retry-after-ms and Retry-After, within
// RetryOptions' attempts and total time. Every request is retried, writes too: a write whose
// earlier attempt may have been applied (the connection dropped or timed out after the request was
// sent, or the service answered 500/502/504) comes back with Outcome::maybe_applied set, and the
// caller decides what the final answer means (the lost-write rule, remote_backend.cc). 503
// ServerBusy and 429 mean the request was not executed.
//
// Error mapping: EntityAlreadyExists/TableAlreadyExists → AlreadyExists;
// UpdateConditionNotSatisfied → PreconditionFailed; ResourceNotFound/TableNotFound → NotFound;
// 503/429 → Throttled with the server's retry-after; other 4xx → InvalidArgument (the request is
// wrong: retrying will not help); 401/403 → PermissionDenied; 409 TableBeingDeleted → Busy; 5xx
// and transport failures → IOError. Messages carry the service's code and message, redacted:
// never a key or a signature, even when the server echoes the request.
//
// Thread-safe.

#ifndef PARTKV_ENGINE_REMOTE_SERVICE_CLIENT_H_
#define PARTKV_ENGINE_REMOTE_SERVICE_CLIENT_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/remote/connection_string.h"
#include "engine/remote/endpoint_url.h"
#include "engine/remote/http_client.h"
#include "engine/worker_pool.h"
#include "partkv/options.h"
#include "partkv/result.h"

namespace partkv::protocol {
class HmacSha256;
}

namespace partkv::remote {

// One request, before signing.
struct Call {
  std::string_view method{};  // GET, POST, PUT, MERGE, DELETE
  std::string path{};         // after the endpoint's base path, percent-encoded: "/Tables"
  std::string query{};        // percent-encoded, without '?'; the SAS is appended
  std::string body{};
  std::string content_type{};      // with a body
  std::string if_match{};          // "" = no If-Match header
  bool return_no_content = false;  // Prefer: return-no-content
  std::string_view accept = "application/json;odata=minimalmetadata";
  std::string what{};  // for messages: "insert into table 'T'"
  // Sent to the account's secondary location (ServiceClient::secondary_url), signed as for the
  // primary: Azure's rule, the account name is always the primary's.
  bool secondary = false;
};

// What sending a Call came to.
struct Outcome {
  HttpResponse response;  // the last attempt's response (any status)
  int attempts = 0;
  // An earlier attempt may have been applied by the service although its answer was lost.
  bool maybe_applied = false;
  int throttled = 0;                    // attempts answered 503 or 429
  std::chrono::milliseconds waited{0};  // time spent waiting between attempts
};

// The service's error code and message of an error response: x-ms-error-code, else the
// odata.error JSON body, else the XML <Error> body.
struct ServiceError {
  std::string code;
  std::string message;
};
// Both are passed through RedactServiceText (endpoint_url.h) with `secrets`.
ServiceError ErrorOf(const HttpResponse& response, const std::vector<std::string>& secrets = {});

// The partkv Status of an error response (status >= 300) of `what`; `batch_index` when it is
// the answer of that operation of a batch. The service's words in it are redacted with
// `secrets` (ServiceClient::secrets()).
Status StatusOf(const HttpResponse& response, std::string_view what,
                std::optional<size_t> batch_index = std::nullopt,
                const std::vector<std::string>& secrets = {});

// The longest retry-after a server's answer is taken to ask for: a longer one (or one that does
// not fit any integer) is this. Waits are bounded further by RetryOptions::max_total.
inline constexpr std::chrono::milliseconds kMaxRetryAfter = std::chrono::hours(1);

// The retry-after a response asks for: x-ms-retry-after-ms, else Retry-After (seconds or an
// HTTP date), within [0, kMaxRetryAfter]; nullopt when it asks for none or says nothing a
// number or a date can be read from.
std::optional<std::chrono::milliseconds> RetryAfterOf(const HttpResponse& response);

class ServiceClient {
 public:
  static Result<std::shared_ptr<ServiceClient>> Create(Endpoint endpoint,
                                                       const RemoteOptions& options);
  ~ServiceClient();

  // Sends `call`, retrying as above. Returns the last response whatever its status once one
  // is final; a transport failure that retries did not cure is IOError.
  Result<Outcome> Send(const Call& call);

  const Endpoint& endpoint() const { return endpoint_; }
  // The secondary location of a read-access geo-redundant account, as Azure's SDKs name it:
  // "-secondary" after the account in the host ("acct-secondary.table.core.windows.net") or, for
  // a path-style endpoint, in the path ("/acct-secondary"). Empty when the host does not start
  // with the account name (a custom domain), which leaves no secondary to name.
  const std::string& secondary_url() const { return secondary_url_; }
  const RemoteOptions& options() const { return options_; }
  // A secret for sealing continuation tokens: derived from the credential, so tokens outlive
  // the process but not a change of key.
  const std::string& token_secret() const { return token_secret_; }
  // The credential in the forms it travels (the SAS, its signature raw and percent-decoded; the
  // key in base64): what RedactServiceText blanks by value in the server's words.
  const std::vector<std::string>& secrets() const { return secrets_; }
  // StatusOf with this client's secrets.
  Status StatusOf(const HttpResponse& response, std::string_view what,
                  std::optional<size_t> batch_index = std::nullopt) const {
    return remote::StatusOf(response, what, batch_index, secrets_);
  }
  // Text that came from the server, fit for a message (RedactServiceText with secrets()).
  std::string ServiceText(std::string_view text, size_t max_bytes = 512) const {
    return RedactServiceText(text, secrets_, max_bytes);
  }

  // Runs task(0) .. task(count - 1), up to options().fan_out at once, on the calling thread and
  // this client's standing workers (engine/worker_pool.h).
  void ParallelFor(size_t count, const std::function<void(size_t)>& task) {
    workers_.ParallelFor(count, options_.fan_out, task);
  }

 private:
  ServiceClient(Endpoint endpoint, const RemoteOptions& options);
  HttpRequest Build(const Call& call) const;

  Endpoint endpoint_;
  RemoteOptions options_;
  std::string base_url_;  // Url()
  std::string secondary_url_;
  std::unique_ptr<HttpClient> http_;
  std::unique_ptr<protocol::HmacSha256> signer_;  // null when signing by SAS
  std::string token_secret_;
  std::vector<std::string> secrets_;
  engine::WorkerPool workers_;  // fan_out - 1 threads, started on first need
};

// Percent-encodes everything but RFC 3986's unreserved characters and the sub-delimiters
// encodeURIComponent keeps ( ' ( ) * ! ), as the SDKs encode keys and query values.
std::string EncodeComponent(std::string_view text);

}  // namespace partkv::remote

#endif  // PARTKV_ENGINE_REMOTE_SERVICE_CLIENT_H_
