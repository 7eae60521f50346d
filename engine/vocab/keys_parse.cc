// Key strategies: the canonical text form and its strict parser. The grammar is
//
//   strategy := ws (form | field) ws
//   form     := name ws "(" arg ("," arg)* ")"
//   arg      := ws (positional | named) ws        named args come after every positional one
//   named    := ("sep" | "hash") ws "=" ws value
//   field    := a property name alone, short for concat(field) with the default separator
//
// A text with no '(' is a bare field; one with a '(' is a form, so "randm-suffix(a,3)" is an
// unknown form, never a field. A form's own name without arguments ("concat", "md5-bits") is
// refused rather than read as a field: forgotten arguments are likelier than a property of that
// name, which concat(concat) still reaches. Every error message ends with the list of accepted
// forms, so a user who typed something wrong on the command line sees what would have been right.

#include <string>
#include <string_view>
#include <vector>

#include "engine/port/strings.h"
#include "partkv/keys.h"

namespace partkv {
namespace {

constexpr std::string_view kAcceptedForms =
    "accepted forms: concat(FIELD,FIELD,...,sep=-) | random-suffix(FIELD,N) | "
    "hash-suffix(FIELD,SOURCE,N,hash=xxh3|md5|codepoint-product) | md5-bits(FIELD,K) | "
    "asc-ticks(FIELD) | desc-ticks(FIELD) | FIELD alone, short for concat(FIELD)";

// The names of the forms, which a bare text may not use as a field.
constexpr std::string_view kFormNames[] = {"concat",   "random-suffix", "hash-suffix",
                                           "md5-bits", "asc-ticks",     "desc-ticks"};

struct Named {
  std::string_view key;
  std::string_view value;
};

// The arguments of one form, positional first, then named.
struct Args {
  std::vector<std::string_view> positional;
  std::vector<Named> named;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<KeyStrategy> Run() {
    std::string_view s = port::TrimAsciiWhitespace(text_);
    if (s.empty()) return Error("empty text");
    const size_t open = s.find('(');
    if (open == std::string_view::npos) return ParseBareField(s);
    if (s.back() != ')') {
      return Error("expected NAME(ARGUMENTS)");
    }
    const std::string_view name = port::TrimAsciiWhitespace(s.substr(0, open));
    PARTKV_ASSIGN_OR_RETURN(Args args, SplitArgs(s.substr(open + 1, s.size() - open - 2)));

    Result<KeyStrategy> strategy = Status::InvalidArgument("unreached");
    if (name == "concat") {
      strategy = ParseConcat(args);
    } else if (name == "random-suffix") {
      strategy = ParseRandomSuffix(args);
    } else if (name == "hash-suffix") {
      strategy = ParseHashSuffix(args);
    } else if (name == "md5-bits") {
      strategy = ParseMd5Bits(args);
    } else if (name == "asc-ticks" || name == "desc-ticks") {
      strategy = ParseTicks(name, args);
    } else {
      return Error("unknown form '" + std::string(name) + "'");
    }
    if (!strategy.ok()) return strategy;
    Status valid = strategy->Validate();
    if (!valid.ok()) return Error(std::string(valid.message()));
    return strategy;
  }

 private:
  Status Error(const std::string& why) const {
    return Status::InvalidArgument("invalid key strategy '" + std::string(text_) + "': " + why +
                                   "; " + std::string(kAcceptedForms));
  }

  // A text without '(': a property name alone, as concat(name).
  Result<KeyStrategy> ParseBareField(std::string_view name) const {
    for (std::string_view form : kFormNames) {
      if (name == form) {
        return Error("expected NAME(ARGUMENTS): " + std::string(name) + " takes arguments" +
                     (name == "concat" ? " (a property named concat is concat(concat))" : ""));
      }
    }
    KeyStrategy strategy = KeyStrategy::Concat({std::string(name)});
    Status valid = strategy.Validate();
    if (!valid.ok()) {
      return Error("expected NAME(ARGUMENTS) or a property name alone, but " +
                   std::string(valid.message()));
    }
    return strategy;
  }

