// Table service properties (service_properties.h). The rules are those of "Set Table Service
// Properties" (learn.microsoft.com/rest/api/storageservices/set-table-service-properties); the
// output form and the error code follow recorded responses of the live service.

#include "tools/serve/service_properties.h"

#include <algorithm>
#include <charconv>

#include "engine/port/strings.h"
#include "tools/serve/xml.h"

namespace partkv::serve {
namespace {

constexpr size_t kMaxCorsListItems = 64;   // origins; defined headers
constexpr size_t kMaxPrefixedHeaders = 2;  // headers ending in '*'
constexpr size_t kMaxCorsItemChars = 256;

Status Invalid(std::string_view what) { return Status::InvalidArgument(std::string(what)); }

// The child `name` of `parent`, which must be there.
Result<const XmlElement*> Required(const XmlElement& parent, std::string_view name) {
  const XmlElement* child = parent.Child(name);
  if (child == nullptr) {
    return Status::InvalidArgument(parent.name + " lacks its " + std::string(name) + " element");
  }
  return child;
}

// xs:boolean, as .NET reads it: true, false, 1 or 0.
Result<bool> Boolean(const XmlElement& e) {
  std::string_view v = port::TrimAsciiWhitespace(e.text);
  if (v == "true" || v == "1") return true;
  if (v == "false" || v == "0") return false;
  return Status::InvalidArgument(e.name + " must be true or false, not '" + std::string(v) + "'");
}

Result<int64_t> Integer(const XmlElement& e) {
  std::string_view v = port::TrimAsciiWhitespace(e.text);
  int64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size()) {
    return Status::InvalidArgument(e.name + " must be an integer, not '" + std::string(v) + "'");
  }
  return n;
}

Status ReadVersion(const XmlElement& parent, std::string* version) {
  PARTKV_ASSIGN_OR_RETURN(const XmlElement* e, Required(parent, "Version"));
  std::string_view v = port::TrimAsciiWhitespace(e->text);
  if (v != "1.0") {
    return Invalid(parent.name + " Version must be 1.0, not '" + std::string(v) + "'");
  }
  *version = std::string(v);
  return Status::OK();
}

Status ReadBool(const XmlElement& parent, std::string_view name, bool* out) {
  PARTKV_ASSIGN_OR_RETURN(const XmlElement* e, Required(parent, name));
  PARTKV_ASSIGN_OR_RETURN(*out, Boolean(*e));
  return Status::OK();
}

Status ReadRetention(const XmlElement& parent, RetentionPolicy* out) {
  PARTKV_ASSIGN_OR_RETURN(const XmlElement* policy, Required(parent, "RetentionPolicy"));
  RetentionPolicy r;
  PARTKV_RETURN_IF_ERROR(ReadBool(*policy, "Enabled", &r.enabled));
  if (r.enabled) {  // Days is required only then, and ignored otherwise
    PARTKV_ASSIGN_OR_RETURN(const XmlElement* days, Required(*policy, "Days"));
    PARTKV_ASSIGN_OR_RETURN(int64_t n, Integer(*days));
    if (n < 1 || n > kMaxRetentionDays) {
      return Invalid(parent.name + " RetentionPolicy Days must be 1 to 365, not " +
                     std::to_string(n));
    }
    r.days = static_cast<int>(n);
  }
  *out = r;
  return Status::OK();
}

Status ReadLogging(const XmlElement& e, LoggingProperties* out) {
  LoggingProperties l;
  PARTKV_RETURN_IF_ERROR(ReadVersion(e, &l.version));
  PARTKV_RETURN_IF_ERROR(ReadBool(e, "Delete", &l.del));
  PARTKV_RETURN_IF_ERROR(ReadBool(e, "Read", &l.read));
  PARTKV_RETURN_IF_ERROR(ReadBool(e, "Write", &l.write));
  PARTKV_RETURN_IF_ERROR(ReadRetention(e, &l.retention));
  *out = l;
  return Status::OK();
}

Status ReadMetrics(const XmlElement& e, MetricsProperties* out) {
  MetricsProperties m;
  PARTKV_RETURN_IF_ERROR(ReadVersion(e, &m.version));
  PARTKV_RETURN_IF_ERROR(ReadBool(e, "Enabled", &m.enabled));
  if (m.enabled) {  // required only when the metrics are on
    PARTKV_RETURN_IF_ERROR(ReadBool(e, "IncludeAPIs", &m.include_apis));
  }
  PARTKV_RETURN_IF_ERROR(ReadRetention(e, &m.retention));
  *out = m;
  return Status::OK();
}

// The items of a comma-separated list, trimmed; empty items dropped.
std::vector<std::string> Items(std::string_view list) {
  std::vector<std::string> items;
  while (true) {
    size_t comma = list.find(',');
    std::string_view item = port::TrimAsciiWhitespace(list.substr(0, comma));
    if (!item.empty()) items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return items;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += ',';
    out += item;
  }
  return out;
}

Status CheckItemLength(std::string_view element, const std::string& item) {
  if (item.size() > kMaxCorsItemChars) {
    return Invalid("CorsRule " + std::string(element) + " has an item of " +
                   std::to_string(item.size()) + " characters; the limit is 256");
  }
  return Status::OK();
}

// A header list: at most 64 defined headers and 2 prefixed ones ("x-ms-meta-*"). Azure returns
// the defined headers first, then the prefixed ones, each in the order given.
Result<std::string> HeaderList(const XmlElement& e) {
  std::vector<std::string> defined, prefixed;
  for (std::string& item : Items(e.text)) {
    PARTKV_RETURN_IF_ERROR(CheckItemLength(e.name, item));
    (item.back() == '*' ? prefixed : defined).push_back(std::move(item));
  }
  if (defined.size() > kMaxCorsListItems || prefixed.size() > kMaxPrefixedHeaders) {
    return Status::InvalidArgument(
        "CorsRule " + e.name + " lists " + std::to_string(defined.size()) + " headers and " +
        std::to_string(prefixed.size()) + " prefixed headers; the limits are 64 and 2");
  }
  defined.insert(defined.end(), prefixed.begin(), prefixed.end());
  return Join(defined);
}

Result<CorsRule> ReadCorsRule(const XmlElement& e) {
  CorsRule rule;
  PARTKV_ASSIGN_OR_RETURN(const XmlElement* origins, Required(e, "AllowedOrigins"));
  std::vector<std::string> origin_items = Items(origins->text);
  if (origin_items.empty()) return Status::InvalidArgument("CorsRule AllowedOrigins is empty");
  if (origin_items.size() > kMaxCorsListItems) {
    return Status::InvalidArgument("CorsRule AllowedOrigins lists " +
                                   std::to_string(origin_items.size()) +
                                   " origins; the limit is 64");
  }
  for (const std::string& o : origin_items) {
    PARTKV_RETURN_IF_ERROR(CheckItemLength("AllowedOrigins", o));
  }
  rule.allowed_origins = Join(origin_items);

  PARTKV_ASSIGN_OR_RETURN(const XmlElement* methods, Required(e, "AllowedMethods"));
  std::vector<std::string> method_items = Items(methods->text);
  if (method_items.empty()) return Status::InvalidArgument("CorsRule AllowedMethods is empty");
  static constexpr std::string_view kMethods[] = {"DELETE", "GET",     "HEAD", "MERGE",
                                                  "POST",   "OPTIONS", "PUT"};
  for (const std::string& m : method_items) {
    if (std::find(std::begin(kMethods), std::end(kMethods), m) == std::end(kMethods)) {
      return Status::InvalidArgument("CorsRule AllowedMethods has '" + m +
                                     "'; the methods are DELETE, GET, HEAD, MERGE, POST, "
                                     "OPTIONS and PUT");
    }
  }
  rule.allowed_methods = Join(method_items);

  PARTKV_ASSIGN_OR_RETURN(const XmlElement* allowed, Required(e, "AllowedHeaders"));
  PARTKV_ASSIGN_OR_RETURN(rule.allowed_headers, HeaderList(*allowed));
  PARTKV_ASSIGN_OR_RETURN(const XmlElement* exposed, Required(e, "ExposedHeaders"));
  PARTKV_ASSIGN_OR_RETURN(rule.exposed_headers, HeaderList(*exposed));

  PARTKV_ASSIGN_OR_RETURN(const XmlElement* age, Required(e, "MaxAgeInSeconds"));
  PARTKV_ASSIGN_OR_RETURN(rule.max_age_seconds, Integer(*age));
  if (rule.max_age_seconds < 0 || rule.max_age_seconds > INT32_MAX) {
    return Status::InvalidArgument("CorsRule MaxAgeInSeconds must be 0 to 2147483647, not " +
                                   std::to_string(rule.max_age_seconds));
  }
  return rule;
}

void WriteRetention(XmlWriter& w, const RetentionPolicy& r) {
  w.Open("RetentionPolicy");
  w.Element("Enabled", r.enabled ? "true" : "false");
  if (r.enabled) w.Element("Days", std::to_string(r.days));
  w.Close("RetentionPolicy");
}

void WriteMetrics(XmlWriter& w, std::string_view name, const MetricsProperties& m) {
  w.Open(name);
  w.Element("Version", m.version);
  w.Element("Enabled", m.enabled ? "true" : "false");
  if (m.enabled) w.Element("IncludeAPIs", m.include_apis ? "true" : "false");
  WriteRetention(w, m.retention);
  w.Close(name);
}

}  // namespace

