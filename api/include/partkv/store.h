// partkv::Store — one partkv store: a directory holding one RocksDB database with its catalog of
// tables. The entry point of the library.
//
//   auto store = partkv::Store::Open("/var/lib/app/data");
//   if (!store.ok()) { ...store.status()... }
//   (void)store->CreateTable("Orders");
//   auto orders = store->OpenTable("Orders");
//
// A Store is a move-only handle. All methods are thread-safe. The engine stays open while the
// Store or any Table obtained from it lives, and closes when the last of them is destroyed.
// One process at a time may open a store, and that process once: a second Open of a store held
// open — by another process, or by a live Store or Table handle of this one — fails with Busy
// (share the handle instead).
//
// The on-disk format carries a version checked at open: a store written by a newer format is
// refused with InvalidArgument naming both versions (docs/format.md).

#ifndef PARTKV_STORE_H_
#define PARTKV_STORE_H_

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "partkv/capabilities.h"
#include "partkv/options.h"
#include "partkv/result.h"
#include "partkv/table.h"

namespace partkv::engine {
class StoreBackend;
}  // namespace partkv::engine

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

class FrontAccess;

class Store {
 public:
  // Opens (or, with options.create_if_missing, creates) the store in directory `path`.
  // InvalidArgument when `path` holds something that is not a partkv store or a store of an
  // unknown format version; Busy when it is already open (in another process or this one);
  // IOError on file-system errors.
  //
  // When `path` is an Azure Storage connection string or a table endpoint URL with a SAS
  // (docs/remote.md: UseDevelopmentStorage=true; AccountName=…;AccountKey=…;
  // TableEndpoint=…;SharedAccessSignature=…; https://ACCOUNT.table.core.windows.net/?sv=…&sig=…),
  // opens a remote store instead: Azure Table Storage, Azure Cosmos DB for Table, Azurite or
  // `partkv serve`, through options.remote. Nothing is sent until the first call; a bad location
  // is InvalidArgument naming the setting (never showing a key or signature). The directory
  // options (create_if_missing, error_if_exists, memory budget, write stall) do not apply;
  // options.throttling is refused (the service throttles by itself).
  static Result<Store> Open(std::string_view path, const StoreOptions& options = {});

  // Whether Open takes `location` for a remote store (a connection string or an endpoint URL)
  // rather than a directory: it starts with http:// or https://, or one of its ';'-separated
  // segments is a connection-string setting (`AccountName=…`, `TableEndpoint=…`, …; the rules
  // are docs/remote.md's). "./AccountName=x" names a directory.
  static bool IsRemoteLocation(std::string_view location);
  // `location` with its secrets hidden, for messages and logs: the values of AccountKey and
  // SharedAccessSignature, every `sig` of a URL's query and a URL's user information become
  // "<redacted>". A key given without its setting name cannot be recognised: show no text that
  // failed to parse as a location.
  static std::string RedactLocation(std::string_view location);

  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  ~Store();

  // Creates a table. InvalidArgument for a bad name (Azure's rule: ^[A-Za-z][A-Za-z0-9]{2,62}$,
  // not "tables") or partition count; AlreadyExists when a table of that name (compared
  // case-insensitively) exists.
  Status CreateTable(std::string_view name, const TableOptions& options = {});
  // Changes what TableSettings sets of an existing table (its change feed, its time to live),
  // durably; a field left unset stays as it is. A feed turned on starts at the next change; one
  // turned on again after being off goes on from its last sequence number, with every older
  // position Trimmed, since the changes made while it was off are not in it (a reader learns it
  // missed them rather than missing them silently). A feed turned off records nothing more and
  // cannot be read; its entries go when it is turned on again or the table is dropped. A new
  // time to live applies at once to every entity, stored before or after. NotFound when there is
  // no such table; InvalidArgument for a negative retention or a time to live below -1.
  Status SetTableOptions(std::string_view name, const TableSettings& settings);
  // Drops a table and all its entities. NotFound when there is none.
  Status DropTable(std::string_view name);
  // Every table, sorted by name.
  Result<std::vector<TableInfo>> ListTables() const;
  // A handle on an existing table (name compared case-insensitively). NotFound when missing.
  Result<Table> OpenTable(std::string_view name) const;
  // The same, with the key schemes the handle uses (OpenTableOptions: required for schemes on a
  // remote table; on a local one they must match the catalog's).
  Result<Table> OpenTable(std::string_view name, const OpenTableOptions& options) const;

  // What this store's backend can do (partkv/capabilities.h).
  const StoreCapabilities& capabilities() const;

  // The service properties document (Azure's StorageServiceProperties XML, as `partkv serve`
  // keeps it): stored durably as given and returned unchanged; "" when never set.
  Result<std::string> ServiceProperties() const;
  // Replaces the service properties document. InvalidArgument above 256 KiB.
  Status SetServiceProperties(std::string_view document);
  // Replication statistics (Azure's Get Table Service Stats). A local store is one copy: every
  // acknowledged write is readable at once, so it answers "live" with the current second. A
  // remote store asks the service's secondary location, as Azure's SDKs do (Azure answers there
  // only, for read-access geo-redundant accounts); docs/remote.md.
  Result<ServiceStatistics> ServiceStats() const;

  // Flushes every memtable to disk (for benchmarks and tools; never needed for durability).
  Status Flush();
  // Waits until no flush or compaction is pending or running in the store, or `timeout` passes:
  // for benchmarks and tools that measure a settled store (sizes on disk, LSM shape, reads
  // without compactions beside them); never needed for correctness. Polls RocksDB's counters
  // every 10 ms, so it returns up to 10 ms after the work ends. OK once the store is quiet; Busy
  // when `timeout` passed first (writes meanwhile make more work, so it may never be quiet).
  Status AwaitBackgroundWork(std::chrono::milliseconds timeout);
  // The directory given to Open; for a remote store, its endpoint URL (no key, no signature).
  const std::string& path() const;

  // After a write failed with IOError because the storage engine stopped taking writes (a full
  // disk, a failed flush), waits until the store takes writes again or `timeout` passes. The
  // store recovers by itself once the cause is gone; from a full disk, once enough space is free
  // (it checks every few seconds), with no reopen. OK at once when nothing stops writes; IOError
  // naming the error when `timeout` passed first. A write that failed may or may not have been
  // applied: retry it after this returns OK.
  Status AwaitWritable(std::chrono::milliseconds timeout);

 private:
  friend class FrontAccess;
  // Hidden: no engine type is part of the library's ABI.
  __attribute__((visibility("hidden"))) explicit Store(
      std::shared_ptr<engine::StoreBackend> backend);
  std::shared_ptr<engine::StoreBackend> backend_;
};

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_STORE_H_
