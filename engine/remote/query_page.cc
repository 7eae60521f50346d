// A strict reader of query answers' outer shape (query_page.h): a recursive-descent scanner that
// checks JSON's grammar (RFC 8259) without building anything, bounded in depth.

#include "engine/remote/query_page.h"

#include <string>

namespace partkv::remote {
namespace {

class Scanner {
 public:
  Scanner(std::string_view text, std::string_view what) : text_(text), what_(what) {}

  Result<QueryPageBody> Page() {
    QueryPageBody page;
    bool has_value = false;
    SkipSpace();
    if (!Eat('{')) return Fail("the answer is not a JSON object");
    SkipSpace();
    if (!Eat('}')) {
      for (;;) {
        SkipSpace();
        std::string name;
        PARTKV_RETURN_IF_ERROR(String(&name));
        SkipSpace();
        if (!Eat(':')) return Fail("expected ':' after a member name");
        SkipSpace();
        if (name == "value") {
          if (has_value) return Fail("two \"value\" members");
          has_value = true;
          PARTKV_RETURN_IF_ERROR(ValueArray(&page.objects));
        } else if (name == "odata.metadata") {
          std::string metadata;
          PARTKV_RETURN_IF_ERROR(String(&metadata));
          page.metadata = std::move(metadata);
        } else {
          PARTKV_RETURN_IF_ERROR(Skip(1));
        }
        SkipSpace();
        if (Eat(',')) continue;
        if (Eat('}')) break;
        return Fail("expected ',' or '}' in the answer's object");
      }
    }
    SkipSpace();
    if (at_ != text_.size()) return Fail("more after the answer's object");
    if (!has_value) return Fail("the answer has no \"value\" array");
    return page;
  }

 private:
  Status Fail(std::string_view problem) const {
    return Status::Corruption(
        std::string(what_) + ": the service's answer is malformed: " + std::string(problem) +
        " (at byte " + std::to_string(at_) + " of " + std::to_string(text_.size()) + ")");
  }

  bool Eat(char c) {
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }

  void SkipSpace() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) {
      ++at_;
    }
  }

  // "value": [ {…}, {…} ]: objects only.
  Status ValueArray(std::vector<std::string_view>* objects) {
    if (!Eat('[')) return Fail("\"value\" is not an array");
    SkipSpace();
    if (Eat(']')) return Status::OK();
    for (;;) {
      SkipSpace();
      if (at_ >= text_.size() || text_[at_] != '{') {
        return Fail("an element of \"value\" is not an object");
      }
      const size_t start = at_;
      PARTKV_RETURN_IF_ERROR(Skip(2));
      objects->push_back(text_.substr(start, at_ - start));
      SkipSpace();
      if (Eat(',')) continue;
      if (Eat(']')) return Status::OK();
      return Fail("expected ',' or ']' in \"value\"");
    }
  }

