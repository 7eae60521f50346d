// The Table service's URIs (uri.h).

#include "tools/serve/uri.h"

namespace partkv::serve {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Reads an OData string literal starting at text[*at] == '\''; advances past it.
Result<std::string> ReadQuoted(std::string_view text, size_t* at) {
  if (*at >= text.size() || text[*at] != '\'') {
    return Status::InvalidArgument("expected a quoted key at position " + std::to_string(*at));
  }
  std::string out;
  size_t i = *at + 1;
  while (i < text.size()) {
    if (text[i] == '\'') {
      if (i + 1 < text.size() && text[i + 1] == '\'') {
        out.push_back('\'');
        i += 2;
        continue;
      }
      *at = i + 1;
      return out;
    }
    out.push_back(text[i++]);
  }
  return Status::InvalidArgument("unterminated quoted key in the URI");
}

bool IsTableName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Result<std::string> PercentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) {
        return Status::InvalidArgument("malformed percent escape in the URI");
      }
      int hi = HexValue(text[i + 1]), lo = HexValue(text[i + 2]);
      if (hi < 0 || lo < 0) return Status::InvalidArgument("malformed percent escape in the URI");
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string PercentEncode(std::string_view text, std::string_view keep) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved || keep.find(c) != std::string_view::npos) {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 15]);
    }
  }
  return out;
}

Result<std::vector<std::pair<std::string, std::string>>> ParseQuery(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (part.empty()) continue;
    size_t eq = part.find('=');
    PARTKV_ASSIGN_OR_RETURN(std::string key, PercentDecode(part.substr(0, eq), true));
    std::string value;
    if (eq != std::string_view::npos) {
      PARTKV_ASSIGN_OR_RETURN(value, PercentDecode(part.substr(eq + 1), true));
    }
    out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

Result<Resource> ParseResource(std::string_view path) {
  Resource r;
  if (!path.starts_with("/")) return Status::InvalidArgument("the URI path must start with '/'");
  path.remove_prefix(1);
  size_t slash = path.find('/');
  r.account = std::string(path.substr(0, slash));
  if (r.account.empty()) return Status::InvalidArgument("the URI names no storage account");
  constexpr std::string_view kSecondary = "-secondary";
  if (r.account.size() > kSecondary.size() && r.account.ends_with(kSecondary)) {
    r.account.resize(r.account.size() - kSecondary.size());
    r.secondary = true;
  }
  if (slash == std::string_view::npos) return r;
  std::string_view rest = path.substr(slash + 1);
  if (rest.empty()) return r;
  if (rest == "$batch") {
    r.kind = Resource::Kind::kBatch;
    return r;
  }
  size_t paren = rest.find('(');
  std::string_view name = rest.substr(0, paren);
  if (!IsTableName(name)) {
    return Status::InvalidArgument("the URI path '" + std::string(rest) +
                                   "' names no table or resource");
  }
  if (paren == std::string_view::npos) {
    r.kind = name == "Tables" ? Resource::Kind::kTables : Resource::Kind::kEntities;
    r.table = std::string(name);
    return r;
  }
  if (!rest.ends_with(")")) return Status::InvalidArgument("the URI path is missing ')'");
  std::string_view args = rest.substr(paren + 1, rest.size() - paren - 2);
  if (name == "Tables") {
    if (args.empty()) {
      r.kind = Resource::Kind::kTables;
      return r;
    }
    size_t at = 0;
    PARTKV_ASSIGN_OR_RETURN(r.table, ReadQuoted(args, &at));
    if (at != args.size()) return Status::InvalidArgument("unexpected text after the table name");
    r.kind = Resource::Kind::kTable;
    return r;
  }
  r.table = std::string(name);
  if (args.empty()) {
    r.kind = Resource::Kind::kEntities;
    return r;
  }
  // PartitionKey='p',RowKey='r' in either order.
  bool have_pk = false, have_rk = false;
  size_t at = 0;
  while (at < args.size()) {
    size_t eq = args.find('=', at);
    if (eq == std::string_view::npos)
      return Status::InvalidArgument("malformed entity key in the URI");
    std::string_view key_name = args.substr(at, eq - at);
    at = eq + 1;
    PARTKV_ASSIGN_OR_RETURN(std::string value, ReadQuoted(args, &at));
    if (key_name == "PartitionKey" && !have_pk) {
      r.partition_key = std::move(value);
      have_pk = true;
    } else if (key_name == "RowKey" && !have_rk) {
      r.row_key = std::move(value);
      have_rk = true;
    } else {
      return Status::InvalidArgument("malformed entity key in the URI: unexpected '" +
                                     std::string(key_name) + "'");
    }
    if (at < args.size()) {
      if (args[at] != ',') return Status::InvalidArgument("malformed entity key in the URI");
      ++at;
    }
  }
  if (!have_pk || !have_rk) {
    return Status::InvalidArgument("the entity URI needs both PartitionKey and RowKey");
  }
  r.kind = Resource::Kind::kEntity;
  return r;
}

std::string EntityPath(std::string_view table, std::string_view pk, std::string_view rk) {
  auto quote = [](std::string_view key) {
    std::string doubled;
    for (char c : key) {
      doubled.push_back(c);
      if (c == '\'') doubled.push_back('\'');
    }
    return PercentEncode(doubled, "'!$&*+,;=:@");
  };
  return std::string(table) + "(PartitionKey='" + quote(pk) + "',RowKey='" + quote(rk) + "')";
}

}  // namespace partkv::serve
