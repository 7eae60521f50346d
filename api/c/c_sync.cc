// partkv/c_sync.h: sync options with the conflict and progress callbacks, SyncTable with its
// report, the conflict policies' names.

#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "api/c/c_internal.h"

// The handle of partkv/c_sync.h (the others are in c_internal.h).
struct partkv_sync_options_t {
  partkv::SyncOptions options;
  // The values set_direction and set_conflicts were given when they are none of the enums' (the
  // sync refuses them).
  std::optional<int> refused_direction;
  std::optional<int> refused_conflicts;
};

using namespace partkv;         // NOLINT(build/namespaces): the C functions wrap partkv's API
using namespace partkv::c_api;  // NOLINT(build/namespaces)

namespace {

// SyncOptions as the C API runs them: the report's list of conflicts (SyncReport::first_conflicts)
// has no place in partkv_sync_report_t, so none are kept; the conflict callback sees every one.
SyncOptions CDefaults() {
  SyncOptions options;
  options.max_listed = 0;
  return options;
}

const SyncOptions& OptionsOf(const partkv_sync_options_t* options) {
  static const SyncOptions kDefaults = CDefaults();
  return options == nullptr ? kDefaults : options->options;
}

// PARTKV_INVALID_ARGUMENT for a direction or policy the setters took that is none of the enums'
// values; NULL otherwise.
partkv_status_t* CheckEnums(const partkv_sync_options_t* options) {
  if (options == nullptr) return nullptr;
  if (options->refused_direction) {
    return Wrap(Status::InvalidArgument(
        "sync: direction " + std::to_string(*options->refused_direction) +
        " is not a sync direction (PARTKV_SYNC_BOTH, PARTKV_SYNC_PUSH or PARTKV_SYNC_PULL)"));
  }
  if (options->refused_conflicts) {
    return Wrap(Status::InvalidArgument(
        "sync: conflicts " + std::to_string(*options->refused_conflicts) +
        " is not a conflict policy (PARTKV_CONFLICTS_REMOTE_WINS, PARTKV_CONFLICTS_LOCAL_WINS, "
        "PARTKV_CONFLICTS_LAST_WRITER or PARTKV_CONFLICTS_REPORT)"));
  }
  return nullptr;
}

}  // namespace

