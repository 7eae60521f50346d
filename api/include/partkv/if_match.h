// partkv::IfMatch — the ETag condition of a Replace, Merge or Delete (HTTP If-Match).
//
// IfMatch::Any() ("*") matches any existing entity; IfMatch::ETag(e) matches only while the
// entity's current ETag is exactly `e`. Either way the entity must exist (NotFound otherwise).

#ifndef PARTKV_IF_MATCH_H_
#define PARTKV_IF_MATCH_H_

#include <string>
#include <string_view>

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

class IfMatch {
 public:
  static IfMatch Any() { return IfMatch(true, std::string()); }
  static IfMatch ETag(std::string etag) { return IfMatch(false, std::move(etag)); }
  // "*" means Any; anything else is an ETag.
  static IfMatch FromHeader(std::string_view header) {
    return header == "*" ? Any() : ETag(std::string(header));
  }

  bool is_any() const { return any_; }
  const std::string& etag() const { return etag_; }
  bool Matches(std::string_view current) const { return is_any() || etag_ == current; }

 private:
  IfMatch(bool any, std::string etag) : any_(any), etag_(std::move(etag)) {}
  bool any_;
  std::string etag_;
};

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_IF_MATCH_H_
