// Filter::Parse: a lexer and a recursive-descent parser for Azure Table's $filter grammar
// (docs/filter.md). The lexer runs on demand, one token ahead of the parser, so errors are
// reported in text order.
//
//   or_expr    = and_expr *("or" and_expr)
//   and_expr   = unary *("and" unary)
//   unary      = "not" unary / "(" or_expr ")" / comparison
//   comparison = operand ("eq" / "ne" / "gt" / "ge" / "lt" / "le") operand

#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "engine/filter_expr.h"

namespace partkv::engine {
namespace {

// Tokens quoted in messages are cut to this many characters.
constexpr size_t kMaxQuotedChars = 40;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string Quote(std::string_view text) {
  if (text.size() > kMaxQuotedChars) {
    return "'" + std::string(text.substr(0, kMaxQuotedChars)) + "...'";
  }
  return "'" + std::string(text) + "'";
}

std::string DescribeChar(char c) {
  if (c > ' ' && c < 0x7f) return Quote(std::string_view(&c, 1));
  static constexpr char kHex[] = "0123456789ABCDEF";
  auto u = static_cast<unsigned char>(c);
  return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 15];
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool IsKeyword(std::string_view w) {
  return w == "and" || w == "or" || w == "not" || w == "eq" || w == "ne" || w == "gt" ||
         w == "ge" || w == "lt" || w == "le" || w == "true" || w == "false" || w == "null";
}

// " (keywords are lower case: 'eq')" when `word` is a keyword written in another case.
std::string CaseHint(std::string_view word) {
  std::string lower = Lower(word);
  if (lower == word || !IsKeyword(lower)) return "";
  return " (keywords are lower case: '" + lower + "')";
}

struct Token {
  enum class Kind { kEnd, kLParen, kRParen, kWord, kLiteral };
  Kind kind = Kind::kEnd;
  size_t pos = 0;
  std::string_view text;  // the source text of the token
  Value literal;          // kLiteral only
};

}  // namespace

class Filter::Parser {
 public:
  Parser(std::string_view text, Filter* out) : text_(text), out_(out) {}

  // Parses the whole text into *out_.
  Status Run() {
    PARTKV_RETURN_IF_ERROR(Advance());
    if (tok_.kind == Token::Kind::kEnd) return Status::OK();  // the empty filter
    PARTKV_ASSIGN_OR_RETURN(out_->root_, ParseOr());
    if (tok_.kind == Token::Kind::kRParen) {
      return Error(tok_.pos, "unbalanced parentheses: ')' has no matching '('");
    }
    if (tok_.kind != Token::Kind::kEnd) return Unexpected("'and', 'or' or end of filter");
    return Status::OK();
  }

 private:
  struct Operand {
    bool is_property = false;
    std::string_view name;  // is_property only
    Value literal;          // !is_property only
  };

  Status Error(size_t pos, std::string_view message) const {
    return Status::InvalidArgument("filter: at position " + std::to_string(pos) + ": " +
                                   std::string(message));
  }

  Status Unexpected(std::string_view expected) const {
    std::string found;
    switch (tok_.kind) {
      case Token::Kind::kEnd:
        found = "end of filter";
        break;
      case Token::Kind::kLParen:
        found = "'('";
        break;
      case Token::Kind::kRParen:
        found = "')'";
        break;
      case Token::Kind::kWord:
        found = Quote(tok_.text) + CaseHint(tok_.text);
        break;
      case Token::Kind::kLiteral: {
        std::string_view text = tok_.text.substr(0, kMaxQuotedChars);
        found = "the " + std::string(TypeName(tok_.literal.type())) + " literal " +
                std::string(text) + (text.size() < tok_.text.size() ? "..." : "");
        break;
      }
    }
    return Error(tok_.pos, "expected " + std::string(expected) + ", found " + found);
  }

  bool AtWord(std::string_view word) const {
    return tok_.kind == Token::Kind::kWord && tok_.text == word;
  }

