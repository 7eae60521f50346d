// The HTTP server of partkv serve (server.h): cpp-httplib in, Service out.

#include "tools/serve/server.h"

#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include <httplib.h>

#include "partkv/profile.h"
#include "partkv/store.h"
#include "tools/serve/auth.h"
#include "tools/serve/service.h"
#include "tools/serve/uri.h"

namespace partkv::serve {
namespace {

HttpRequest FromHttplib(const httplib::Request& in) {
  HttpRequest r;
  r.verb = in.method;
  r.method = in.method;
  if (r.method == "PATCH") r.method = "MERGE";
  // httplib keeps its headers ordered case-insensitively as HeaderMap does: append at the end.
  for (const auto& [name, value] : in.headers) r.headers.emplace_hint(r.headers.end(), name, value);
  if (r.method == "POST") {
    std::string override_method = r.Header("X-HTTP-Method");
    if (!override_method.empty()) r.method = override_method;
  }
  std::string_view target = in.target;
  size_t q = target.find('?');
  r.raw_path = std::string(target.substr(0, q));
  auto path = PercentDecode(r.raw_path, false);
  r.path = path.ok() ? std::move(*path) : std::string();  // "" is answered InvalidUri
  if (q != std::string_view::npos) {
    auto query = ParseQuery(target.substr(q + 1));
    if (query.ok()) r.query = std::move(*query);
  }
  r.body = in.body;
  r.remote_addr = in.remote_addr;
  std::string host = r.Header("Host");
  r.base_url = "http://" + (host.empty() ? in.local_addr + ":" + std::to_string(in.local_port) : host);
  return r;
}

void ToHttplib(HttpReply&& reply, httplib::Response& out) {
  out.status = reply.status;
  // The service writes header values without CR/LF (set_header would check each again).
  for (auto& [name, value] : reply.headers) out.headers.emplace(std::move(name), std::move(value));
  out.body = std::move(reply.body);
}

}  // namespace

Status RunServe(const ServeOptions& options) {
  Accounts accounts;
  if (options.accounts.empty()) {
    PARTKV_RETURN_IF_ERROR(accounts.Add(kDevAccountName, kDevAccountKey));
  }
  for (const auto& [name, key] : options.accounts) PARTKV_RETURN_IF_ERROR(accounts.Add(name, key));
  PARTKV_RETURN_IF_ERROR(CheckProfileName(options.profile));

  // Signals are taken by one thread with sigwait; every thread started from here inherits the
  // blocked mask, so no worker is ever interrupted by them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR1);  // internal: ends the signal thread when the server stops itself
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  std::error_code ec;
  std::filesystem::create_directories(options.store_dir, ec);
  if (ec) return Status::IOError("cannot create the store directory '" + options.store_dir + "': " + ec.message());
  StoreOptions store_options;
  store_options.create_if_missing = true;
  store_options.profile = options.profile;
  store_options.throttling = options.throttling;
  store_options.memory_budget_bytes = options.memory_budget_bytes;
  auto store = Store::Open(options.store_dir, store_options);
  if (!store.ok()) return store.status();
  ServiceOptions service_options;
  service_options.sync = options.sync;
  service_options.scan_budget = options.scan_budget;
  auto service = std::make_unique<Service>(std::move(*store), std::move(accounts), service_options);

  httplib::Server server;
  const int threads = options.threads > 0 ? options.threads : 64;
  server.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  server.set_payload_max_length(kMaxBodyBytes);
  server.set_keep_alive_max_count(100000);
  server.set_tcp_nodelay(true);
  auto handler = [&service, verbose = options.verbose](const httplib::Request& req,
                                                       httplib::Response& res) {
    HttpReply reply = service->Handle(FromHttplib(req));
    if (verbose) {
      std::fprintf(stderr, "%s %s -> %d %s\n", req.method.c_str(), req.target.c_str(), reply.status,
                   reply.Header("x-ms-error-code").c_str());
    }
    ToHttplib(std::move(reply), res);
  };
  const std::string all = ".*";
  server.Get(all, handler).Post(all, handler).Put(all, handler).Patch(all, handler)
      .Delete(all, handler);
  server.Options(all, [](const httplib::Request&, httplib::Response& res) { res.status = 204; });
  // Errors cpp-httplib answers itself (body over the limit, malformed request) get Azure's body.
  server.set_error_handler(httplib::Server::HandlerWithResponse(
      [](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    AzureError error = res.status == 413
                           ? MakeError(413, "RequestBodyTooLarge",
                                       "the request body is over Azure's limit of 4 MiB")
                           : MakeError(res.status, res.status == 404 ? "InvalidUri" : "InvalidInput");
    HttpReply reply = ErrorReply(error);
    reply.status = res.status;
    ToHttplib(std::move(reply), res);
    return httplib::Server::HandlerResponse::Handled;
  }));
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    ToHttplib(ErrorReply(MakeError(500, "InternalError")), res);
  });

  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.host);
    if (port < 0) return Status::IOError("cannot bind " + options.host + " to a free port");
  } else if (!server.bind_to_port(options.host, port)) {
    return Status::IOError("cannot listen on " + options.host + ":" + std::to_string(port) +
                           " (in use? try --port 0 for any free port)");
  }

  std::thread signal_thread([&server, signals] {
    int sig = 0;
    sigwait(&signals, &sig);
    if (sig != SIGUSR1) {
      std::fprintf(stderr, "partkv serve: %s received, finishing requests in progress\n",
                   sig == SIGINT ? "SIGINT" : "SIGTERM");
    }
    server.stop();
  });

  const std::string account =
      options.accounts.empty() ? std::string(kDevAccountName) : options.accounts.front().first;
  std::string url = "http://" + options.host + ":" + std::to_string(port);
  std::printf("partkv serve: listening on %s/%s (store %s)\n", url.c_str(), account.c_str(),
              options.store_dir.c_str());
  if (options.accounts.empty()) {
    std::printf("connection string: DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;"
                "TableEndpoint=%s/%s;\n",
                kDevAccountName, kDevAccountKey, url.c_str(), kDevAccountName);
  }
  std::fflush(stdout);

  bool served = server.listen_after_bind();
  // Whether a signal or a failure ended listening, wake the signal thread so it can be joined.
  pthread_kill(signal_thread.native_handle(), SIGUSR1);
  signal_thread.join();
  service.reset();  // closes the store after every request has answered
  std::fprintf(stderr, "partkv serve: stopped\n");
  if (!served) return Status::IOError("the server stopped accepting connections unexpectedly");
  return Status::OK();
}

}  // namespace partkv::serve
