// The partkv program against servers that misbehave (tests/testing/hostile_endpoint.h): each
// command that pages, reads or fails on a hostile answer ends with one error line, the exit
// status of docs/cli.md, no secret on the terminal, within a bound on time and on the program's
// peak memory.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "tests/testing/hostile_endpoint.h"
#include "tests/testing/temp_dir.h"
#include "tests/tools/cli/cli_runner.h"

namespace partkv::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using Behaviour = HostileEndpoint::Behaviour;
using Clock = std::chrono::steady_clock;

class CliHostileTest : public ::testing::Test {
 protected:
  // partkv --store <the endpoint> args..., timed.
  RunResult Run(HostileEndpoint& endpoint, std::vector<std::string> args,
                std::string location = "") {
    std::vector<std::string> all = {"--store",
                                    location.empty() ? endpoint.connection_string() : location};
    all.insert(all.end(), args.begin(), args.end());
    const auto start = Clock::now();
    RunResult r = cli_.RunRaw(all);
    seconds_ = std::chrono::duration<double>(Clock::now() - start).count();
    return r;
  }

  TempDir dir_;
  CliRunner cli_{dir_};
  double seconds_ = 0;
};

TEST_F(CliHostileTest, QueryAllOnARepeatedContinuationFailsInsteadOfLooping) {
  HostileEndpoint endpoint(Behaviour::kSameContinuation);
  RunResult r = Run(endpoint, {"query", "Hostile", "--all"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, AllOf(HasSubstr("Corruption"), HasSubstr("very continuation")));
  EXPECT_LE(endpoint.requests(), 4u);
  EXPECT_LT(seconds_, 10);
}

TEST_F(CliHostileTest, ExportOnACycleOfContinuationsFailsAndPrintsNoRowTwice) {
  HostileEndpoint endpoint(Behaviour::kContinuationCycle);
  RunResult r = Run(endpoint, {"export", "Hostile"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err,
              AllOf(HasSubstr("Corruption"), HasSubstr("continuation token it was given before")));
  EXPECT_LE(endpoint.requests(), 5u);
  EXPECT_LT(seconds_, 10);
}

TEST_F(CliHostileTest, QueryAllOnTheSameRowForeverFailsAfterPrintingItOnce) {
  HostileEndpoint endpoint(Behaviour::kSameContinuationSameRow);
  RunResult r = Run(endpoint, {"query", "Hostile", "--all"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  // Page 2 hands back page 1's continuation: refused before its row is printed again.
  EXPECT_EQ(r.OutLines().size(), 1u) << r.out;
  EXPECT_THAT(r.err, HasSubstr("very continuation"));
  EXPECT_LT(seconds_, 10);
}

TEST_F(CliHostileTest, EndlessBodyEndsAtTheMemoryBudget) {
  HostileEndpoint endpoint(Behaviour::kCloseDelimitedBody);
  RunResult r = Run(endpoint, {"query", "Hostile"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("max_response_memory"));
  if (kMemoryBoundsHold) EXPECT_LT(r.max_rss_kib, 600 * 1024);
  EXPECT_LT(seconds_, 30);
}

TEST_F(CliHostileTest, QueryShardsUnderEndlessBodiesStaysUnder600MiB) {
  HostileEndpoint endpoint(Behaviour::kEndlessChunkedBody);
  RunResult r = Run(endpoint, {"query-shards", "Hostile", "d1", "--pk-scheme",
                               "random-suffix(device,8)", "--all"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("max_response_memory"));
  if (kMemoryBoundsHold) EXPECT_LT(r.max_rss_kib, 600 * 1024);
  EXPECT_LT(seconds_, 60);
}

TEST_F(CliHostileTest, EchoedSignatureNeverReachesTheTerminal) {
  HostileEndpoint endpoint(Behaviour::kEcho403);
  const std::string signature = "TerminalSecretSignature0123456789abc%3D";
  for (std::vector<std::string> args :
       {std::vector<std::string>{"get", "Hostile", "p", "r"},
        {"query", "Hostile", "--all"},
        {"insert", "Hostile", R"({"PartitionKey":"p","RowKey":"r"})"},
        {"table", "list"},
        {"table", "create", "Other"}}) {
    RunResult r = Run(endpoint, args, endpoint.sas_url(signature));
    EXPECT_EQ(r.exit_code, 7) << args[0] << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("PermissionDenied")) << args[0];
    EXPECT_THAT(r.err + r.out, Not(HasSubstr("TerminalSecretSignature"))) << args[0];
  }
}

TEST_F(CliHostileTest, GetOfAnotherEntityIsRefused) {
  HostileEndpoint endpoint(Behaviour::kOtherKeys);
  RunResult r = Run(endpoint, {"get", "OtherTable", "p", "r"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("answered with the entity (PartitionKey 'otherpk'"));
  EXPECT_EQ(r.out, "");
  r = Run(endpoint, {"query", "OtherTable", "--pk", "p"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("did not ask for"));
  EXPECT_EQ(r.out, "");
}

TEST_F(CliHostileTest, RetryAfterOverflowIsAnHourNotNegative) {
  HostileEndpoint endpoint(Behaviour::kRetryAfterOverflow);
  RunResult r = Run(endpoint, {"get", "Hostile", "p", "r"});
  EXPECT_EQ(r.exit_code, 6) << r.err;
  EXPECT_THAT(r.err, AllOf(HasSubstr("3600000 ms"), Not(HasSubstr("-"))));
  EXPECT_LT(seconds_, 120);
}

TEST_F(CliHostileTest, MalformedPageIsAnErrorNotAnEmptyResult) {
  HostileEndpoint endpoint(Behaviour::kMalformedPage);
  RunResult r = Run(endpoint, {"query", "Hostile", "--all"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("malformed"));
}

TEST_F(CliHostileTest, LongServiceContinuationIsRefusedAtTheFirstPage) {
  HostileEndpoint endpoint(Behaviour::kLongContinuation);
  RunResult r = Run(endpoint, {"query", "Hostile", "--all"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("more than the 4096"));
  EXPECT_EQ(endpoint.requests(), 2u);
}

}  // namespace
}  // namespace partkv::testing