extern "C" {

// ---- Direction and conflict policy ----

const char* partkv_conflict_policy_name(partkv_conflict_policy_t policy) {
  const int value = EnumValue(policy);
  if (value < PARTKV_CONFLICTS_REMOTE_WINS || value > PARTKV_CONFLICTS_REPORT) return "";
  return ConflictPolicyName(static_cast<ConflictPolicy>(value));
}

int partkv_conflict_policy_parse(const char* name, size_t length,
                                 partkv_conflict_policy_t* policy) {
  const std::optional<ConflictPolicy> parsed = ParseConflictPolicy(View(name, length));
  if (!parsed) return 0;
  if (policy != nullptr) *policy = static_cast<partkv_conflict_policy_t>(static_cast<int>(*parsed));
  return 1;
}

// ---- Sync options ----

partkv_sync_options_t* partkv_sync_options_create(void) {
  auto* options = new partkv_sync_options_t;
  options->options = CDefaults();
  return options;
}
void partkv_sync_options_destroy(partkv_sync_options_t* options) { delete options; }

void partkv_sync_options_set_direction(partkv_sync_options_t* options,
                                       partkv_sync_direction_t direction) {
  if (options == nullptr) return;
  const int value = EnumValue(direction);
  options->refused_direction.reset();
  switch (value) {
    case PARTKV_SYNC_BOTH:
      options->options.direction = SyncDirection::kBoth;
      break;
    case PARTKV_SYNC_PUSH:
      options->options.direction = SyncDirection::kPush;
      break;
    case PARTKV_SYNC_PULL:
      options->options.direction = SyncDirection::kPull;
      break;
    default:
      options->refused_direction = value;
      break;
  }
}

void partkv_sync_options_set_conflicts(partkv_sync_options_t* options,
                                       partkv_conflict_policy_t policy) {
  if (options == nullptr) return;
  const int value = EnumValue(policy);
  options->refused_conflicts.reset();
  switch (value) {
    case PARTKV_CONFLICTS_REMOTE_WINS:
      options->options.conflicts = ConflictPolicy::kRemoteWins;
      break;
    case PARTKV_CONFLICTS_LOCAL_WINS:
      options->options.conflicts = ConflictPolicy::kLocalWins;
      break;
    case PARTKV_CONFLICTS_LAST_WRITER:
      options->options.conflicts = ConflictPolicy::kLastWriter;
      break;
    case PARTKV_CONFLICTS_REPORT:
      options->options.conflicts = ConflictPolicy::kReport;
      break;
    default:
      options->refused_conflicts = value;
      break;
  }
}

void partkv_sync_options_set_overlap_seconds(partkv_sync_options_t* options, int64_t seconds) {
  if (options != nullptr) options->options.overlap = std::chrono::seconds(seconds);
}
void partkv_sync_options_set_reconcile(partkv_sync_options_t* options, int value) {
  if (options != nullptr) options->options.reconcile = value != 0;
}
void partkv_sync_options_set_state_table(partkv_sync_options_t* options, const char* name,
                                         size_t length) {
  if (options != nullptr) options->options.state_table = std::string(View(name, length));
}
void partkv_sync_options_set_conflicts_table(partkv_sync_options_t* options, const char* name,
                                             size_t length) {
  if (options != nullptr) options->options.conflicts_table = std::string(View(name, length));
}
void partkv_sync_options_set_max_batches_in_flight(partkv_sync_options_t* options, size_t batches) {
  if (options != nullptr) options->options.max_batches_in_flight = batches;
}

void partkv_sync_options_set_conflict_callback(partkv_sync_options_t* options,
                                               partkv_sync_conflict_fn callback, void* user_data) {
  if (options == nullptr) return;
  if (callback == nullptr) {
    options->options.on_conflict = nullptr;
    return;
  }
  options->options.on_conflict = [callback, user_data](const SyncConflict& c) {
    partkv_sync_conflict_t out;
    out.partition_key = Lend(c.partition_key, &out.partition_key_length);
    out.row_key = Lend(c.row_key, &out.row_key_length);
    out.local = c.local ? WrapEntity(&*c.local) : nullptr;
    out.remote = c.remote ? WrapEntity(&*c.remote) : nullptr;
    out.local_won = c.local_won ? 1 : 0;
    out.set_aside = c.set_aside ? 1 : 0;
    callback(&out, user_data);
  };
}

void partkv_sync_options_set_progress(partkv_sync_options_t* options,
                                      partkv_sync_progress_fn callback, void* user_data) {
  if (options == nullptr) return;
  if (callback == nullptr) {
    options->options.on_progress = nullptr;
    return;
  }
  options->options.on_progress = [callback, user_data](const SyncProgress& p) {
    partkv_sync_progress_t out;
    out.phase = p.phase == nullptr ? "" : p.phase;
    out.pushed = p.pushed;
    out.pulled = p.pulled;
    out.conflicts = p.conflicts;
    callback(&out, user_data);
  };
}

// ---- Syncing ----

partkv_status_t* partkv_sync_table(partkv_store_t* local, const char* table, size_t table_length,
                                   partkv_store_t* remote, const char* remote_table,
                                   size_t remote_table_length, const partkv_sync_options_t* options,
                                   partkv_sync_report_t* report, partkv_status_t** stopped) {
  if (local == nullptr) return NullArgument("local");
  if (remote == nullptr) return NullArgument("remote");
  if (report == nullptr) return NullArgument("report");
  if (stopped == nullptr) return NullArgument("stopped");
  if (partkv_status_t* refused = CheckEnums(options)) return refused;
  Result<SyncReport> synced =
      SyncTable(local->store, View(table, table_length), remote->store,
                View(remote_table, remote_table_length), OptionsOf(options));
  if (!synced.ok()) return Wrap(synced.status());
  const SyncReport& r = *synced;
  report->pushed = r.pushed;
  report->pushed_deletes = r.pushed_deletes;
  report->push_skipped = r.push_skipped;
  report->adopted = r.adopted;
  report->pulled = r.pulled;
  report->pulled_deletes = r.pulled_deletes;
  report->pull_unchanged = r.pull_unchanged;
  report->remote_keys_listed = r.remote_keys_listed;
  report->conflicts = r.conflicts;
  report->local_won = r.local_won;
  report->remote_won = r.remote_won;
  report->set_aside = r.set_aside;
  report->remote_requests = r.remote_requests;
  report->seeded = r.seeded ? 1 : 0;
  report->elapsed_micros = static_cast<int64_t>(r.elapsed.count());
  *stopped = Wrap(r.error);
  return nullptr;
}

}  // extern "C"