  // Lexes the next token into tok_.
  Status Advance() {
    while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
    tok_ = Token();
    tok_.pos = pos_;
    if (pos_ == text_.size()) return Status::OK();
    const size_t start = pos_;
    const char c = text_[pos_];
    if (c == '(' || c == ')') {
      tok_.kind = c == '(' ? Token::Kind::kLParen : Token::Kind::kRParen;
      tok_.text = text_.substr(pos_++, 1);
      return Status::OK();
    }
    if (c == '\'') return LexString(start);
    if (IsDigit(c) || (c == '-' && pos_ + 1 < text_.size() && IsDigit(text_[pos_ + 1]))) {
      return LexNumber(start);
    }
    if (IsIdentStart(c)) {
      size_t end = pos_;
      while (end < text_.size() && IsIdentChar(text_[end])) ++end;
      std::string_view word = text_.substr(start, end - start);
      if (end < text_.size() && text_[end] == '\'' &&
          (word == "datetime" || word == "guid" || word == "X" || word == "binary")) {
        return LexTypedLiteral(start, word);
      }
      tok_.kind = Token::Kind::kWord;
      tok_.text = word;
      pos_ = end;
      return Status::OK();
    }
    std::string message = "unexpected character " + DescribeChar(c);
    if (c == '"') message += " (string literals use single quotes)";
    return Error(start, message);
  }

  // 'text' with '' standing for one quote.
  Status LexString(size_t start) {
    std::string value;
    size_t p = start + 1;
    while (true) {
      size_t quote = text_.find('\'', p);
      if (quote == std::string_view::npos) {
        return Error(start, "unterminated string literal (no closing quote)");
      }
      value.append(text_.substr(p, quote - p));
      if (quote + 1 < text_.size() && text_[quote + 1] == '\'') {
        value += '\'';
        p = quote + 2;
        continue;
      }
      pos_ = quote + 1;
      break;
    }
    tok_.kind = Token::Kind::kLiteral;
    tok_.text = text_.substr(start, pos_ - start);
    tok_.literal = Value::String(std::move(value));
    return Status::OK();
  }

  // datetime'...', guid'...', X'...', binary'...'. REQUIRES: text_ at start is `prefix` + quote.
  Status LexTypedLiteral(size_t start, std::string_view prefix) {
    const size_t open = start + prefix.size();
    const size_t close = text_.find('\'', open + 1);
    if (close == std::string_view::npos) {
      return Error(start, "unterminated " + std::string(prefix) + " literal (no closing quote)");
    }
    std::string_view body = text_.substr(open + 1, close - open - 1);
    tok_.kind = Token::Kind::kLiteral;
    tok_.text = text_.substr(start, close + 1 - start);
    pos_ = close + 1;
    if (prefix == "datetime") {
      Result<DateTime> t = DateTime::Parse(body);
      if (!t.ok()) return Error(start, t.status().message());
      tok_.literal = Value::DateTime(*t);
    } else if (prefix == "guid") {
      Result<Guid> g = Guid::Parse(body);
      if (!g.ok()) return Error(start, g.status().message());
      tok_.literal = Value::Guid(*g);
    } else {
      std::string bytes;
      bool valid = body.size() % 2 == 0;
      for (size_t i = 0; valid && i < body.size(); i += 2) {
        int hi = HexValue(body[i]), lo = HexValue(body[i + 1]);
        valid = hi >= 0 && lo >= 0;
        if (valid) bytes += static_cast<char>(hi << 4 | lo);
      }
      if (!valid) {
        return Error(start, "invalid Binary literal " + std::string(tok_.text.substr(0, 60)) +
                                " (expected an even number of hex digits)");
      }
      tok_.literal = Value::Binary(std::move(bytes));
    }
    return Status::OK();
  }

