// Table ACL documents (table_acl.h). The rules are those of "Set Table ACL" and "Define a stored
// access policy" (learn.microsoft.com/rest/api/storageservices); the output form follows recorded
// responses of the live service.

#include "tools/serve/table_acl.h"

#include <algorithm>

#include "engine/port/strings.h"
#include "tools/serve/xml.h"

namespace partkv::serve {
namespace {

constexpr size_t kMaxIdChars = 64;

bool OnlySpace(std::string_view s) { return port::TrimAsciiWhitespace(s).empty(); }

Result<std::optional<DateTime>> Time(const XmlElement* e, std::string_view id) {
  if (e == nullptr) return std::optional<DateTime>();
  std::string_view text = port::TrimAsciiWhitespace(e->text);
  if (text.empty()) return std::optional<DateTime>();
  auto t = DateTime::Parse(text);
  if (!t.ok()) {
    return Status::InvalidArgument("SignedIdentifier '" + std::string(id) + "': " + e->name + " '" +
                                   std::string(text) + "' is not an ISO 8601 UTC time");
  }
  return std::optional<DateTime>(*t);
}

}  // namespace

Result<std::vector<AccessPolicy>> ParseSignedIdentifiers(std::string_view xml) {
  std::vector<AccessPolicy> policies;
  if (OnlySpace(xml)) return policies;
  PARTKV_ASSIGN_OR_RETURN(XmlElement root, ParseXml(xml));
  if (root.name != "SignedIdentifiers") {
    return Status::InvalidArgument("the root element is " + root.name + ", not SignedIdentifiers");
  }
  std::vector<const XmlElement*> identifiers = root.Children("SignedIdentifier");
  if (identifiers.size() > kMaxAccessPolicies) {
    return Status::InvalidArgument("SignedIdentifiers holds " + std::to_string(identifiers.size()) +
                                   " SignedIdentifier elements; a table has at most 5");
  }
  for (const XmlElement* si : identifiers) {
    const XmlElement* id = si->Child("Id");
    if (id == nullptr || port::TrimAsciiWhitespace(id->text).empty()) {
      return Status::InvalidArgument("a SignedIdentifier has no Id");
    }
    AccessPolicy p;
    p.id = std::string(port::TrimAsciiWhitespace(id->text));
    if (p.id.size() > kMaxIdChars) {
      return Status::InvalidArgument("SignedIdentifier Id '" + p.id + "' has " +
                                     std::to_string(p.id.size()) + " characters; the limit is 64");
    }
    for (const AccessPolicy& earlier : policies) {
      if (earlier.id == p.id) {
        return Status::InvalidArgument("SignedIdentifier Id '" + p.id + "' is given twice");
      }
    }
    if (const XmlElement* policy = si->Child("AccessPolicy")) {
      PARTKV_ASSIGN_OR_RETURN(p.start, Time(policy->Child("Start"), p.id));
      PARTKV_ASSIGN_OR_RETURN(p.expiry, Time(policy->Child("Expiry"), p.id));
      if (const XmlElement* permission = policy->Child("Permission")) {
        p.permission = std::string(port::TrimAsciiWhitespace(permission->text));
      }
      for (size_t i = 0; i < p.permission.size(); ++i) {
        char c = p.permission[i];
        if (std::string_view("raud").find(c) == std::string_view::npos ||
            p.permission.find(c, i + 1) != std::string::npos) {
          return Status::InvalidArgument("SignedIdentifier '" + p.id + "': Permission '" +
                                         p.permission +
                                         "' is not made of the letters r, a, u, d, each once");
        }
      }
      if (p.start && p.expiry && *p.expiry < *p.start) {
        return Status::InvalidArgument("SignedIdentifier '" + p.id +
                                       "': the Start is after the Expiry");
      }
    }
    policies.push_back(std::move(p));
  }
  return policies;
}

std::string SignedIdentifiersXml(const std::vector<AccessPolicy>& policies) {
  XmlWriter w;
  if (policies.empty()) {
    w.Empty("SignedIdentifiers");
    return std::move(w).Take();
  }
  w.Open("SignedIdentifiers");
  for (const AccessPolicy& p : policies) {
    w.Open("SignedIdentifier");
    w.Element("Id", p.id);
    if (p.start || p.expiry || !p.permission.empty()) {
      w.Open("AccessPolicy");
      if (p.start) w.Element("Start", p.start->ToString());
      if (p.expiry) w.Element("Expiry", p.expiry->ToString());
      if (!p.permission.empty()) w.Element("Permission", p.permission);
      w.Close("AccessPolicy");
    }
    w.Close("SignedIdentifier");
  }
  w.Close("SignedIdentifiers");
  return std::move(w).Take();
}

}  // namespace partkv::serve
