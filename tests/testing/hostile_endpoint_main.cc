// partkv-hostile-endpoint BEHAVIOUR: a HostileEndpoint (tests/testing/hostile_endpoint.h) as a
// program of its own, for the tests that drive the partkv program and the Python package against
// it. It prints one line, "listening on URL", and serves until its standard input closes or it
// is sent SIGTERM or SIGINT.

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <thread>

#include "tests/testing/hostile_endpoint.h"

int main(int argc, char** argv) {
  using partkv::testing::HostileEndpoint;
  auto behaviour = argc == 2 ? HostileEndpoint::Parse(argv[1]) : std::nullopt;
  if (!behaviour) {
    std::fprintf(stderr, "usage: partkv-hostile-endpoint BEHAVIOUR (hostile_endpoint.h)\n");
    return 2;
  }
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);  // the endpoint's threads inherit it
  HostileEndpoint endpoint(*behaviour);
  std::printf("listening on %s\n", endpoint.url().c_str());
  std::fflush(stdout);
  // Standard input closing (the test's end of a pipe) or a signal stops it.
  std::thread watch_stdin([] {
    char c;
    while (read(STDIN_FILENO, &c, 1) > 0) {
    }
    kill(getpid(), SIGTERM);
  });
  watch_stdin.detach();
  int signal = 0;
  sigwait(&stop_signals, &signal);
  endpoint.Stop();
  return 0;
}