  Result<Args> SplitArgs(std::string_view inner) const {
    Args args;
    size_t start = 0;
    while (true) {
      const size_t comma = inner.find(',', start);
      const std::string_view arg = port::TrimAsciiWhitespace(
          inner.substr(start, comma == std::string_view::npos ? inner.npos : comma - start));
      if (arg.empty()) {
        return Error("argument " + std::to_string(args.positional.size() + args.named.size() + 1) +
                     " is empty");
      }
      const size_t eq = arg.find('=');
      if (eq == std::string_view::npos) {
        if (!args.named.empty()) {
          return Error("positional argument '" + std::string(arg) + "' after a named argument");
        }
        args.positional.push_back(arg);
      } else {
        args.named.push_back(Named{port::TrimAsciiWhitespace(arg.substr(0, eq)),
                                   port::TrimAsciiWhitespace(arg.substr(eq + 1))});
      }
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    return args;
  }

  // Checks the positional count and that every named argument is one of `allowed`, once.
  Status CheckShape(std::string_view form, const Args& args, size_t min_positional,
                    size_t max_positional, std::vector<std::string_view> allowed) const {
    const size_t n = args.positional.size();
    if (n < min_positional || n > max_positional) {
      std::string want = min_positional == max_positional ? std::to_string(min_positional)
                                                          : std::to_string(min_positional) + ".." +
                                                                std::to_string(max_positional);
      return Error(std::string(form) + " takes " + want + " positional argument" +
                   (max_positional == 1 ? "" : "s") + ", not " + std::to_string(n));
    }
    for (size_t i = 0; i < args.named.size(); ++i) {
      const Named& named = args.named[i];
      bool ok = false;
      for (std::string_view key : allowed) ok = ok || named.key == key;
      if (!ok) {
        return Error(std::string(form) + " has no named argument '" + std::string(named.key) + "'");
      }
      for (size_t j = 0; j < i; ++j) {
        if (args.named[j].key == named.key) {
          return Error("named argument '" + std::string(named.key) + "' given twice");
        }
      }
    }
    return Status::OK();
  }

  Result<uint32_t> ParseCount(std::string_view what, std::string_view arg, uint32_t max) const {
    uint64_t value = 0;
    for (char c : arg) {
      if (c < '0' || c > '9') {
        return Error(std::string(what) + " '" + std::string(arg) + "' is not a positive integer");
      }
      value = value * 10 + static_cast<uint64_t>(c - '0');
      if (value > max) break;
    }
    if (value < 1 || value > max) {
      return Error(std::string(what) + " = " + std::string(arg) + " is outside 1.." +
                   std::to_string(max));
    }
    return static_cast<uint32_t>(value);
  }

  Result<KeyStrategy> ParseConcat(const Args& args) const {
    PARTKV_RETURN_IF_ERROR(CheckShape("concat", args, 1, KeyStrategy::kMaxConcatFields, {"sep"}));
    std::string separator = "-";
    if (!args.named.empty()) separator = std::string(args.named[0].value);
    std::vector<std::string> fields(args.positional.begin(), args.positional.end());
    return KeyStrategy::Concat(std::move(fields), std::move(separator));
  }

  Result<KeyStrategy> ParseRandomSuffix(const Args& args) const {
    PARTKV_RETURN_IF_ERROR(CheckShape("random-suffix", args, 2, 2, {}));
    PARTKV_ASSIGN_OR_RETURN(uint32_t n,
                            ParseCount("N", args.positional[1], KeyStrategy::kMaxShards));
    return KeyStrategy::RandomSuffix(std::string(args.positional[0]), n);
  }

  Result<KeyStrategy> ParseHashSuffix(const Args& args) const {
    PARTKV_RETURN_IF_ERROR(CheckShape("hash-suffix", args, 3, 3, {"hash"}));
    PARTKV_ASSIGN_OR_RETURN(uint32_t n,
                            ParseCount("N", args.positional[2], KeyStrategy::kMaxShards));
    SuffixHash hash = SuffixHash::kXxh3;
    if (!args.named.empty()) {
      const std::string_view name = args.named[0].value;
      bool known = false;
      for (SuffixHash h : {SuffixHash::kXxh3, SuffixHash::kMd5, SuffixHash::kCodepointProduct}) {
        if (name == SuffixHashName(h)) hash = h, known = true;
      }
      if (!known) {
        return Error("unknown hash '" + std::string(name) +
                     "' (expected xxh3, md5 or codepoint-product)");
      }
    }
    return KeyStrategy::HashSuffix(std::string(args.positional[0]), std::string(args.positional[1]),
                                   n, hash);
  }

  Result<KeyStrategy> ParseMd5Bits(const Args& args) const {
    PARTKV_RETURN_IF_ERROR(CheckShape("md5-bits", args, 2, 2, {}));
    PARTKV_ASSIGN_OR_RETURN(uint32_t k,
                            ParseCount("K", args.positional[1], KeyStrategy::kMaxMd5Bits));
    return KeyStrategy::Md5Bits(std::string(args.positional[0]), k);
  }

  Result<KeyStrategy> ParseTicks(std::string_view form, const Args& args) const {
    PARTKV_RETURN_IF_ERROR(CheckShape(form, args, 1, 1, {}));
    std::string field(args.positional[0]);
    return form == "asc-ticks" ? KeyStrategy::AscendingTicks(std::move(field))
                               : KeyStrategy::DescendingTicks(std::move(field));
  }

  std::string_view text_;
};

}  // namespace

Result<KeyStrategy> KeyStrategy::Parse(std::string_view text) { return Parser(text).Run(); }

std::string KeyStrategy::ToString() const {
  std::string out;
  auto fields = [&](size_t from, size_t to) {
    for (size_t i = from; i < to && i < fields_.size(); ++i) {
      if (i > from) out += ',';
      out += fields_[i];
    }
  };
  switch (kind_) {
    case Kind::kConcat:
      out = "concat(";
      fields(0, fields_.size());
      out += ",sep=" + separator_ + ")";
      return out;
    case Kind::kRandomSuffix:
      out = "random-suffix(";
      fields(0, 1);
      out += "," + std::to_string(count_) + ")";
      return out;
    case Kind::kHashSuffix:
      out = "hash-suffix(";
      fields(0, 2);
      out += "," + std::to_string(count_) + ",hash=" + std::string(SuffixHashName(hash_)) + ")";
      return out;
    case Kind::kMd5Bits:
      out = "md5-bits(";
      fields(0, 1);
      out += "," + std::to_string(count_) + ")";
      return out;
    case Kind::kAscendingTicks:
    case Kind::kDescendingTicks:
      out = kind_ == Kind::kAscendingTicks ? "asc-ticks(" : "desc-ticks(";
      fields(0, 1);
      out += ")";
      return out;
  }
  return "unknown(" + std::to_string(static_cast<int>(kind_)) + ")";
}

}  // namespace partkv
