// partkv/c_copy.h: copy options, CopyTable with its report, VerifyCopy with its report.

#include <chrono>
#include <string>
#include <utility>

#include "api/c/c_internal.h"

using namespace partkv;         // NOLINT(build/namespaces): the C functions wrap partkv's API
using namespace partkv::c_api;  // NOLINT(build/namespaces)

namespace {

const CopyOptions& OptionsOf(const partkv_copy_options_t* options) {
  static const CopyOptions kDefaults;
  return options == nullptr ? kDefaults : options->options;
}

// PARTKV_INVALID_ARGUMENT for a mode set_mode took that a copy does not do; NULL otherwise.
partkv_status_t* CheckMode(const partkv_copy_options_t* options) {
  if (options == nullptr || options->refused_mode < 0) return nullptr;
  return Wrap(Status::InvalidArgument(
      "mode: operation " + std::to_string(options->refused_mode) +
      " is not one a copy writes with (PARTKV_OP_INSERT, PARTKV_OP_INSERT_OR_REPLACE or "
      "PARTKV_OP_INSERT_OR_MERGE)"));
}

// `list` is the int a C caller passed (EnumValue): passing the enum on by value would load it.
const std::vector<CopyKey>* ListOf(const partkv_verify_report_t* report, int list) {
  if (report == nullptr) return nullptr;
  switch (list) {
    case PARTKV_VERIFY_MISSING:
      return &report->report.first_missing;
    case PARTKV_VERIFY_MISSING_SOURCE:
      return &report->report.first_missing_source;
    case PARTKV_VERIFY_EXTRA:
      return &report->report.first_extra;
    case PARTKV_VERIFY_DIFFERENT:
      return &report->report.first_different;
    default:
      return nullptr;
  }
}

}  // namespace