  // A string, into *out when given (escapes decoded; \u escapes as UTF-8, surrogate pairs
  // joined).
  Status String(std::string* out) {
    if (!Eat('"')) return Fail("expected a string");
    for (;;) {
      if (at_ >= text_.size()) return Fail("a string does not end");
      const unsigned char c = static_cast<unsigned char>(text_[at_++]);
      if (c == '"') return Status::OK();
      if (c < 0x20) return Fail("a control character in a string");
      if (c != '\\') {
        if (out != nullptr) out->push_back(static_cast<char>(c));
        continue;
      }
      if (at_ >= text_.size()) return Fail("a string does not end");
      const char e = text_[at_++];
      char plain = 0;
      switch (e) {
        case '"':
        case '\\':
        case '/':
          plain = e;
          break;
        case 'b':
          plain = '\b';
          break;
        case 'f':
          plain = '\f';
          break;
        case 'n':
          plain = '\n';
          break;
        case 'r':
          plain = '\r';
          break;
        case 't':
          plain = '\t';
          break;
        case 'u': {
          uint32_t cp = 0;
          PARTKV_RETURN_IF_ERROR(Hex4(&cp));
          if (cp >= 0xD800 && cp <= 0xDBFF && at_ + 1 < text_.size() && text_[at_] == '\\' &&
              text_[at_ + 1] == 'u') {
            at_ += 2;
            uint32_t low = 0;
            PARTKV_RETURN_IF_ERROR(Hex4(&low));
            if (low >= 0xDC00 && low <= 0xDFFF) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            } else {
              cp = 0xFFFD;
            }
          } else if (cp >= 0xD800 && cp <= 0xDFFF) {
            cp = 0xFFFD;
          }
          if (out != nullptr) AppendUtf8(out, cp);
          continue;
        }
        default:
          return Fail("an unknown escape in a string");
      }
      if (out != nullptr) out->push_back(plain);
    }
  }

  Status Hex4(uint32_t* cp) {
    if (text_.size() - at_ < 4) return Fail("a \\u escape is cut short");
    for (int i = 0; i < 4; ++i) {
      const char h = text_[at_++];
      uint32_t d = 0;
      if (h >= '0' && h <= '9') {
        d = static_cast<uint32_t>(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        d = static_cast<uint32_t>(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        d = static_cast<uint32_t>(h - 'A' + 10);
      } else {
        return Fail("a \\u escape that is not hexadecimal");
      }
      *cp = *cp * 16 + d;
    }
    return Status::OK();
  }

  static void AppendUtf8(std::string* out, uint32_t cp) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  // Any JSON value, checked and skipped; `depth` is the nesting it sits at.
  Status Skip(int depth) {
    if (depth > kMaxDepth) return Fail("JSON nested more than 64 deep");
    SkipSpace();
    if (at_ >= text_.size()) return Fail("a value is missing");
    const char c = text_[at_];
    if (c == '"') return String(nullptr);
    if (c == '{') {
      ++at_;
      SkipSpace();
      if (Eat('}')) return Status::OK();
      for (;;) {
        SkipSpace();
        PARTKV_RETURN_IF_ERROR(String(nullptr));
        SkipSpace();
        if (!Eat(':')) return Fail("expected ':' after a member name");
        PARTKV_RETURN_IF_ERROR(Skip(depth + 1));
        SkipSpace();
        if (Eat(',')) continue;
        if (Eat('}')) return Status::OK();
        return Fail("expected ',' or '}' in an object");
      }
    }
    if (c == '[') {
      ++at_;
      SkipSpace();
      if (Eat(']')) return Status::OK();
      for (;;) {
        PARTKV_RETURN_IF_ERROR(Skip(depth + 1));
        SkipSpace();
        if (Eat(',')) continue;
        if (Eat(']')) return Status::OK();
        return Fail("expected ',' or ']' in an array");
      }
    }
    for (std::string_view literal : {"true", "false", "null"}) {
      if (text_.substr(at_, literal.size()) == literal) {
        at_ += literal.size();
        return Status::OK();
      }
    }
    return Number();
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  Status Number() {
    auto digits = [&] {
      const size_t start = at_;
      while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
      return at_ > start;
    };
    Eat('-');
    if (Eat('0')) {
    } else if (!digits()) {
      return Fail("not a JSON value");
    }
    if (Eat('.') && !digits()) return Fail("a number without digits after '.'");
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      ++at_;
      if (!Eat('+')) Eat('-');
      if (!digits()) return Fail("a number without digits in its exponent");
    }
    return Status::OK();
  }

  std::string_view text_;
  std::string_view what_;
  size_t at_ = 0;
};

}  // namespace

Result<QueryPageBody> ReadQueryPageBody(std::string_view body, std::string_view what) {
  return Scanner(body, what).Page();
}

std::string_view MetadataTable(std::string_view metadata) {
  constexpr std::string_view kMark = "$metadata#";
  const size_t at = metadata.find(kMark);
  if (at == std::string_view::npos) return {};
  std::string_view rest = metadata.substr(at + kMark.size());
  return rest.substr(0, rest.find('/'));
}

}  // namespace partkv::remote
