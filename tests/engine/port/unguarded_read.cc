// A field GUARDED_BY a mutex, read in Counter::Read. Compiled only by check_thread_safety.sh
// (clang++ -fsyntax-only -Wthread-safety -Werror), twice: as is, the read holds no lock and clang
// must reject it; with PARTKV_TAKE_LOCK defined, the read holds the mutex and clang must accept
// it. Together they show the annotations of engine/port/ reach clang's analysis.

#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"

namespace {

class Counter {
 public:
  int Read() {
#ifdef PARTKV_TAKE_LOCK
    partkv::port::MutexLock lock(&mu_);
#endif
    return value_;
  }

 private:
  partkv::port::Mutex mu_;
  int value_ PARTKV_GUARDED_BY(mu_) = 0;
};

}  // namespace

int main() {
  Counter counter;
  return counter.Read();
}
