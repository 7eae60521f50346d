// The servers the remote backend's tests run against (tests/testing/endpoint_server.h): each
// answers as an Azure Table endpoint on the port it reports, Azurite speaks HTTPS verified by the
// CA file it exposes, a server that cannot start says why, and no server outlives its owner,
// whether destroyed or orphaned by a crash. Requests go out through libcurl, unsigned: the
// refusal, with Azure's error code, shows that the endpoint's own server answered.

#include "tests/testing/endpoint_server.h"

#include <curl/curl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <string>
#include <thread>

#include "tests/testing/status_matchers.h"

namespace partkv::testing {
namespace {

const ServerPrograms kPrograms{PARTKV_CLI_PATH, PARTKV_AZURITE_DIR};

struct Reply {
  CURLcode code = CURLE_OK;
  std::string error;  // libcurl's message when code is not CURLE_OK
  long status = 0;
  std::string server;      // the Server header
  std::string error_code;  // the x-ms-error-code header
};

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* reply = static_cast<Reply*>(user);
  std::string line(data, size * count);
  const size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    value.erase(value.find_last_not_of("\r\n") + 1);
    if (strcasecmp(name.c_str(), "Server") == 0) reply->server = value;
    if (strcasecmp(name.c_str(), "x-ms-error-code") == 0) reply->error_code = value;
  }
  return size * count;
}

size_t Discard(char*, size_t size, size_t count, void*) { return size * count; }

// GET `url` without credentials. HTTPS trusts `ca_file` when given, else the system's store.
Reply Get(const std::string& url, const std::string& ca_file = "") {
  Reply reply;
  CURL* curl = curl_easy_init();
  char error[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &reply);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Discard);
  if (!ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, ca_file.c_str());
  reply.code = curl_easy_perform(curl);
  reply.error = error;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
  curl_easy_cleanup(curl);
  return reply;
}

std::string ExpectedConnectionString(const std::string& scheme, int port) {
  return "DefaultEndpointsProtocol=" + scheme +
         ";AccountName=devstoreaccount1;AccountKey=" + std::string(kDevAccountKey) +
         ";TableEndpoint=" + scheme + "://127.0.0.1:" + std::to_string(port) + "/devstoreaccount1;";
}

// Whether process `pid` (not a child of ours) ends within `timeout`: pidfd_open gives a
// descriptor that becomes readable when it exits.
bool ProcessEnds(pid_t pid, int timeout_ms) {
  const int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return errno == ESRCH;
  pollfd p{fd, POLLIN, 0};
  const bool ended = poll(&p, 1, timeout_ms) == 1;
  close(fd);
  return ended;
}

TEST(EndpointServerTest, PartkvServeAnswersOnThePortItReports) {
  auto server = PartkvServe::Start(PARTKV_CLI_PATH);
  ASSERT_OK(server);
  const EndpointServer& s = **server;
  EXPECT_EQ(s.endpoint_url(), "http://127.0.0.1:" + std::to_string(s.port()) + "/devstoreaccount1");
  EXPECT_EQ(s.connection_string(), ExpectedConnectionString("http", s.port()));
  EXPECT_EQ(s.ca_file(), "");

  Reply reply = Get(s.endpoint_url() + "/Tables");
  ASSERT_EQ(reply.code, CURLE_OK) << reply.error;
  EXPECT_EQ(reply.status, 403);
  EXPECT_EQ(reply.error_code, "AuthenticationFailed");
}

TEST(EndpointServerTest, AzuriteAnswersOverHttp) {
  auto server = Azurite::Start(PARTKV_AZURITE_DIR);
  ASSERT_OK(server);
  const EndpointServer& s = **server;
  EXPECT_EQ(s.connection_string(), ExpectedConnectionString("http", s.port()));
  EXPECT_EQ(s.ca_file(), "");

  Reply reply = Get(s.endpoint_url() + "/Tables");
  ASSERT_EQ(reply.code, CURLE_OK) << reply.error;
  EXPECT_EQ(reply.status, 403);
  EXPECT_EQ(reply.error_code, "AuthorizationFailure");
  EXPECT_EQ(reply.server,
            "Azurite-Table/3.37.0");  // the version tests/engine/remote/package.json pins
}

