// Endpoint URLs, SAS checks and the redaction of a URL's secrets (endpoint_url.h).

#include "engine/remote/endpoint_url.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <optional>
#include <string>
#include <string_view>

namespace partkv::remote {
namespace {

// Whitespace, control characters and DEL: never part of a URL or a SAS.
bool IsSpaceOrControl(char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; }

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// An IPv4 address, or an IPv6 one in brackets.
bool IsIpAddress(const std::string& host) {
  unsigned char buf[16];
  if (!host.empty() && host.front() == '[') return true;  // ParseUrl checked it is IPv6
  return inet_pton(AF_INET, host.c_str(), buf) == 1;
}

// The account named by a host of Azure's form ACCOUNT.table.SUFFIX (Azure Storage,
// Cosmos DB for Table, and the endpoint computed from EndpointSuffix); empty for other hosts.
std::string_view HostStyleAccount(std::string_view host) {
  size_t dot = host.find('.');
  if (dot == std::string_view::npos || dot == 0) return {};
  std::string_view rest = host.substr(dot + 1);
  if (!StartsWithIgnoreCase(rest, "table.") || rest.size() == 6) return {};
  return host.substr(0, dot);
}

}  // namespace

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && EqualsIgnoreCase(s.substr(0, prefix.size()), prefix);
}

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool IsAccountName(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-') return false;
  }
  return true;
}

// --- Redaction ----------------------------------------------------------------------------------

std::string RedactUrlSecrets(std::string_view text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 3, "://") == 0) {
      out.append("://");
      i += 3;
      size_t end = text.find_first_of("/?#;", i);
      if (end == std::string_view::npos) end = text.size();
      size_t at = text.substr(i, end - i).rfind('@');
      if (at != std::string_view::npos) {
        out.append(kRedacted);
        i += at;  // the '@' is copied below
      }
      continue;
    }
    bool starts_parameter = i == 0 || text[i - 1] == '?' || text[i - 1] == '&';
    if (starts_parameter && StartsWithIgnoreCase(text.substr(i), "sig=")) {
      out.append(text.substr(i, 4));
      i += 4;
      size_t end = text.find_first_of("&#;", i);
      if (end == std::string_view::npos) end = text.size();
      if (end > i) out.append(kRedacted);
      i = end;
      continue;
    }
    out.push_back(text[i++]);
  }
  return out;
}

namespace {

// A character that ends a secret's value in free text: what no base64 signature, key or SAS
// value holds unencoded.
bool EndsSecret(char c) {
  return IsSpaceOrControl(c) || c == '&' || c == '"' || c == '\'' || c == '<' || c == '>' ||
         c == ';' || c == ',' || c == '#' || c == ')' || c == ']' || c == '}';
}

// The position after the value that starts at `i`.
size_t SecretEnd(std::string_view text, size_t i) {
  while (i < text.size() && !EndsSecret(text[i])) ++i;
  return i;
}

}  // namespace

std::string RedactServiceText(std::string_view text, const std::vector<std::string>& secrets,
                              size_t max_bytes) {
  // First the caller's own secrets, by value, wherever they are.
  std::string known(text);
  for (const std::string& secret : secrets) {
    if (secret.size() < 8) continue;  // too short to be a secret of ours; would blank words
    for (size_t at = known.find(secret); at != std::string::npos;
         at = known.find(secret, at + kRedacted.size())) {
      known.replace(at, secret.size(), kRedacted);
    }
  }
  // Then every secret by its form.
  static constexpr std::string_view kSettings[] = {"sig=", "accountkey=", "sharedaccesssignature="};
  std::string out;
  const std::string_view t = known;
  size_t i = 0;
  while (i < t.size()) {
    const bool word_start = i == 0 || !IsAlnum(t[i - 1]);
    bool done = false;
    for (std::string_view setting : kSettings) {
      if (word_start && StartsWithIgnoreCase(t.substr(i), setting)) {
        out.append(t.substr(i, setting.size()));
        i += setting.size();
        size_t end = SecretEnd(t, i);
        if (end > i) out.append(kRedacted);
        i = end;
        done = true;
        break;
      }
    }
    if (done) continue;
    for (std::string_view scheme :
         {std::string_view("SharedKeyLite "), std::string_view("SharedKey ")}) {
      if (word_start && StartsWithIgnoreCase(t.substr(i), scheme)) {
        size_t colon = t.find(':', i + scheme.size());
        size_t end = SecretEnd(t, i + scheme.size());
        if (colon != std::string_view::npos && colon < end) {
          out.append(t.substr(i, colon + 1 - i));
          out.append(kRedacted);
          i = SecretEnd(t, colon + 1);
          done = true;
        }
        break;
      }
    }
    if (done) continue;
    out.push_back(t[i++]);
  }
  // URLs' user information, and `sig` as a query parameter (done above too).
  out = RedactUrlSecrets(out);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  if (out.size() > max_bytes) {
    size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out.resize(cut);
    out += "\u2026";
  }
  return out;
}

// --- URLs ---------------------------------------------------------------------------------------

