#include "tests/testing/temp_dir.h"

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace partkv::testing {

TempDir::TempDir() {
  std::string base = std::filesystem::temp_directory_path().string() + "/partkv-test-XXXXXX";
  if (mkdtemp(base.data()) == nullptr) {
    std::perror("mkdtemp");
    std::abort();
  }
  path_ = base;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace partkv::testing