  // -?digits[.digits][(e|E)[+|-]digits] with an optional L/l (integers only) or d/D suffix.
  Status LexNumber(size_t start) {
    const size_t n = text_.size();
    size_t p = start;
    if (text_[p] == '-') ++p;
    while (p < n && IsDigit(text_[p])) ++p;
    bool is_double = false;
    if (p + 1 < n && text_[p] == '.' && IsDigit(text_[p + 1])) {
      is_double = true;
      p += 2;
      while (p < n && IsDigit(text_[p])) ++p;
    }
    if (p < n && (text_[p] == 'e' || text_[p] == 'E')) {
      size_t q = p + 1;
      if (q < n && (text_[q] == '+' || text_[q] == '-')) ++q;
      if (q < n && IsDigit(text_[q])) {
        is_double = true;
        p = q;
        while (p < n && IsDigit(text_[p])) ++p;
      }
    }
    const std::string_view number = text_.substr(start, p - start);
    char suffix = 0;
    if (p < n && (text_[p] == 'L' || text_[p] == 'l') && !is_double) {
      suffix = 'L';
      ++p;
    } else if (p < n && (text_[p] == 'd' || text_[p] == 'D')) {
      suffix = 'D';
      ++p;
    }
    if (p < n && (IsIdentChar(text_[p]) || text_[p] == '.')) {
      while (p < n && (IsIdentChar(text_[p]) || text_[p] == '.')) ++p;
      return Error(start, "malformed number " + Quote(text_.substr(start, p - start)));
    }
    tok_.kind = Token::Kind::kLiteral;
    tok_.text = text_.substr(start, p - start);
    pos_ = p;
    const char* first = number.data();
    const char* last = number.data() + number.size();
    if (is_double || suffix == 'D') {
      double v = 0;
      auto [ptr, ec] = std::from_chars(first, last, v);
      if (ec != std::errc() || ptr != last) {
        return Error(start, "Double literal " + Quote(tok_.text) + " is out of range");
      }
      tok_.literal = Value::Double(v);
      return Status::OK();
    }
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(first, last, v);
    const bool fits64 = ec == std::errc() && ptr == last;
    if (suffix == 'L') {
      if (!fits64) {
        return Error(start, "Int64 literal " + Quote(tok_.text) + " is out of the Int64 range");
      }
      tok_.literal = Value::Int64(v);
      return Status::OK();
    }
    if (!fits64 || v < std::numeric_limits<int32_t>::min() ||
        v > std::numeric_limits<int32_t>::max()) {
      return Error(start, "integer literal " + std::string(number) +
                              " is out of the Int32 range; add the L suffix for an Int64 (" +
                              std::string(number) + "L)");
    }
    tok_.literal = Value::Int32(static_cast<int32_t>(v));
    return Status::OK();
  }

  int32_t AddNode(NodeKind kind, int32_t a, int32_t b = -1) {
    out_->nodes_.push_back(Node{kind, a, b});
    return static_cast<int32_t>(out_->nodes_.size() - 1);
  }

  Result<int32_t> ParseOr() {
    PARTKV_ASSIGN_OR_RETURN(int32_t lhs, ParseAnd());
    while (AtWord("or")) {
      PARTKV_RETURN_IF_ERROR(Advance());
      PARTKV_ASSIGN_OR_RETURN(int32_t rhs, ParseAnd());
      lhs = AddNode(NodeKind::kOr, lhs, rhs);
    }
    return lhs;
  }

  Result<int32_t> ParseAnd() {
    PARTKV_ASSIGN_OR_RETURN(int32_t lhs, ParseUnary());
    while (AtWord("and")) {
      PARTKV_RETURN_IF_ERROR(Advance());
      PARTKV_ASSIGN_OR_RETURN(int32_t rhs, ParseUnary());
      lhs = AddNode(NodeKind::kAnd, lhs, rhs);
    }
    return lhs;
  }

  Status EnterNesting() {
    if (++depth_ > kMaxNesting) {
      return Error(tok_.pos, "nested deeper than " + std::to_string(kMaxNesting) +
                                 " levels of parentheses and 'not'");
    }
    return Status::OK();
  }

  Result<int32_t> ParseUnary() {
    if (AtWord("not")) {
      PARTKV_RETURN_IF_ERROR(EnterNesting());
      PARTKV_RETURN_IF_ERROR(Advance());
      PARTKV_ASSIGN_OR_RETURN(int32_t operand, ParseUnary());
      --depth_;
      return AddNode(NodeKind::kNot, operand);
    }
    if (tok_.kind == Token::Kind::kLParen) {
      const size_t open = tok_.pos;
      PARTKV_RETURN_IF_ERROR(EnterNesting());
      PARTKV_RETURN_IF_ERROR(Advance());
      if (tok_.kind == Token::Kind::kRParen) {
        return Error(open, "empty parentheses: expected an expression between '(' and ')'");
      }
      PARTKV_ASSIGN_OR_RETURN(int32_t inner, ParseOr());
      if (tok_.kind != Token::Kind::kRParen) {
        return Unexpected("'and', 'or' or ')' to close the '(' at position " +
                          std::to_string(open));
      }
      --depth_;
      PARTKV_RETURN_IF_ERROR(Advance());
      return inner;
    }
    return ParseComparison();
  }

