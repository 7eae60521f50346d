// XML bodies (xml.h), read with expat.

#include "tools/serve/xml.h"

#include <expat.h>

#include <limits>
#include <memory>
#include <string>

namespace partkv::serve {
namespace {

constexpr int kMaxDepth = 32;

// Builds the tree from expat's callbacks; the first problem stops the parser.
class TreeBuilder {
 public:
  explicit TreeBuilder(XML_Parser parser) : parser_(parser) {}

  static void OnStart(void* self, const XML_Char* name, const XML_Char**) {
    static_cast<TreeBuilder*>(self)->Start(name);
  }
  static void OnEnd(void* self, const XML_Char*) { static_cast<TreeBuilder*>(self)->End(); }
  static void OnText(void* self, const XML_Char* text, int length) {
    TreeBuilder* b = static_cast<TreeBuilder*>(self);
    if (!b->open_.empty()) b->open_.back()->text.append(text, static_cast<size_t>(length));
  }
  static void OnDoctype(void* self, const XML_Char*, const XML_Char*, const XML_Char*, int) {
    static_cast<TreeBuilder*>(self)->Fail("a DOCTYPE is not allowed");
  }

  XmlElement& root() { return root_; }
  const std::string& problem() const { return problem_; }

 private:
  void Start(const char* name) {
    if (open_.size() >= static_cast<size_t>(kMaxDepth)) {
      return Fail("elements are nested more than " + std::to_string(kMaxDepth) + " deep");
    }
    XmlElement* element;
    if (open_.empty()) {
      element = &root_;
    } else {
      open_.back()->children.emplace_back();
      element = &open_.back()->children.back();
    }
    element->name = name;
    open_.push_back(element);
  }
  void End() {
    if (!open_.empty()) open_.pop_back();
  }
  void Fail(std::string problem) {
    if (problem_.empty()) problem_ = std::move(problem);
    XML_StopParser(parser_, XML_FALSE);
  }

  XML_Parser parser_;
  XmlElement root_;
  // The open elements, innermost last. A child is added to its parent's vector only while the
  // parent is the innermost open element, so these pointers stay valid while they are here.
  std::vector<XmlElement*> open_;
  std::string problem_;
};

struct ParserDeleter {
  void operator()(XML_ParserStruct* p) const { XML_ParserFree(p); }
};

}  // namespace

const XmlElement* XmlElement::Child(std::string_view child) const {
  for (const XmlElement& c : children) {
    if (c.name == child) return &c;
  }
  return nullptr;
}

std::vector<const XmlElement*> XmlElement::Children(std::string_view child) const {
  std::vector<const XmlElement*> out;
  for (const XmlElement& c : children) {
    if (c.name == child) out.push_back(&c);
  }
  return out;
}

Result<XmlElement> ParseXml(std::string_view document) {
  std::unique_ptr<XML_ParserStruct, ParserDeleter> parser(XML_ParserCreate("UTF-8"));
  if (!parser) return Status::IOError("expat cannot create a parser");
  TreeBuilder builder(parser.get());
  XML_SetUserData(parser.get(), &builder);
  XML_SetElementHandler(parser.get(), &TreeBuilder::OnStart, &TreeBuilder::OnEnd);
  XML_SetCharacterDataHandler(parser.get(), &TreeBuilder::OnText);
  XML_SetStartDoctypeDeclHandler(parser.get(), &TreeBuilder::OnDoctype);
  if (document.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return Status::InvalidArgument("the XML document is too large");
  }
  if (XML_Parse(parser.get(), document.data(), static_cast<int>(document.size()), XML_TRUE) !=
      XML_STATUS_OK) {
    std::string where = "line " + std::to_string(XML_GetCurrentLineNumber(parser.get())) +
                        ", column " + std::to_string(XML_GetCurrentColumnNumber(parser.get()));
    if (!builder.problem().empty()) {
      return Status::InvalidArgument("XML at " + where + ": " + builder.problem());
    }
    return Status::InvalidArgument("XML is not well-formed at " + where + ": " +
                                   XML_ErrorString(XML_GetErrorCode(parser.get())));
  }
  return std::move(builder.root());
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

XmlWriter::XmlWriter() {
  out_ = kUtf8Bom;
  out_ += "<?xml version=\"1.0\" encoding=\"utf-8\"?>";
}

void XmlWriter::Open(std::string_view name) {
  out_ += '<';
  out_ += name;
  out_ += '>';
}

void XmlWriter::Close(std::string_view name) {
  out_ += "</";
  out_ += name;
  out_ += '>';
}

void XmlWriter::Element(std::string_view name, std::string_view text) {
  if (text.empty()) return Empty(name);
  Open(name);
  out_ += XmlEscape(text);
  Close(name);
}

void XmlWriter::Empty(std::string_view name) {
  out_ += '<';
  out_ += name;
  out_ += " />";
}

}  // namespace partkv::serve
