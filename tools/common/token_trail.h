// TokenTrail: what a program that follows a query's continuation tokens keeps, so that a server
// which hands back a token it gave before (a cycle of pages, each continuation pointing back)
// cannot keep it reading for ever. A partkv token names the position after a page, and a local
// store's positions only move forward; a remote one's come from the server, and a hostile or
// broken server may send any. The library refuses a continuation equal to the one just sent;
// a longer cycle is only seen by whoever follows the tokens, so it remembers them all: a 64-bit
// hash of each, eight bytes a page.
//
// Not thread-safe: one per paging loop.

#ifndef PARTKV_TOOLS_COMMON_TOKEN_TRAIL_H_
#define PARTKV_TOOLS_COMMON_TOKEN_TRAIL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "partkv/status.h"

namespace partkv::tools {

class TokenTrail {
 public:
  // OK the first time `token` is followed; Corruption naming `what` and the page when it came
  // before. REQUIRES: !token.empty().
  Status Follow(std::string_view token, std::string_view what) {
    ++pages_;
    if (seen_.insert(std::hash<std::string_view>()(token)).second) return Status::OK();
    return Status::Corruption(std::string(what) + ": page " + std::to_string(pages_) +
                              " answered with a continuation token it was given before: " +
                              "following it would never end");
  }

 private:
  std::unordered_set<uint64_t> seen_;
  uint64_t pages_ = 0;
};

}  // namespace partkv::tools

#endif  // PARTKV_TOOLS_COMMON_TOKEN_TRAIL_H_
