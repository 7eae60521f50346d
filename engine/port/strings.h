// ASCII string helpers every layer uses alike (the vocabulary's parsers, the wire protocol, the
// remote client and partkv serve), so that "whitespace" means one thing across them: the six
// characters std::isspace takes in the "C" locale, whatever the process's locale.
// Header-only, standard library only, as everything in engine/port/. Thread-safe: pure functions.

#ifndef PARTKV_ENGINE_PORT_STRINGS_H_
#define PARTKV_ENGINE_PORT_STRINGS_H_

#include <string_view>

namespace partkv::port {

// ' ', '\t', '\n', '\v', '\f' or '\r'.
constexpr bool IsAsciiWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// `s` without the ASCII whitespace at either end; a view into `s`.
constexpr std::string_view TrimAsciiWhitespace(std::string_view s) {
  while (!s.empty() && IsAsciiWhitespace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsAsciiWhitespace(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace partkv::port

#endif  // PARTKV_ENGINE_PORT_STRINGS_H_