TEST(EndpointServerTest, AzuriteOverHttpsIsVerifiedWithItsCaFile) {
  auto server = Azurite::Start(PARTKV_AZURITE_DIR, {.https = true});
  ASSERT_OK(server);
  const EndpointServer& s = **server;
  EXPECT_EQ(s.connection_string(), ExpectedConnectionString("https", s.port()));
  ASSERT_NE(s.ca_file(), "");

  Reply reply = Get(s.endpoint_url() + "/Tables", s.ca_file());
  ASSERT_EQ(reply.code, CURLE_OK) << reply.error;
  EXPECT_EQ(reply.status, 403);
  EXPECT_EQ(reply.error_code, "AuthorizationFailure");
  // Verification is on: the system's store does not know the certificate.
  EXPECT_EQ(Get(s.endpoint_url() + "/Tables").code, CURLE_PEER_FAILED_VERIFICATION);
}

TEST(EndpointServerTest, DestroyingAServerEndsItsProcess) {
  for (EndpointKind kind : {EndpointKind::kPartkvServe, EndpointKind::kAzurite}) {
    SCOPED_TRACE(EndpointKindName(kind));
    auto server = StartEndpoint(kind, kPrograms);
    ASSERT_OK(server);
    const pid_t pid = (*server)->pid();
    const std::string url = (*server)->endpoint_url() + "/Tables";
    server->reset();
    // Reaped, so the pid no longer names a process (barring reuse within the moment).
    EXPECT_EQ(kill(pid, 0), -1);
    EXPECT_EQ(errno, ESRCH);
    EXPECT_EQ(Get(url).code, CURLE_COULDNT_CONNECT);
  }
}

TEST(EndpointServerTest, AServerThatExitsBeforeListeningIsReportedWithItsStderr) {
  auto server = PartkvServe::Start(PARTKV_CLI_PATH, {.extra_args = {"--no-such-option"}});
  ASSERT_THAT(server, StatusIs(Status::Code::kIOError));
  EXPECT_NE(server.status().ToString().find("exited with status 2"), std::string::npos)
      << server.status().ToString();
  EXPECT_NE(server.status().ToString().find("--no-such-option"), std::string::npos)
      << server.status().ToString();
}

TEST(EndpointServerTest, AzuriteNotInstalledNamesTheInstaller) {
  TempDir empty;
  auto server = Azurite::Start(empty.path());
  ASSERT_THAT(server, StatusIs(Status::Code::kIOError));
  EXPECT_NE(server.status().ToString().find("install_azurite.sh"), std::string::npos)
      << server.status().ToString();
}

TEST(EndpointServerTest, SharedEndpointIsOneServerPerKind) {
  auto first = SharedEndpoint(EndpointKind::kPartkvServe, kPrograms);
  ASSERT_OK(first);
  auto second = SharedEndpoint(EndpointKind::kPartkvServe, kPrograms);
  ASSERT_OK(second);
  EXPECT_EQ(*first, *second);
  Reply reply = Get((*first)->endpoint_url() + "/Tables");
  ASSERT_EQ(reply.code, CURLE_OK) << reply.error;
  EXPECT_EQ(reply.status, 403);
}

TEST(EndpointServerTest, SharedEndpointStartsNoServerOffTheMainThread) {
  Result<EndpointServer*> started = Status::Busy("not run");
  std::thread([&] { started = SharedEndpoint(EndpointKind::kAzurite, kPrograms); }).join();
  EXPECT_THAT(started, StatusIs(Status::Code::kInvalidArgument));
}

// Runs first (gtest orders *DeathTest suites first), while the process has one thread, as fork
// without exec wants.
TEST(EndpointServerDeathTest, ServersDieWithATestProcessThatCrashes) {
  TempDir dir;
  const std::string pid_file = dir.Sub("server.pid");
  EXPECT_EXIT(
      {
        auto server = PartkvServe::Start(PARTKV_CLI_PATH, {.store_dir = dir.Sub("store")});
        if (!server.ok()) {
          std::fprintf(stderr, "%s\n", server.status().ToString().c_str());
          std::_Exit(1);
        }
        std::ofstream(pid_file) << (*server)->pid() << "\n";
        kill(getpid(), SIGKILL);
      },
      ::testing::KilledBySignal(SIGKILL), "");
  pid_t pid = 0;
  std::ifstream(pid_file) >> pid;
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(ProcessEnds(pid, 10'000)) << "partkv serve (pid " << pid << ") outlived its parent";
}

}  // namespace
}  // namespace partkv::testing
