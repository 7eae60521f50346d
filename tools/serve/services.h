// The accounts of one `partkv serve` and the store of each (docs/serve.md "Accounts").
//
// Every account has a store of its own, so a request, signed for its account, reaches only that
// account's tables, ACLs and service properties — $batch sub-requests included. With a single
// account (the development account by default) the store is `--store DIR` itself; with several,
// account NAME's store is DIR/NAME, and DIR must not itself be a store (Open refuses, naming
// it, rather than hide its tables).
//
// Thread-safety: built before the server starts, then only read; Route may be called from any
// number of threads.

#ifndef PARTKV_TOOLS_SERVE_SERVICES_H_
#define PARTKV_TOOLS_SERVE_SERVICES_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "partkv/result.h"
#include "tools/serve/http_types.h"
#include "tools/serve/server.h"
#include "tools/serve/service.h"

namespace partkv::serve {

class Services {
 public:
  // Opens (creating when missing) each account's store. Errors: a bad account (name or key), a
  // store that cannot be opened, DIR being a store while several accounts are served.
  static Result<std::unique_ptr<Services>> Open(const ServeOptions& options);

  // The service that answers `request` (whose `path` is set; its body need not be): the one of
  // the account its path names, or, for an unknown account or a path naming none, one that
  // refuses it (403 AuthenticationFailed, 400 InvalidUri) as Service::Admit does.
  const Service& Route(const HttpRequest& request) const;

  struct Served {
    std::string account;
    std::string store_dir;
  };
  // In the order the accounts were given (the development account when none was).
  const std::vector<Served>& served() const { return served_; }

 private:
  std::vector<Served> served_;
  std::vector<std::unique_ptr<Service>> services_;  // parallel to served_
};

}  // namespace partkv::serve

#endif  // PARTKV_TOOLS_SERVE_SERVICES_H_
