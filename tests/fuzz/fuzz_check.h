// FUZZ_CHECK(cond): a property of a fuzz target. A violation prints the condition and aborts, so
// libFuzzer saves the input as a crash (assert() would vanish under NDEBUG).

#ifndef PARTKV_TESTS_FUZZ_FUZZ_CHECK_H_
#define PARTKV_TESTS_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: property violated: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (false)

#endif  // PARTKV_TESTS_FUZZ_FUZZ_CHECK_H_