extern "C" {

// ---- Copy options ----

partkv_copy_options_t* partkv_copy_options_create(void) { return new partkv_copy_options_t; }
void partkv_copy_options_destroy(partkv_copy_options_t* options) { delete options; }

void partkv_copy_options_set_filter(partkv_copy_options_t* options, const char* filter,
                                    size_t length) {
  if (options != nullptr) options->options.filter = std::string(View(filter, length));
}
void partkv_copy_options_add_select(partkv_copy_options_t* options, const char* name,
                                    size_t length) {
  if (options != nullptr) options->options.select.emplace_back(View(name, length));
}
void partkv_copy_options_clear_select(partkv_copy_options_t* options) {
  if (options != nullptr) options->options.select.clear();
}

void partkv_copy_options_set_mode(partkv_copy_options_t* options, partkv_op_t op) {
  if (options == nullptr) return;
  const int value = EnumValue(op);
  options->refused_mode = -1;
  switch (value) {
    case PARTKV_OP_INSERT:
      options->options.mode = CopyMode::kInsert;
      break;
    case PARTKV_OP_INSERT_OR_REPLACE:
      options->options.mode = CopyMode::kUpsert;
      break;
    case PARTKV_OP_INSERT_OR_MERGE:
      options->options.mode = CopyMode::kMerge;
      break;
    default:
      options->refused_mode = value;
      break;
  }
}

void partkv_copy_options_set_partition_key_scheme(partkv_copy_options_t* options,
                                                  const partkv_key_strategy_t* strategy) {
  if (options == nullptr) return;
  options->options.partition_key =
      strategy == nullptr ? std::nullopt : std::optional<KeyStrategy>(strategy->strategy);
}
void partkv_copy_options_set_row_key_scheme(partkv_copy_options_t* options,
                                            const partkv_key_strategy_t* strategy) {
  if (options == nullptr) return;
  options->options.row_key =
      strategy == nullptr ? std::nullopt : std::optional<KeyStrategy>(strategy->strategy);
}

void partkv_copy_options_set_keep_keys_as(partkv_copy_options_t* options,
                                          const char* partition_key_name,
                                          size_t partition_key_length, const char* row_key_name,
                                          size_t row_key_length) {
  if (options == nullptr) return;
  options->options.keep_partition_key_as =
      std::string(View(partition_key_name, partition_key_length));
  options->options.keep_row_key_as = std::string(View(row_key_name, row_key_length));
}
void partkv_copy_options_set_keep_timestamp_as(partkv_copy_options_t* options, const char* name,
                                               size_t length) {
  if (options != nullptr) options->options.keep_timestamp_as = std::string(View(name, length));
}

void partkv_copy_options_set_streams(partkv_copy_options_t* options, uint32_t streams) {
  if (options != nullptr) options->options.streams = streams;
}
void partkv_copy_options_set_max_batches_in_flight(partkv_copy_options_t* options, size_t batches) {
  if (options != nullptr) options->options.max_batches_in_flight = batches;
}
void partkv_copy_options_set_max_group_rows(partkv_copy_options_t* options, size_t rows) {
  if (options != nullptr) options->options.max_group_rows = rows;
}
void partkv_copy_options_set_retry_throttled(partkv_copy_options_t* options, int max_attempts,
                                             int64_t base_delay_ms, int64_t max_delay_ms,
                                             int64_t max_total_wait_ms) {
  if (options == nullptr) return;
  options->options.retry_throttled =
      MakeRetryPolicy(max_attempts, base_delay_ms, max_delay_ms, max_total_wait_ms);
}

void partkv_copy_options_set_checkpoint(partkv_copy_options_t* options, const char* path,
                                        size_t length) {
  if (options != nullptr) options->options.checkpoint = std::string(View(path, length));
}
void partkv_copy_options_set_resume(partkv_copy_options_t* options, int value) {
  if (options != nullptr) options->options.resume = value != 0;
}
void partkv_copy_options_set_identity(partkv_copy_options_t* options, const char* text,
                                      size_t length) {
  if (options != nullptr) options->options.identity = std::string(View(text, length));
}

void partkv_copy_options_set_progress(partkv_copy_options_t* options,
                                      partkv_copy_progress_fn callback, void* user_data) {
  if (options == nullptr) return;
  if (callback == nullptr) {
    options->options.on_progress = nullptr;
    return;
  }
  options->options.on_progress = [callback, user_data](const CopyProgress& p) {
    partkv_copy_progress_t out;
    out.rows_read = p.rows_read;
    out.rows_written = p.rows_written;
    out.has_source_rows_estimate = p.source_rows_estimate.has_value() ? 1 : 0;
    out.source_rows_estimate = p.source_rows_estimate.value_or(0);
    out.units_done = p.units_done;
    out.units = p.units;
    callback(&out, user_data);
  };
}

// ---- Copying ----

partkv_status_t* partkv_copy_table(const partkv_table_t* from, const partkv_table_t* to,
                                   const partkv_copy_options_t* options,
                                   partkv_copy_report_t* report, partkv_status_t** stopped) {
  if (from == nullptr) return NullArgument("from");
  if (to == nullptr) return NullArgument("to");
  if (report == nullptr) return NullArgument("report");
  if (stopped == nullptr) return NullArgument("stopped");
  if (partkv_status_t* refused = CheckMode(options)) return refused;
  Result<CopyReport> copied = CopyTable(from->table, to->table, OptionsOf(options));
  if (!copied.ok()) return Wrap(copied.status());
  const CopyReport& r = *copied;
  report->rows_read = r.rows_read;
  report->rows_written = r.rows_written;
  report->resent = r.resent;
  report->units_skipped = r.units_skipped;
  report->rows_failed = r.rows_failed;
  report->rekey_collisions = r.rekey_collisions;
  report->throttled = r.throttled;
  report->throttled_wait_micros = r.throttled_wait_micros;
  report->service_throttled = r.service_throttled;
  report->retry_wait_micros = r.retry_wait_micros;
  report->probes = r.probes;
  report->units = r.units;
  report->streams = r.streams;
  report->elapsed_micros = static_cast<int64_t>(r.elapsed.count());
  *stopped = Wrap(r.error);
  return nullptr;
}

// ---- Verifying ----

partkv_status_t* partkv_verify_copy(const partkv_table_t* from, const partkv_table_t* to,
                                    const partkv_copy_options_t* options, size_t max_listed,
                                    partkv_verify_report_t** report) {
  if (from == nullptr) return NullArgument("from");
  if (to == nullptr) return NullArgument("to");
  if (report == nullptr) return NullArgument("report");
  if (partkv_status_t* refused = CheckMode(options)) return refused;
  Result<VerifyReport> verified =
      VerifyCopy(from->table, to->table, OptionsOf(options), max_listed);
  if (!verified.ok()) return Wrap(verified.status());
  *report = new partkv_verify_report_t{*std::move(verified)};
  return nullptr;
}

void partkv_verify_report_destroy(partkv_verify_report_t* report) { delete report; }

void partkv_verify_report_counts(const partkv_verify_report_t* report,
                                 partkv_verify_counts_t* out) {
  if (report == nullptr || out == nullptr) return;
  const VerifyReport& r = report->report;
  out->source_rows = r.source_rows;
  out->destination_rows = r.destination_rows;
  out->missing = r.missing;
  out->extra = r.extra;
  out->different = r.different;
}

int partkv_verify_report_clean(const partkv_verify_report_t* report) {
  return report != nullptr && report->report.clean() ? 1 : 0;
}

size_t partkv_verify_report_listed(const partkv_verify_report_t* report,
                                   partkv_verify_list_t list) {
  const std::vector<CopyKey>* keys = ListOf(report, EnumValue(list));
  return keys == nullptr ? 0 : keys->size();
}

const char* partkv_verify_report_key(const partkv_verify_report_t* report,
                                     partkv_verify_list_t list, size_t index,
                                     size_t* partition_key_length, const char** row_key,
                                     size_t* row_key_length) {
  const std::vector<CopyKey>* keys = ListOf(report, EnumValue(list));
  if (keys == nullptr || index >= keys->size()) return nullptr;
  const CopyKey& key = (*keys)[index];
  if (row_key != nullptr) *row_key = Lend(key.row_key, row_key_length);
  return Lend(key.partition_key, partition_key_length);
}

}  // extern "C"
