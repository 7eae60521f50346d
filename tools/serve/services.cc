// The accounts of one `partkv serve` and the store of each (services.h).

#include "tools/serve/services.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "partkv/options.h"
#include "partkv/profile.h"
#include "partkv/store.h"
#include "tools/serve/auth.h"

namespace partkv::serve {
namespace {

namespace fs = std::filesystem;

// Each store gets an equal share of ServeOptions::memory_budget_bytes, but never less than this:
// below it RocksDB's block cache and write buffers thrash.
constexpr size_t kMinStoreBudget = 8u << 20;

// Azure's rule for storage account names: 3 to 24 lowercase letters and digits. It also makes
// the name safe as a directory name (no '/', no "..", no hidden file).
bool IsAccountName(std::string_view name) {
  if (name.size() < 3 || name.size() > 24) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); });
}

// Whether `dir` holds a partkv store, as Store::Open recognises one: RocksDB's CURRENT file, or
// the marker of a creation in progress or interrupted (engine/local/store_creation.h
// kCreationMarker; a persisted name, never renamed).
bool HoldsStore(const std::string& dir) {
  std::error_code ec;
  return fs::exists(fs::path(dir) / "CURRENT", ec) ||
         fs::exists(fs::path(dir) / "PARTKV-CREATING", ec);
}

}  // namespace

Result<std::unique_ptr<Services>> Services::Open(const ServeOptions& options) {
  std::vector<std::pair<std::string, std::string>> accounts = options.accounts;
  if (accounts.empty()) accounts.emplace_back(kDevAccountName, kDevAccountKey);
  PARTKV_RETURN_IF_ERROR(CheckProfileName(options.profile));
  if (options.store_dir.empty()) return Status::InvalidArgument("the store directory is empty");

  // Every account is checked before any store is opened or created.
  std::vector<Accounts> own(accounts.size());
  for (size_t i = 0; i < accounts.size(); ++i) {
    const auto& [name, key] = accounts[i];
    if (!IsAccountName(name)) {
      return Status::InvalidArgument("account name '" + name +
                                     "' is not 3 to 24 lowercase letters and digits (Azure's "
                                     "rule; each account's store is a directory of that name)");
    }
    for (size_t j = 0; j < i; ++j) {
      if (accounts[j].first == name) {
        return Status::InvalidArgument("account '" + name + "' is given twice");
      }
    }
    PARTKV_RETURN_IF_ERROR(own[i].Add(name, key));
  }

  const bool several = accounts.size() > 1;
  if (several && HoldsStore(options.store_dir)) {
    return Status::InvalidArgument(
        "'" + options.store_dir + "' is a partkv store, but with several accounts each account's " +
        "store is a directory below it (" + options.store_dir + "/NAME): serve that store with " +
        "one account, or give the accounts a directory that is not a store");
  }

  StoreOptions store_options;
  store_options.create_if_missing = true;
  store_options.profile = options.profile;
  store_options.throttling = options.throttling;
  store_options.low_priority_compactions = options.low_priority_compactions;
  store_options.memory_budget_bytes =
      std::max(kMinStoreBudget, options.memory_budget_bytes / accounts.size());
  ServiceOptions service_options;
  service_options.sync = options.sync;
  service_options.scan_time_budget = options.scan_time_budget;
  service_options.page_bytes = options.page_bytes;

  auto services = std::make_unique<Services>();
  for (size_t i = 0; i < accounts.size(); ++i) {
    const std::string& name = accounts[i].first;
    std::string dir = several ? (fs::path(options.store_dir) / name).string() : options.store_dir;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
      return Status::IOError("cannot create the store directory '" + dir + "' of account '" + name +
                             "': " + ec.message());
    }
    auto store = Store::Open(dir, store_options);
    if (!store.ok()) return store.status().WithContext("the store of account '" + name + "'");
    services->services_.push_back(
        std::make_unique<Service>(std::move(*store), std::move(own[i]), service_options));
    services->served_.push_back(Served{name, std::move(dir)});
  }
  return services;
}

const Service& Services::Route(const HttpRequest& request) const {
  std::string_view path = request.path;
  if (path.starts_with('/')) {
    path.remove_prefix(1);
    std::string_view account = path.substr(0, path.find('/'));
    for (size_t i = 0; i < served_.size(); ++i) {
      if (served_[i].account == account) return *services_[i];
    }
  }
  // The first account's service refuses it: the account is not its own (403), or the path names
  // none (400).
  return *services_.front();
}

}  // namespace partkv::serve
