// Connection strings and SAS URLs read into an Endpoint (connection_string.h); the URLs
// themselves are endpoint_url.h's.

#include "engine/remote/connection_string.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/port/strings.h"
#include "engine/remote/endpoint_url.h"
#include "partkv/base64.h"

namespace partkv::remote {
namespace {

// The development storage account: its name, its published key and the table service's port
// are fixed by the storage emulator, and Azurite and `partkv serve` keep them.
constexpr std::string_view kDevAccount = "devstoreaccount1";
constexpr std::string_view kDevKey =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
constexpr std::string_view kDevHost = "127.0.0.1";
constexpr uint16_t kDevTablePort = 10002;
constexpr std::string_view kDefaultEndpointSuffix = "core.windows.net";

bool IsUrl(std::string_view s) {
  return StartsWithIgnoreCase(s, "http://") || StartsWithIgnoreCase(s, "https://");
}

// The ';'-separated segments of `text`, empty ones included.
std::vector<std::string_view> Segments(std::string_view text) {
  std::vector<std::string_view> segments;
  for (size_t semi; (semi = text.find(';')) != std::string_view::npos;
       text.remove_prefix(semi + 1)) {
    segments.push_back(text.substr(0, semi));
  }
  segments.push_back(text);
  return segments;
}

// Text that may be shown although it did not parse: something shaped like a setting name. A key
// or a signature (long, or holding '+', '/', '=' or '%') never is.
bool LooksLikeSettingName(std::string_view s) {
  if (s.empty() || s.size() > 32 ||
      !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) {
    return false;
  }
  for (char c : s) {
    if (!IsAlnum(c) && c != '_' && c != '-') return false;
  }
  return true;
}

// --- Connection strings -------------------------------------------------------------------------

struct Settings {
  std::optional<std::string_view> use_development_storage, development_storage_proxy_uri,
      default_endpoints_protocol, account_name, account_key, endpoint_suffix, table_endpoint,
      table_secondary_endpoint, shared_access_signature;
};

struct KnownSetting {
  std::string_view name;
  // Where its value goes; null for another service's setting, accepted and not used.
  std::optional<std::string_view> Settings::*field;
};

constexpr KnownSetting kKnownSettings[] = {
    {"UseDevelopmentStorage", &Settings::use_development_storage},
    {"DevelopmentStorageProxyUri", &Settings::development_storage_proxy_uri},
    {"DefaultEndpointsProtocol", &Settings::default_endpoints_protocol},
    {"AccountName", &Settings::account_name},
    {"AccountKey", &Settings::account_key},
    {"EndpointSuffix", &Settings::endpoint_suffix},
    {"TableEndpoint", &Settings::table_endpoint},
    // Read-access geo-redundant secondaries are not used: requests go to the primary.
    {"TableSecondaryEndpoint", &Settings::table_secondary_endpoint},
    {"SharedAccessSignature", &Settings::shared_access_signature},
    {"BlobEndpoint", nullptr},
    {"BlobSecondaryEndpoint", nullptr},
    {"QueueEndpoint", nullptr},
    {"QueueSecondaryEndpoint", nullptr},
    {"FileEndpoint", nullptr},
    {"FileSecondaryEndpoint", nullptr},
    // Cosmos DB for NoSQL's connection strings: recognised so that one is refused with the way
    // to Cosmos DB for Table instead of being taken for a directory.
    {"AccountEndpoint", nullptr},
};
constexpr size_t kNumKnownSettings = sizeof(kKnownSettings) / sizeof(kKnownSettings[0]);

const KnownSetting* FindSetting(std::string_view name) {
  for (const KnownSetting& s : kKnownSettings) {
    if (EqualsIgnoreCase(s.name, name)) return &s;
  }
  return nullptr;
}

Result<Settings> SplitSettings(std::string_view text) {
  Settings settings;
  bool seen[kNumKnownSettings] = {};
  std::string_view previous_sas;  // the SharedAccessSignature value, if the last segment was one
  std::vector<std::string_view> segments = Segments(text);
  for (size_t i = 0; i < segments.size(); ++i) {
    std::string_view segment = port::TrimAsciiWhitespace(segments[i]);
    if (segment.empty()) continue;
    std::string number = "segment " + std::to_string(i + 1);
    size_t eq = segment.find('=');
    if (eq == std::string_view::npos) {
      bool show = LooksLikeSettingName(segment);
      return Status::InvalidArgument(number + (show ? " ('" + std::string(segment) + "')" : "") +
                                     " is not Setting=value");
    }
    std::string_view name = port::TrimAsciiWhitespace(segment.substr(0, eq));
    std::string_view value = port::TrimAsciiWhitespace(segment.substr(eq + 1));
    if (name.empty()) return Status::InvalidArgument(number + " has no setting name before '='");
    const KnownSetting* known = FindSetting(name);
    if (known == nullptr) {
      std::string msg = LooksLikeSettingName(name)
                            ? "unknown setting '" + std::string(name) + "'"
                            : number +
                                  " names no known setting (not shown: it does not look "
                                  "like a setting name)";
      msg +=
          "; a table connection string takes UseDevelopmentStorage, DefaultEndpointsProtocol, "
          "AccountName, AccountKey, EndpointSuffix, TableEndpoint, SharedAccessSignature";
      if (previous_sas.size() >= 4 &&
          EqualsIgnoreCase(previous_sas.substr(previous_sas.size() - 4), "&amp")) {
        msg += " ('&amp;' in SharedAccessSignature is an XML escape: write '&')";
      }
      return Status::InvalidArgument(msg);
    }
    previous_sas = known->field == &Settings::shared_access_signature ? value : std::string_view();
    size_t slot = static_cast<size_t>(known - kKnownSettings);
    if (seen[slot]) return Status::InvalidArgument(std::string(known->name) + " is given twice");
    seen[slot] = true;
    if (known->name == "AccountEndpoint") {
      return Status::InvalidArgument(
          "AccountEndpoint is a Cosmos DB for NoSQL setting: for Cosmos DB for Table give "
          "TableEndpoint=https://ACCOUNT.table.cosmos.azure.com:443/ with AccountName and "
          "AccountKey");
    }
    if (known->field == nullptr) continue;
    if (value.empty()) return Status::InvalidArgument(std::string(known->name) + " is empty");
    settings.*(known->field) = value;
  }
  return settings;
}

// UseDevelopmentStorage=true[;DevelopmentStorageProxyUri=URL].
Result<Endpoint> DevelopmentStorage(const Settings& s) {
  if (!EqualsIgnoreCase(*s.use_development_storage, "true")) {
    return Status::InvalidArgument(
        "UseDevelopmentStorage must be true (for another store, give its settings instead)");
  }
  for (const KnownSetting& setting : kKnownSettings) {
    if (setting.field != nullptr && setting.field != &Settings::use_development_storage &&
        setting.field != &Settings::development_storage_proxy_uri && s.*setting.field) {
      return Status::InvalidArgument("UseDevelopmentStorage=true takes no " +
                                     std::string(setting.name) +
                                     ": the development account and its endpoint are fixed");
    }
  }
  Endpoint e;
  e.scheme = "http";
  e.host = std::string(kDevHost);
  e.port = kDevTablePort;
  e.base_path = "/" + std::string(kDevAccount);
  e.account = std::string(kDevAccount);
  e.key = Base64Decode(kDevKey).value();
  e.development_storage = true;
  if (s.development_storage_proxy_uri) {
    // As the Azure SDKs have it: the proxy's scheme and host replace http://127.0.0.1; the port
    // and the account's path stay the development storage's.
    std::string_view text = *s.development_storage_proxy_uri;
    PARTKV_ASSIGN_OR_RETURN(ParsedUrl proxy, ParseUrl(text, "DevelopmentStorageProxyUri"));
    auto fail = [&](std::string_view problem) {
      return Status::InvalidArgument("DevelopmentStorageProxyUri '" + Redact(text) + "' " +
                                     std::string(problem));
    };
    if (proxy.port_given) {
      return fail("has a port, which is not used: the development table endpoint is on port 10002");
    }
    if (!proxy.path.empty() || proxy.has_query) return fail("has a path or a query");
    e.scheme = proxy.scheme;
    e.host = proxy.host;
  }
  return e;
}

Result<Endpoint> ParseConnectionString(std::string_view text) {
  PARTKV_ASSIGN_OR_RETURN(Settings s, SplitSettings(text));
  if (s.use_development_storage) return DevelopmentStorage(s);
  if (s.development_storage_proxy_uri) {
    return Status::InvalidArgument("DevelopmentStorageProxyUri needs UseDevelopmentStorage=true");
  }
  if (s.table_secondary_endpoint && !s.table_endpoint) {
    return Status::InvalidArgument("TableSecondaryEndpoint is given without TableEndpoint");
  }

  std::string scheme = "https";
  if (s.default_endpoints_protocol) {
    if (EqualsIgnoreCase(*s.default_endpoints_protocol, "http")) {
      scheme = "http";
    } else if (!EqualsIgnoreCase(*s.default_endpoints_protocol, "https")) {
      return Status::InvalidArgument("DefaultEndpointsProtocol must be http or https");
    }
  }
  if (s.account_name && !IsAccountName(*s.account_name)) {
    return Status::InvalidArgument(
        "AccountName is not an account name: 1 to 63 letters, digits and '-'");
  }

  // The credential.
  if (s.account_key && s.shared_access_signature) {
    return Status::InvalidArgument("both AccountKey and SharedAccessSignature are given");
  }
  std::string key, sas;
  if (s.account_key) {
    if (!s.account_name) {
      return Status::InvalidArgument(
          "AccountKey is given without AccountName, which Shared Key signs with");
    }
    Result<std::string> decoded = Base64Decode(*s.account_key);
    if (!decoded.ok()) {
      // Base64Decode's message names an offset and a reason, never a character.
      Status bad = decoded.status();
      std::string_view why = bad.message();
      constexpr std::string_view kPrefix = "invalid base64: ";
      if (why.substr(0, kPrefix.size()) == kPrefix) why.remove_prefix(kPrefix.size());
      return Status::InvalidArgument("AccountKey is not base64 (" + std::string(why) + ")");
    }
    key = std::move(decoded).value();
  } else if (s.shared_access_signature) {
    std::string_view value = *s.shared_access_signature;
    if (value.front() == '?') value.remove_prefix(1);
    PARTKV_RETURN_IF_ERROR(CheckSas(value, "SharedAccessSignature"));
    sas = std::string(value);
  } else {
    return Status::InvalidArgument(
        "no credential: give AccountName and AccountKey, or SharedAccessSignature");
  }

  // The endpoint: TableEndpoint as given, else computed from the account and EndpointSuffix.
  Endpoint e;
  if (s.table_endpoint) {
    std::string_view text = *s.table_endpoint;
    PARTKV_ASSIGN_OR_RETURN(ParsedUrl url, ParseUrl(text, "TableEndpoint"));
    if (url.has_query) {
      return Status::InvalidArgument("TableEndpoint '" + Redact(text) +
                                     "' has a query: give the SAS as SharedAccessSignature");
    }
    PARTKV_ASSIGN_OR_RETURN(e, EndpointOfUrl(url, text, "TableEndpoint", s.account_name));
  } else {
    if (!s.account_name) {
      return Status::InvalidArgument(
          "no AccountName for an endpoint computed from EndpointSuffix (or give TableEndpoint)");
    }
    std::string_view suffix = s.endpoint_suffix.value_or(kDefaultEndpointSuffix);
    // Labels of letters, digits and '-', then an optional port ("localhost:10002").
    size_t colon = suffix.find(':');
    std::string_view labels = suffix.substr(0, colon);
    bool valid = !labels.empty() && labels.front() != '.' && labels.back() != '.' &&
                 labels.find("..") == std::string_view::npos;
    for (char c : labels) valid = valid && (IsAlnum(c) || c == '-' || c == '.');
    if (colon != std::string_view::npos) {
      std::string_view port = suffix.substr(colon + 1);
      valid = valid && !port.empty();
      for (char c : port) valid = valid && c >= '0' && c <= '9';
    }
    if (!valid) {
      return Status::InvalidArgument(
          "EndpointSuffix is not a host name suffix (such as core.windows.net)");
    }
    std::string text =
        scheme + "://" + std::string(*s.account_name) + ".table." + std::string(suffix);
    PARTKV_ASSIGN_OR_RETURN(ParsedUrl url,
                            ParseUrl(text, "the endpoint computed from EndpointSuffix"));
    PARTKV_ASSIGN_OR_RETURN(
        e, EndpointOfUrl(url, text, "the endpoint computed from EndpointSuffix", s.account_name));
  }
  e.key = std::move(key);
  e.sas = std::move(sas);
  return e;
}

// An endpoint URL whose query is the SAS.
Result<Endpoint> ParseSasUrl(std::string_view text) {
  constexpr std::string_view kWhat = "the URL";
  PARTKV_ASSIGN_OR_RETURN(ParsedUrl url, ParseUrl(text, kWhat));
  if (!url.has_query || url.query.empty()) {
    return Status::InvalidArgument(
        "no credential: the URL '" + Redact(text) +
        "' has no SAS query (?sv=...&sig=...); give a SAS URL, or a connection string with "
        "AccountName and AccountKey");
  }
  PARTKV_RETURN_IF_ERROR(CheckSas(url.query, "the URL's query"));
  PARTKV_ASSIGN_OR_RETURN(Endpoint e, EndpointOfUrl(url, text, kWhat, std::nullopt));
  e.sas = std::move(url.query);
  return e;
}

}  // namespace

std::string Endpoint::Url() const {
  std::string url = scheme + "://" + host;
  if (port != (scheme == "https" ? 443 : 80)) {
    url.push_back(':');
    url += std::to_string(port);
  }
  return url + base_path;
}

bool IsRemoteLocation(std::string_view location) {
  location = port::TrimAsciiWhitespace(location);
  if (IsUrl(location)) return true;
  for (std::string_view segment : Segments(location)) {
    size_t eq = segment.find('=');
    if (eq != std::string_view::npos &&
        FindSetting(port::TrimAsciiWhitespace(segment.substr(0, eq))) != nullptr) {
      return true;
    }
  }
  return false;
}

Result<Endpoint> ParseLocation(std::string_view location) {
  location = port::TrimAsciiWhitespace(location);
  if (location.empty()) return Status::InvalidArgument("the location is empty");
  if (IsUrl(location)) return ParseSasUrl(location);
  if (IsRemoteLocation(location)) return ParseConnectionString(location);
  // Not shown: it may hold a secret under a misspelt name.
  return Status::InvalidArgument(
      "the location is neither an http or https URL nor a connection string (Setting=value;...)");
}

std::string Redact(std::string_view location) {
  std::string out;
  for (std::string_view segment : Segments(location)) {
    size_t eq = segment.find('=');
    std::string_view name = port::TrimAsciiWhitespace(segment.substr(0, eq));
    if (eq != std::string_view::npos &&
        (EqualsIgnoreCase(name, "AccountKey") || EqualsIgnoreCase(name, "SharedAccessSignature"))) {
      out.append(segment.substr(0, eq + 1));
      if (!port::TrimAsciiWhitespace(segment.substr(eq + 1)).empty()) out.append(kRedacted);
    } else {
      out.append(RedactUrlSecrets(segment));
    }
    out.push_back(';');
  }
  out.pop_back();  // the ';' after the last segment
  return out;
}

}  // namespace partkv::remote
