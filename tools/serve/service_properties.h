// The Table service's properties (Get/Set Table Service Properties, docs/serve.md "Service
// properties"): Storage Analytics logging, hour and minute metrics, and CORS rules, as Azure's
// StorageServiceProperties XML document.
//
// Set Table Service Properties sends the elements it changes: a root element left out keeps its
// setting, and one given must hold every child element Azure requires. ApplyServicePropertiesXml
// validates such a body as Azure does and merges it into the current properties;
// ServicePropertiesXml writes the properties as Get Table Service Properties returns them, in
// Azure's element order. partkv keeps that canonical document in the store (Store::
// SetServiceProperties), so a Get returns it as it is, and ParseServiceProperties reads it back
// into the same properties for the next Set to merge into. The settings are kept and returned;
// partkv neither logs nor meters, and does not answer CORS preflight requests from them.
//
// Pure functions and plain values; thread-safe.

#ifndef PARTKV_TOOLS_SERVE_SERVICE_PROPERTIES_H_
#define PARTKV_TOOLS_SERVE_SERVICE_PROPERTIES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "partkv/result.h"
#include "partkv/status.h"

namespace partkv::serve {

struct RetentionPolicy {
  bool enabled = false;
  int days = 0;  // 1..365 when enabled; 0 otherwise
};

struct LoggingProperties {
  std::string version = "1.0";
  bool read = false, write = false, del = false;
  RetentionPolicy retention;
};

struct MetricsProperties {
  std::string version = "1.0";
  bool enabled = false;
  bool include_apis = false;  // meaningful (and written) only when enabled
  RetentionPolicy retention;
};

// One CORS rule; the lists are comma-separated as in the document.
struct CorsRule {
  std::string allowed_origins, allowed_methods, allowed_headers, exposed_headers;
  int64_t max_age_seconds = 0;
};

// The properties of an account that never set them are the defaults: logging, metrics and
// CORS all off, as Azure returns them for an account with Storage Analytics disabled.
struct ServiceProperties {
  LoggingProperties logging;
  MetricsProperties hour_metrics, minute_metrics;
  std::vector<CorsRule> cors;
};

// Azure's limits on the document.
inline constexpr size_t kMaxCorsRules = 5;
inline constexpr int kMaxRetentionDays = 365;

// Merges the Set Table Service Properties body `xml` into *properties. On an error *properties
// is unchanged and the Status is InvalidArgument naming the element and what is wrong (Azure
// answers every such error 400 InvalidXmlDocument): XML that is not well-formed, a root other
// than StorageServiceProperties, a required element missing, a boolean other than true/false
// (or 1/0), a Version other than 1.0, retention Days outside 1..365, more than 5 CORS rules, a
// rule with no origin or method, a method outside DELETE GET HEAD MERGE POST OPTIONS PUT, more
// than 64 origins or 64 headers (plus 2 prefixed ones), an item over 256 characters, or a
// negative MaxAgeInSeconds. Unknown elements are ignored.
Status ApplyServicePropertiesXml(std::string_view xml, ServiceProperties* properties);

// The document Get Table Service Properties returns (with the byte order mark and declaration).
std::string ServicePropertiesXml(const ServiceProperties& properties);

// Reads a document ServicePropertiesXml wrote; "" is the defaults.
Result<ServiceProperties> ParseServiceProperties(std::string_view document);

}  // namespace partkv::serve

#endif  // PARTKV_TOOLS_SERVE_SERVICE_PROPERTIES_H_
