// partkv::SyncTable — two-way sync of a local table with a remote table (docs/sync.md).
//
//   partkv::SyncOptions options;
//   options.conflicts = partkv::ConflictPolicy::kReport;
//   auto report = partkv::SyncTable(local_store, "Orders", remote_store, "Orders", options);
//   if (!report.ok()) { ...report.status()... }     // the sync never started
//   if (!report->error.ok()) { ...it stopped; the next sync carries on from its checkpoints... }
//
// A sync pushes, then pulls (SyncOptions::direction):
//   - Push sends the local table's changes since the last acknowledged push, read from its change
//     feed (partkv/changes.h; the local table must keep one), coalesced per entity, in batches of
//     up to 100 per PartitionKey. Each write is conditioned on the ETag last seen from the remote
//     for that entity (an Insert when it was never seen), so a concurrent remote change fails the
//     write and is a conflict, never overwritten unseen. The changes a sync itself wrote
//     (Change::origin kSync) are not sent back. The first push of a pair sends every entity of
//     the table, then follows the feed; so does a push whose position retention trimmed.
//   - Pull reads the remote entities whose Timestamp is at or after the newest Timestamp the last
//     pull saw, less `overlap` (Azure Table has no change feed: the overlap covers the service's
//     clocks and the writes still in flight when the last pull read; docs/sync.md has the
//     argument), and writes those it has not seen into the local table with origin kSync.
//   - Remote deletes cannot be seen by Timestamp: with `reconcile`, the pull also lists the remote
//     table's keys and treats an entity the pair had synced but the remote no longer has as
//     deleted there (and fetches any remote entity the pair has never seen).
//
// State. Per pair (local table, remote location and table) the sync keeps, in the local store's
// table `state_table`: a checkpoint (the feed position acknowledged, the pull's high-water
// Timestamp) and, per entity synced, the remote ETag and the local ETag of the version both
// sides agree on. Each is written after the remote acknowledged (or after the local write a pull
// made), so a sync killed at any point resumes from the last checkpoint and re-sends at most what
// was in flight; a re-sent write that finds its own result in place (the same properties) is
// adopted, not counted as a conflict. Repeating a sync with nothing to do changes nothing.
//
// Conflicts. An entity changed on both sides since they last agreed (or inserted on both, or
// changed on one side and deleted on the other) is resolved by `conflicts`:
//   kRemoteWins  the remote version is written locally;
//   kLocalWins   the local version is written to the remote (conditioned on the version seen);
//   kLastWriter  the later of the local change's time and the remote Timestamp wins (two clocks:
//                docs/sync.md);
//   kReport      the remote version is written locally and the local version is set aside in
//                the local table `conflicts_table`, under its PartitionKey and the RowKey
//                "<RowKey>@<time>~<n>" (so a second conflict keeps both), with the properties
//                SyncConflictSide, SyncConflictTime and SyncRemoteETag added: nothing is lost.
// Whatever the policy, each conflict is counted, passed to `on_conflict` and, with the losing
// version, listed in the report (up to max_listed).
//
// Failures. Throttling and transient faults are retried by the remote store's client
// (RemoteOptions::retry). A failure that remains stops the sync: SyncReport::error names it and
// the checkpoints say how far it got.
//
// Thread-safety: one sync per pair at a time (a second one is refused with Busy while the first
// runs in this process); the local table may be written by the application meanwhile.
#ifndef PARTKV_SYNC_H_
#define PARTKV_SYNC_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "partkv/entity.h"
#include "partkv/result.h"
#include "partkv/status.h"
#include "partkv/store.h"

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)

namespace partkv {

enum class SyncDirection : uint8_t {
  kBoth = 0,  // push, then pull
  kPush = 1,
  kPull = 2,
};

enum class ConflictPolicy : uint8_t {
  kRemoteWins = 0,
  kLocalWins = 1,
  kLastWriter = 2,
  kReport = 3,
};
// "remote-wins", "local-wins", "last-writer", "report"; Parse returns nullopt for another name.
const char* ConflictPolicyName(ConflictPolicy policy);
std::optional<ConflictPolicy> ParseConflictPolicy(std::string_view name);

// One conflict and how it was resolved.
struct SyncConflict {
  std::string partition_key;
  std::string row_key;
  // Each side's version when the conflict was found; none when that side had deleted it.
  std::optional<Entity> local;
  std::optional<Entity> remote;
  bool local_won = false;  // else the remote version won
  bool set_aside = false;  // the losing local version was kept in the conflicts table
};

// What a sync has done so far (SyncOptions::on_progress).
struct SyncProgress {
  const char* phase = "";  // "push", "pull" or "reconcile"
  uint64_t pushed = 0;
  uint64_t pulled = 0;
  uint64_t conflicts = 0;
};

struct SyncOptions {
  SyncDirection direction = SyncDirection::kBoth;
  ConflictPolicy conflicts = ConflictPolicy::kReport;
  // Subtracted from the pull's high-water Timestamp (above); 0 .. one year.
  std::chrono::seconds overlap{300};
  // List the remote table's keys to find remote deletes (above). Costs one query page per 1,000
  // remote entities, their keys only.
  bool reconcile = false;
  // The local tables that hold the pairs' state and the set-aside versions, created when missing.
  // "" for conflicts_table means the local table's name followed by "Conflicts".
  std::string state_table = "PartkvSync";
  std::string conflicts_table;
  // The batches a push keeps in flight (1..64).
  size_t max_batches_in_flight = 4;
  // Called for each conflict once resolved, and after each page pushed or pulled, one call at a
  // time, on the sync's thread.
  std::function<void(const SyncConflict&)> on_conflict;
  std::function<void(const SyncProgress&)> on_progress;
  // The conflicts listed in SyncReport::first_conflicts.
  size_t max_listed = 10;
};

struct SyncReport {
  // Push: entities written (inserted, replaced) and deleted on the remote.
  uint64_t pushed = 0;
  uint64_t pushed_deletes = 0;
  // Local changes not sent: written by a sync (origin kSync), or superseded in the same feed page.
  uint64_t push_skipped = 0;
  // Writes whose result was already in place (a re-send after a lost answer or a crash).
  uint64_t adopted = 0;
  // Pull: entities written and deleted locally.
  uint64_t pulled = 0;
  uint64_t pulled_deletes = 0;
  // Remote entities read again inside the overlap (or the same on both sides), not written.
  uint64_t pull_unchanged = 0;
  uint64_t remote_keys_listed = 0;  // by reconcile
  // Conflicts, and how many each side won; set_aside counts local versions kept (kReport).
  uint64_t conflicts = 0;
  uint64_t local_won = 0;
  uint64_t remote_won = 0;
  uint64_t set_aside = 0;
  std::vector<SyncConflict> first_conflicts;
  // Requests sent to the remote (queries, batches, single reads and writes; retries not counted).
  uint64_t remote_requests = 0;
  bool seeded = false;  // the push sent the whole table (first sync, or a trimmed position)
  std::chrono::microseconds elapsed{0};
  // OK when the sync finished; else why it stopped.
  Status error;
};

// Syncs table `table` of the local store `local` with table `remote_table` of `remote` (any
// store: a remote location, or another local store). Returns an error before anything is sent
// for bad options (InvalidArgument naming the option), a local table without a change feed
// (InvalidArgument) or a missing table (NotFound); otherwise a report whose `error` says whether
// the sync finished.
Result<SyncReport> SyncTable(Store& local, std::string_view table, Store& remote,
                             std::string_view remote_table, const SyncOptions& options = {});

}  // namespace partkv

#pragma GCC visibility pop

#endif  // PARTKV_SYNC_H_
