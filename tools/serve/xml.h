// The XML bodies of the Table service's non-OData operations (Get/Set Table Service Properties,
// Get/Set Table ACL): a small element tree read with expat, and a writer of Azure's compact form.
//
// Azure answers these operations in XML, compact (no whitespace between elements), an empty
// element written "<Name />", after a UTF-8 byte order mark and the declaration
// <?xml version="1.0" encoding="utf-8"?> (recorded responses of the live service). Their errors
// are XML too (XmlErrorReply, errors.h).
//
// Pure functions and plain values; thread-safe.

#ifndef PARTKV_TOOLS_SERVE_XML_H_
#define PARTKV_TOOLS_SERVE_XML_H_

#include <string>
#include <string_view>
#include <vector>

#include "partkv/result.h"

namespace partkv::serve {

// One element: its name, the character data directly inside it (concatenated, untrimmed) and
// its child elements in document order. Attributes, comments and processing instructions are
// dropped: none of these documents has a meaning for them.
struct XmlElement {
  std::string name;
  std::string text;
  std::vector<XmlElement> children;

  // The first child named `name`, or nullptr.
  const XmlElement* Child(std::string_view name) const;
  // Every child named `name`, in document order.
  std::vector<const XmlElement*> Children(std::string_view name) const;
};

// Parses a document (UTF-8; a byte order mark and a declaration are allowed). InvalidArgument,
// naming the line and column, for XML that is not well-formed, and for a DOCTYPE (which these
// documents never need and which is how entity-expansion attacks begin) or nesting deeper than
// 32 elements.
Result<XmlElement> ParseXml(std::string_view document);

// `text` with &, < and > escaped, for element content (quotes need no escape there; .NET's
// writer, Azure's, leaves them as they are).
std::string XmlEscape(std::string_view text);

// Builds a document in Azure's compact form.
class XmlWriter {
 public:
  // Starts with the UTF-8 byte order mark and the declaration.
  XmlWriter();
  void Open(std::string_view name);
  void Close(std::string_view name);
  // <name>text</name>, or <name /> when `text` is empty.
  void Element(std::string_view name, std::string_view text);
  void Empty(std::string_view name);
  const std::string& document() const { return out_; }
  std::string Take() && { return std::move(out_); }

 private:
  std::string out_;
};

// The byte order mark Azure puts before its XML bodies.
inline constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

}  // namespace partkv::serve

#endif  // PARTKV_TOOLS_SERVE_XML_H_
