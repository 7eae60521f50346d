// Requests to a remote Table service: build, sign, send, retry (service_client.h).

#include "engine/remote/service_client.h"

#include <openssl/sha.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "engine/protocol/shared_key.h"
#include "partkv/base64.h"

namespace partkv::remote {
namespace {

// The service version the requests speak (the Azure SDKs' for Tables).
constexpr char kServiceVersion[] = "2019-02-02";

bool Retryable(int status) {
  return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 ||
         status == 504;
}

// Statuses after which the request may have been executed.
bool MayHaveApplied(int status) { return status == 500 || status == 502 || status == 504; }

std::chrono::milliseconds Jittered(std::chrono::milliseconds wait) {
  thread_local std::mt19937_64 random{std::random_device{}()};
  int64_t high = std::max<int64_t>(1, wait.count());
  std::uniform_int_distribution<int64_t> draw(high / 2, high);
  return std::chrono::milliseconds(draw(random));
}

std::string Sha256(std::string_view text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof digest);
}

// %XX escapes decoded; anything else kept.
std::string PercentDecode(std::string_view text) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// The endpoint's credential in every form it travels or could be echoed in.
std::vector<std::string> SecretsOf(const Endpoint& e) {
  std::vector<std::string> secrets;
  if (!e.key.empty()) secrets.push_back(Base64Encode(e.key));
  if (!e.sas.empty()) {
    secrets.push_back(e.sas);
    secrets.push_back(PercentDecode(e.sas));
    for (size_t at = 0; at < e.sas.size();) {
      size_t end = e.sas.find('&', at);
      if (end == std::string::npos) end = e.sas.size();
      std::string_view param = std::string_view(e.sas).substr(at, end - at);
      if (param.size() > 4 && StartsWithIgnoreCase(param, "sig=")) {
        secrets.emplace_back(param.substr(4));
        secrets.push_back(PercentDecode(param.substr(4)));
      }
      at = end + 1;
    }
  }
  // The longest first, so that a secret inside another is blanked with it.
  std::sort(secrets.begin(), secrets.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return secrets;
}

}  // namespace

std::string EncodeComponent(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size() + 8);
  for (unsigned char c : text) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~' || c == '\'' || c == '(' || c == ')' || c == '*' ||
        c == '!') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

ServiceError ErrorOf(const HttpResponse& response, const std::vector<std::string>& secrets) {
  ServiceError error;
  error.code = response.Header("x-ms-error-code");
  const std::string& body = response.body;
  if (!body.empty() && body.front() == '{') {
    auto json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (json.is_object()) {
      auto it = json.find("odata.error");
      if (it == json.end()) it = json.find("error");
      if (it != json.end() && it->is_object()) {
        if (auto code = it->find("code"); code != it->end() && code->is_string()) {
          if (error.code.empty()) error.code = code->get<std::string>();
        }
        if (auto message = it->find("message"); message != it->end()) {
          if (message->is_string()) {
            error.message = message->get<std::string>();
          } else if (message->is_object()) {
            if (auto value = message->find("value");
                value != message->end() && value->is_string()) {
              error.message = value->get<std::string>();
            }
          }
        }
      }
    }
  } else if (body.find("<Error") != std::string::npos) {
    auto element = [&](std::string_view name) -> std::string {
      std::string open = "<", close = "</";
      open.append(name).push_back('>');
      close.append(name).push_back('>');
      size_t a = body.find(open);
      if (a == std::string::npos) return "";
      a += open.size();
      size_t b = body.find(close, a);
      return b == std::string::npos ? "" : body.substr(a, b - a);
    };
    if (error.code.empty()) error.code = element("Code");
    error.message = element("Message");
  }
  // Azure's messages end with "\nRequestId:…\nTime:…": the first line is the message.
  if (size_t nl = error.message.find('\n'); nl != std::string::npos) error.message.resize(nl);
  // The server's words reach our messages only without a secret (a server may echo the request,
  // its URL's signature included).
  error.code = RedactServiceText(error.code, secrets, 64);
  error.message = RedactServiceText(error.message, secrets);
  return error;
}