Status ApplyServicePropertiesXml(std::string_view xml, ServiceProperties* properties) {
  PARTKV_ASSIGN_OR_RETURN(XmlElement root, ParseXml(xml));
  if (root.name != "StorageServiceProperties") {
    return Invalid("the root element is " + root.name + ", not StorageServiceProperties");
  }
  ServiceProperties next = *properties;  // root elements left out keep their settings
  if (const XmlElement* e = root.Child("Logging")) {
    PARTKV_RETURN_IF_ERROR(ReadLogging(*e, &next.logging));
  }
  if (const XmlElement* e = root.Child("HourMetrics")) {
    PARTKV_RETURN_IF_ERROR(ReadMetrics(*e, &next.hour_metrics));
  }
  if (const XmlElement* e = root.Child("MinuteMetrics")) {
    PARTKV_RETURN_IF_ERROR(ReadMetrics(*e, &next.minute_metrics));
  }
  if (const XmlElement* e = root.Child("Cors")) {
    // A Cors element replaces every rule; an empty one removes them all.
    std::vector<const XmlElement*> rules = e->Children("CorsRule");
    if (rules.size() > kMaxCorsRules) {
      return Invalid("Cors holds " + std::to_string(rules.size()) +
                     " CorsRule elements; the "
                     "limit is 5");
    }
    next.cors.clear();
    for (const XmlElement* r : rules) {
      PARTKV_ASSIGN_OR_RETURN(CorsRule rule, ReadCorsRule(*r));
      next.cors.push_back(std::move(rule));
    }
  }
  *properties = std::move(next);
  return Status::OK();
}

