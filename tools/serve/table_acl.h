// A table's stored access policies as Get/Set Table ACL carry them (docs/serve.md "Table access
// policies"): Azure's SignedIdentifiers XML document.
//
//   <SignedIdentifiers>
//     <SignedIdentifier><Id>id</Id>
//       <AccessPolicy><Start>…</Start><Expiry>…</Expiry><Permission>raud</Permission></AccessPolicy>
//     </SignedIdentifier>
//   </SignedIdentifiers>
//
// Every part of an AccessPolicy is optional, and so is the AccessPolicy itself. Azure returns the
// times with 7 fractional digits and leaves out an AccessPolicy that says nothing (recorded
// responses of the live service).
//
// Pure functions; thread-safe.

#ifndef PARTKV_TOOLS_SERVE_TABLE_ACL_H_
#define PARTKV_TOOLS_SERVE_TABLE_ACL_H_

#include <string>
#include <string_view>
#include <vector>

#include "partkv/result.h"
#include "partkv/table.h"

namespace partkv::serve {

// The Set Table ACL body as policies; an empty body (or one with only whitespace) is none, which
// removes every policy. InvalidArgument (Azure: 400 InvalidXmlDocument) naming what is wrong:
// XML that is not well-formed, a root other than SignedIdentifiers, more than 5 identifiers, an
// Id missing, empty, over 64 characters or given twice, a Start or Expiry that is not an ISO
// 8601 UTC time, a permission other than the letters r, a, u, d (each at most once), or a Start
// after the Expiry.
Result<std::vector<AccessPolicy>> ParseSignedIdentifiers(std::string_view xml);

// The document Get Table ACL returns (with the byte order mark and declaration).
std::string SignedIdentifiersXml(const std::vector<AccessPolicy>& policies);

}  // namespace partkv::serve

#endif  // PARTKV_TOOLS_SERVE_TABLE_ACL_H_