Result<ParsedUrl> ParseUrl(std::string_view text, std::string_view what) {
  auto fail = [&](std::string_view problem) {
    return Status::InvalidArgument(std::string(what) + " '" + Redact(text) + "' " +
                                   std::string(problem));
  };
  size_t sep = text.find("://");
  if (sep == std::string_view::npos) {
    // Not shown: a value without a scheme may be a key given under the wrong name.
    return Status::InvalidArgument(std::string(what) + " is not an http or https URL");
  }
  ParsedUrl url;
  for (char c : text.substr(0, sep)) url.scheme.push_back(Lower(c));
  if (url.scheme != "http" && url.scheme != "https") {
    return fail("is not an http or https URL");
  }
  std::string_view rest = text.substr(sep + 3);
  for (char c : rest) {
    if (IsSpaceOrControl(c)) return fail("holds whitespace or a control character");
  }
  if (rest.find('#') != std::string_view::npos) return fail("has a fragment ('#')");
  size_t authority_end = rest.find_first_of("/?");
  if (authority_end == std::string_view::npos) authority_end = rest.size();
  std::string_view authority = rest.substr(0, authority_end);
  std::string_view after = rest.substr(authority_end);
  if (authority.find('@') != std::string_view::npos) {
    return fail("has user information: the account is named by the host or the path");
  }

  std::string_view port_text;
  bool has_port = false;
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return fail("has an unterminated IPv6 address");
    std::string inner(authority.substr(1, close - 1));
    unsigned char buf[16];
    if (inet_pton(AF_INET6, inner.c_str(), buf) != 1) return fail("has an invalid IPv6 address");
    url.host = std::string(authority.substr(0, close + 1));
    std::string_view tail = authority.substr(close + 1);
    if (!tail.empty()) {
      if (tail.front() != ':') return fail("has text after its IPv6 address");
      has_port = true;
      port_text = tail.substr(1);
    }
  } else {
    size_t colon = authority.find(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      has_port = true;
      port_text = authority.substr(colon + 1);
    }
    for (char c : url.host) {
      if (!IsAlnum(c) && c != '-' && c != '.' && c != '_' && c != '~') {
        return fail("has an invalid host");
      }
    }
  }
  if (url.host.empty()) return fail("has no host");

  url.port = url.scheme == "https" ? 443 : 80;
  if (has_port && !port_text.empty()) {  // "host:" is the default port (RFC 3986 3.2.3)
    uint32_t port = 0;
    bool valid = port_text.size() <= 5;
    for (char c : port_text) {
      if (c < '0' || c > '9') valid = false;
      port = port * 10 + static_cast<uint32_t>(c - '0');
    }
    if (!valid || port == 0 || port > 65535) return fail("has a port that is not 1 to 65535");
    url.port = static_cast<uint16_t>(port);
    url.port_given = true;
  }

  size_t q = after.find('?');
  std::string_view path = after.substr(0, q);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  url.path = std::string(path);
  if (q != std::string_view::npos) {
    url.has_query = true;
    url.query = std::string(after.substr(q + 1));
  }
  return url;
}

Result<Endpoint> EndpointOfUrl(const ParsedUrl& url, std::string_view text, std::string_view what,
                               std::optional<std::string_view> account_name) {
  auto fail = [&](std::string_view problem) {
    return Status::InvalidArgument(std::string(what) + " '" + Redact(text) + "' " +
                                   std::string(problem));
  };
  Endpoint e;
  e.scheme = url.scheme;
  e.host = url.host;
  e.port = url.port;
  bool path_style_host = IsIpAddress(url.host) || EqualsIgnoreCase(url.host, "localhost");
  std::string_view host_account = path_style_host ? std::string_view() : HostStyleAccount(url.host);

  if (url.path.empty()) {
    if (path_style_host) {
      return fail(
          "names no account: an IP-address or localhost endpoint is path-style, the first "
          "segment of its path the account (as in http://127.0.0.1:10002/devstoreaccount1)");
    }
    if (account_name && !host_account.empty() && !EqualsIgnoreCase(*account_name, host_account)) {
      return Status::InvalidArgument("AccountName '" + std::string(*account_name) +
                                     "' does not match the account '" + std::string(host_account) +
                                     "' that " + std::string(what) + "'s host names");
    }
    e.account = std::string(account_name ? *account_name : host_account);
    return e;
  }

  std::string_view segment = std::string_view(url.path).substr(1);  // the path starts with '/'
  if (segment.find('/') != std::string_view::npos) {
    return fail("has more than one path segment: an endpoint's path names the account only");
  }
  if (!host_account.empty()) {
    return fail(
        "has a path, but its host names the account already: give the service endpoint, "
        "not a table's URL");
  }
  if (!IsAccountName(segment)) {
    return fail("has a path that is not an account name (letters, digits and '-')");
  }
  if (account_name && *account_name != segment) {
    return Status::InvalidArgument("AccountName '" + std::string(*account_name) +
                                   "' does not match the account '" + std::string(segment) +
                                   "' that " + std::string(what) + "'s path names");
  }
  e.base_path = url.path;
  e.account = std::string(segment);
  return e;
}

Status CheckSas(std::string_view sas, std::string_view what) {
  if (sas.empty()) return Status::InvalidArgument(std::string(what) + " is empty");
  for (size_t i = 0; i < sas.size(); ++i) {
    if (IsSpaceOrControl(sas[i]) || sas[i] == '#') {
      std::string where = " at offset " + std::to_string(i);
      return Status::InvalidArgument(std::string(what) +
                                     " holds whitespace, a control character or '#'" + where);
    }
  }
  bool has_sig = false;
  std::string_view rest = sas;
  while (!rest.empty() && !has_sig) {
    size_t amp = rest.find('&');
    std::string_view param = rest.substr(0, amp);
    has_sig = StartsWithIgnoreCase(param, "sig=") && param.size() > 4;
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
  }
  if (!has_sig) {
    return Status::InvalidArgument(std::string(what) + " is not a SAS: it has no sig (signature)");
  }
  return Status::OK();
}

}  // namespace partkv::remote