std::optional<std::chrono::milliseconds> RetryAfterOf(const HttpResponse& response) {
  using std::chrono::milliseconds;
  // x-ms-retry-after-ms: a non-negative decimal number of milliseconds (Cosmos DB sends a
  // fraction at times). Read as a double only to be clamped: no arithmetic sees it unbounded.
  std::string ms = response.Header("x-ms-retry-after-ms");
  if (!ms.empty()) {
    char* end = nullptr;
    double v = std::strtod(ms.c_str(), &end);
    if (end != ms.c_str() && *end == '\0' && !std::isnan(v)) {
      v = std::clamp(v, 0.0, static_cast<double>(kMaxRetryAfter.count()));
      return milliseconds(static_cast<int64_t>(v));
    }
  }
  std::string after = response.Header("Retry-After");
  if (after.empty()) return std::nullopt;
  // Seconds: digits only; more than the bound (however many digits) is the bound.
  if (std::all_of(after.begin(), after.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    constexpr uint64_t kMaxSeconds = kMaxRetryAfter.count() / 1000;
    uint64_t seconds = 0;
    for (char c : after) {
      seconds = std::min<uint64_t>(seconds * 10 + static_cast<uint64_t>(c - '0'), kMaxSeconds);
    }
    return milliseconds(static_cast<int64_t>(seconds) * 1000);
  }
  if (auto when = protocol::ParseHttpDate(after); when.ok()) {
    auto now = std::chrono::system_clock::now();
    if (*when <= now) return milliseconds(0);
    if (*when - now >= kMaxRetryAfter) return kMaxRetryAfter;
    return std::chrono::duration_cast<milliseconds>(*when - now);
  }
  return std::nullopt;
}

Status StatusOf(const HttpResponse& response, std::string_view what,
                std::optional<size_t> batch_index, const std::vector<std::string>& secrets) {
  ServiceError error = ErrorOf(response, secrets);
  if (batch_index) {
    // Azure begins a batch operation's message with "<index>:"; the Status's failed_op() says it.
    const std::string prefix = std::to_string(*batch_index) + ":";
    if (error.message.rfind(prefix, 0) == 0) error.message.erase(0, prefix.size());
  }
  std::string text = std::string(what) + ": the service answered " +
                     std::to_string(response.status) +
                     (error.code.empty() ? std::string() : " " + error.code) +
                     (error.message.empty() ? std::string() : " (" + error.message + ")");
  const std::string& code = error.code;
  const int status = response.status;
  if (code == "EntityAlreadyExists" || code == "TableAlreadyExists") {
    return Status::AlreadyExists(text);
  }
  if (code == "UpdateConditionNotSatisfied" || status == 412) {
    return Status::PreconditionFailed(text);
  }
  if (code == "ResourceNotFound" || code == "TableNotFound" || status == 404) {
    return Status::NotFound(text);
  }
  // The credential was refused or does not allow the call: fixing the key or the SAS is what
  // helps, as with Azure's AuthenticationFailed and AuthorizationPermissionMismatch.
  if (status == 401 || status == 403) return Status::PermissionDenied(text);
  if (status == 503 || status == 429) {
    return Status::Throttled(text, RetryAfterOf(response).value_or(std::chrono::seconds(1)));
  }
  if (code == "TableBeingDeleted") return Status::Busy(text);
  if (status == 409) return Status::AlreadyExists(text);
  if (status >= 400 && status < 500 && status != 408) return Status::InvalidArgument(text);
  return Status::IOError(text);
}

namespace {

std::string SecondaryUrlOf(const Endpoint& e) {
  Endpoint secondary = e;
  if (!e.base_path.empty()) {
    secondary.base_path += "-secondary";
  } else if (!e.account.empty() && e.host.size() > e.account.size() &&
             StartsWithIgnoreCase(e.host, e.account) && e.host[e.account.size()] == '.') {
    secondary.host =
        e.host.substr(0, e.account.size()) + "-secondary" + e.host.substr(e.account.size());
  } else {
    return "";
  }
  return secondary.Url();
}

}  // namespace

ServiceClient::ServiceClient(Endpoint endpoint, const RemoteOptions& options)
    : endpoint_(std::move(endpoint)),
      options_(options),
      base_url_(endpoint_.Url()),
      secondary_url_(SecondaryUrlOf(endpoint_)),
      workers_(options.fan_out > 0 ? options.fan_out - 1 : 0) {}

ServiceClient::~ServiceClient() = default;

Result<std::shared_ptr<ServiceClient>> ServiceClient::Create(Endpoint endpoint,
                                                             const RemoteOptions& options) {
  if (options.retry.max_attempts < 1) {
    return Status::InvalidArgument("RetryOptions::max_attempts must be at least 1");
  }
  if (options.fan_out < 1)
    return Status::InvalidArgument("RemoteOptions::fan_out must be at least 1");
  std::shared_ptr<ServiceClient> client(new ServiceClient(std::move(endpoint), options));
  HttpOptions http;
  http.ca_file = options.ca_file;
  http.connect_timeout = options.connect_timeout;
  http.request_timeout = options.request_timeout;
  http.max_connections = options.max_connections;
  http.max_response_memory = options.max_response_memory;
  // One response may take the whole budget, no more: the budget is the one limit to name.
  http.max_response_bytes = options.max_response_memory;
  PARTKV_ASSIGN_OR_RETURN(client->http_, HttpClient::Create(http));
  const Endpoint& e = client->endpoint_;
  client->secrets_ = SecretsOf(e);
  if (!e.key.empty()) {
    PARTKV_ASSIGN_OR_RETURN(protocol::HmacSha256 signer, protocol::HmacSha256::Create(e.key));
    client->signer_ = std::make_unique<protocol::HmacSha256>(std::move(signer));
    client->token_secret_ = Sha256("partkv continuation\n" + e.Url() + "\n" + e.key);
  } else {
    client->token_secret_ = Sha256("partkv continuation\n" + e.Url() + "\n" + e.sas);
  }
  return client;
}

HttpRequest ServiceClient::Build(const Call& call) const {
  HttpRequest request;
  request.method = std::string(call.method);
  std::string path = endpoint_.base_path + call.path;
  request.url = (call.secondary ? secondary_url_ : base_url_) + call.path;
  std::string query = call.query;
  if (!endpoint_.sas.empty()) query += (query.empty() ? "" : "&") + endpoint_.sas;
  if (!query.empty()) request.url += "?" + query;
  std::string date = protocol::FormatHttpDate(std::chrono::system_clock::now());
  auto& h = request.headers;
  h.reserve(10);
  h.emplace_back("x-ms-date", date);
  h.emplace_back("x-ms-version", kServiceVersion);
  h.emplace_back("DataServiceVersion", "3.0");
  h.emplace_back("MaxDataServiceVersion", "3.0;NetFx");
  h.emplace_back("Accept", std::string(call.accept));
  if (!call.content_type.empty()) h.emplace_back("Content-Type", call.content_type);
  if (!call.if_match.empty()) h.emplace_back("If-Match", call.if_match);
  if (call.return_no_content) h.emplace_back("Prefer", "return-no-content");
  if (signer_) {
    // The resource names comp= when the query has it (service properties, table ACLs).
    std::string comp;
    for (size_t at = 0; at < call.query.size();) {
      size_t end = call.query.find('&', at);
      if (end == std::string::npos) end = call.query.size();
      std::string_view param = std::string_view(call.query).substr(at, end - at);
      if (param.starts_with("comp=")) comp = std::string(param.substr(5));
      at = end + 1;
    }
    std::string resource = protocol::CanonicalizedResource(
        endpoint_.account, path,
        comp.empty() ? std::nullopt : std::optional<std::string_view>(comp));
    std::string to_sign =
        protocol::SharedKeyStringToSign(call.method, "", call.content_type, date, resource);
    h.emplace_back("Authorization",
                   protocol::AuthorizationHeader(protocol::SharedKeyScheme::kSharedKey,
                                                 endpoint_.account, signer_->Sign(to_sign)));
  }
  request.body = call.body;
  return request;
}

Result<Outcome> ServiceClient::Send(const Call& call) {
  using Clock = std::chrono::steady_clock;
  const RetryOptions& retry = options_.retry;
  const auto start = Clock::now();
  Outcome outcome;
  std::chrono::milliseconds backoff = retry.initial_backoff;
  for (;;) {
    ++outcome.attempts;
    TransportFailure failure;
    // Each attempt is signed anew: its date must be current.
    auto response = http_->Perform(Build(call), &failure);
    std::optional<std::chrono::milliseconds> asked;
    if (response.ok()) {
      outcome.response = std::move(*response);
      const int status = outcome.response.status;
      if (!Retryable(status)) return outcome;
      if (status == 503 || status == 429) ++outcome.throttled;
      asked = RetryAfterOf(outcome.response);
      if (MayHaveApplied(status)) outcome.maybe_applied = true;
    } else {
      // A certificate that does not verify, or an answer too large to hold, is the same on
      // every attempt.
      if (failure.kind == TransportFailure::Kind::kTls ||
          failure.kind == TransportFailure::Kind::kTooLarge) {
        return response.status().WithContext(call.what);
      }
      if (failure.maybe_sent) outcome.maybe_applied = true;
    }
    const bool last_try = outcome.attempts >= retry.max_attempts;
    std::chrono::milliseconds wait =
        std::max(Jittered(backoff), asked.value_or(std::chrono::milliseconds(0)));
    const auto elapsed =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    if (last_try || elapsed + wait > retry.max_total) {
      if (!response.ok()) {
        return response.status().WithContext(call.what + " (after " +
                                             std::to_string(outcome.attempts) + " attempts)");
      }
      return outcome;  // the caller maps the final error response
    }
    std::this_thread::sleep_for(wait);
    outcome.waited += wait;
    backoff = std::min(backoff * 2, retry.max_backoff);
  }
}

}  // namespace partkv::remote
