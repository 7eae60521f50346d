#include "tools/common/die.h"

#include <errno.h>  // program_invocation_short_name (GNU)

#include <cstdio>
#include <cstdlib>

namespace partkv::tools {

void Die(std::string_view what, int status) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: error: %.*s\n", program_invocation_short_name,
               static_cast<int>(what.size()), what.data());
  std::exit(status);
}

}  // namespace partkv::tools
