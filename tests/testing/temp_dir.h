// TempDir: a fresh, uniquely named directory for one test, removed with everything in it when the
// object is destroyed. Tests never share a fixed path.

#ifndef PARTKV_TESTS_TESTING_TEMP_DIR_H_
#define PARTKV_TESTS_TESTING_TEMP_DIR_H_

#include <string>

namespace partkv::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + name
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace partkv::testing

#endif  // PARTKV_TESTS_TESTING_TEMP_DIR_H_