  Result<Operand> ParseOperand(std::string_view expected) {
    Operand operand;
    if (tok_.kind == Token::Kind::kLiteral) {
      operand.literal = std::move(tok_.literal);
    } else if (AtWord("true") || AtWord("false")) {
      operand.literal = Value::Boolean(tok_.text == "true");
    } else if (AtWord("null")) {
      return Error(tok_.pos, "null literals are not allowed in a filter");
    } else if (tok_.kind == Token::Kind::kWord && !IsKeyword(tok_.text)) {
      operand.is_property = true;
      operand.name = tok_.text;
    } else {
      return Unexpected(expected);
    }
    PARTKV_RETURN_IF_ERROR(Advance());
    return operand;
  }

  static bool LookupOp(std::string_view word, CompareOp* op) {
    static constexpr std::pair<std::string_view, CompareOp> kOps[] = {
        {"eq", CompareOp::kEq}, {"ne", CompareOp::kNe}, {"gt", CompareOp::kGt},
        {"ge", CompareOp::kGe}, {"lt", CompareOp::kLt}, {"le", CompareOp::kLe}};
    for (const auto& [text, value] : kOps) {
      if (word == text) {
        *op = value;
        return true;
      }
    }
    return false;
  }

  // `30 lt Age` is `Age gt 30`.
  static CompareOp Flip(CompareOp op) {
    switch (op) {
      case CompareOp::kGt:
        return CompareOp::kLt;
      case CompareOp::kGe:
        return CompareOp::kLe;
      case CompareOp::kLt:
        return CompareOp::kGt;
      case CompareOp::kLe:
        return CompareOp::kGe;
      default:
        return op;
    }
  }

  static Field FieldOf(std::string_view name) {
    if (name == "PartitionKey") return Field::kPartitionKey;
    if (name == "RowKey") return Field::kRowKey;
    if (name == "Timestamp") return Field::kTimestamp;
    return Field::kProperty;
  }

  Result<int32_t> ParseComparison() {
    const size_t start = tok_.pos;
    if (out_->comparisons_.size() >= static_cast<size_t>(kMaxComparisons)) {
      return Error(start, "more than " + std::to_string(kMaxComparisons) +
                              " comparisons (Azure Table's limit per filter)");
    }
    PARTKV_ASSIGN_OR_RETURN(Operand lhs, ParseOperand("a comparison, 'not' or '('"));
    CompareOp op = CompareOp::kEq;
    if (tok_.kind != Token::Kind::kWord || !LookupOp(tok_.text, &op)) {
      return Unexpected("a comparison operator (eq, ne, gt, ge, lt, le)");
    }
    const std::string op_text(tok_.text);
    PARTKV_RETURN_IF_ERROR(Advance());
    PARTKV_ASSIGN_OR_RETURN(Operand rhs,
                            ParseOperand("a property name or a literal after '" + op_text + "'"));
    if (lhs.is_property && rhs.is_property) {
      return Error(start, "comparison of two properties (" + Quote(lhs.name) + " and " +
                              Quote(rhs.name) + "): one side must be a literal" +
                              CaseHint(lhs.name) + CaseHint(rhs.name));
    }
    if (!lhs.is_property && !rhs.is_property) {
      return Error(start, "comparison of two literals: one side must be a property name");
    }
    if (!lhs.is_property) {
      std::swap(lhs, rhs);
      op = Flip(op);
    }
    out_->comparisons_.push_back(
        Comparison{FieldOf(lhs.name), op, std::string(lhs.name), std::move(rhs.literal)});
    return AddNode(NodeKind::kCompare, static_cast<int32_t>(out_->comparisons_.size() - 1));
  }

  std::string_view text_;
  size_t pos_ = 0;  // where the lexer resumes: just past tok_
  Token tok_;
  Filter* out_;
  int depth_ = 0;
};

Result<Filter> Filter::Parse(std::string_view text) {
  Filter filter;
  PARTKV_RETURN_IF_ERROR(Parser(text, &filter).Run());
  filter.ComputeKeyConditions();
  return filter;
}

}  // namespace partkv::engine