std::string ServicePropertiesXml(const ServiceProperties& p) {
  XmlWriter w;
  w.Open("StorageServiceProperties");
  w.Open("Logging");
  w.Element("Version", p.logging.version);
  w.Element("Read", p.logging.read ? "true" : "false");
  w.Element("Write", p.logging.write ? "true" : "false");
  w.Element("Delete", p.logging.del ? "true" : "false");
  WriteRetention(w, p.logging.retention);
  w.Close("Logging");
  WriteMetrics(w, "HourMetrics", p.hour_metrics);
  WriteMetrics(w, "MinuteMetrics", p.minute_metrics);
  if (p.cors.empty()) {
    w.Empty("Cors");
  } else {
    w.Open("Cors");
    for (const CorsRule& r : p.cors) {
      w.Open("CorsRule");
      w.Element("AllowedMethods", r.allowed_methods);
      w.Element("AllowedOrigins", r.allowed_origins);
      w.Element("AllowedHeaders", r.allowed_headers);
      w.Element("ExposedHeaders", r.exposed_headers);
      w.Element("MaxAgeInSeconds", std::to_string(r.max_age_seconds));
      w.Close("CorsRule");
    }
    w.Close("Cors");
  }
  w.Close("StorageServiceProperties");
  return std::move(w).Take();
}

Result<ServiceProperties> ParseServiceProperties(std::string_view document) {
  ServiceProperties p;
  if (document.empty()) return p;
  // The stored document is complete, so merging it into the defaults reads every setting.
  PARTKV_RETURN_IF_ERROR(ApplyServicePropertiesXml(document, &p));
  return p;
}

}  // namespace partkv::serve
