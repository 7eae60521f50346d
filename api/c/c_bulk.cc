// partkv/c.h: the bulk writer and its report.

#include <cstring>

#include "api/c/c_internal.h"

using namespace partkv;         // NOLINT(build/namespaces): the C functions wrap partkv's API
using namespace partkv::c_api;  // NOLINT(build/namespaces)

extern "C" {

// ---- Bulk writer ----

partkv_bulk_writer_options_t* partkv_bulk_writer_options_create(void) {
  return new partkv_bulk_writer_options_t;
}
void partkv_bulk_writer_options_destroy(partkv_bulk_writer_options_t* options) { delete options; }

void partkv_bulk_writer_options_set_mode(partkv_bulk_writer_options_t* options, partkv_op_t op) {
  // Create checks the mode; a value outside partkv_op_t becomes one it refuses.
  if (options == nullptr) return;
  const int value = EnumValue(op);
  options->options.mode = value >= PARTKV_OP_INSERT && value <= PARTKV_OP_DELETE
                              ? static_cast<OpType>(value)
                              : OpType::kDelete;
}
void partkv_bulk_writer_options_set_group_bounds(partkv_bulk_writer_options_t* options,
                                                 size_t max_rows, size_t max_bytes) {
  if (options == nullptr) return;
  options->options.max_group_rows = max_rows;
  options->options.max_group_bytes = max_bytes;
}
void partkv_bulk_writer_options_set_sync(partkv_bulk_writer_options_t* options, int value) {
  if (options != nullptr) options->options.write.sync = value != 0;
}
void partkv_bulk_writer_options_set_validate_before_writing(partkv_bulk_writer_options_t* options,
                                                            int value, const char* spill_directory,
                                                            size_t length) {
  if (options == nullptr) return;
  options->options.validate_before_writing = value != 0;
  options->options.spill_directory = std::string(View(spill_directory, length));
}
void partkv_bulk_writer_options_set_threads(partkv_bulk_writer_options_t* options, size_t threads) {
  if (options != nullptr) options->options.threads = threads;
}
void partkv_bulk_writer_options_set_max_batches_in_flight(partkv_bulk_writer_options_t* options,
                                                          size_t batches) {
  if (options != nullptr) options->options.max_batches_in_flight = batches;
}
void partkv_bulk_writer_options_set_retry_throttled(partkv_bulk_writer_options_t* options,
                                                    int max_attempts, int64_t base_delay_ms,
                                                    int64_t max_delay_ms,
                                                    int64_t max_total_wait_ms) {
  if (options == nullptr) return;
  options->options.retry_throttled =
      MakeRetryPolicy(max_attempts, base_delay_ms, max_delay_ms, max_total_wait_ms);
}

partkv_status_t* partkv_bulk_writer_create(const partkv_table_t* table,
                                           const partkv_bulk_writer_options_t* options,
                                           partkv_bulk_writer_t** writer) {
  if (table == nullptr) return NullArgument("table");
  if (writer == nullptr) return NullArgument("writer");
  static const BulkWriteOptions kDefaults;
  Result<BulkWriter> created =
      BulkWriter::Create(table->table, options == nullptr ? kDefaults : options->options);
  if (!created.ok()) return Wrap(created.status());
  *writer = new partkv_bulk_writer_t{std::move(*created)};
  return nullptr;
}

void partkv_bulk_writer_destroy(partkv_bulk_writer_t* writer) { delete writer; }

partkv_status_t* partkv_bulk_writer_add(partkv_bulk_writer_t* writer,
                                        const partkv_entity_t* entity) {
  if (writer == nullptr) return NullArgument("writer");
  if (entity == nullptr) return NullArgument("entity");
  return Wrap(writer->writer.Add(*Unwrap(entity)));
}

partkv_status_t* partkv_bulk_writer_add_json_lines(partkv_bulk_writer_t* writer, const char* lines,
                                                   size_t length) {
  if (writer == nullptr) return NullArgument("writer");
  return Wrap(writer->writer.AddJsonLines(View(lines, length)));
}

partkv_status_t* partkv_bulk_writer_flush(partkv_bulk_writer_t* writer) {
  if (writer == nullptr) return NullArgument("writer");
  return Wrap(writer->writer.Flush());
}

partkv_status_t* partkv_bulk_writer_finish(partkv_bulk_writer_t* writer) {
  if (writer == nullptr) return NullArgument("writer");
  return Wrap(writer->writer.Finish());
}

void partkv_bulk_writer_report(const partkv_bulk_writer_t* writer, partkv_bulk_report_t* out) {
  if (writer == nullptr || out == nullptr) return;
  const BulkWriteReport& r = writer->writer.report();
  out->rows_added = r.rows_added;
  out->lines_added = r.lines_added;
  out->rows_written = r.rows_written;
  out->groups_written = r.groups_written;
  out->batches_written = r.batches_written;
  out->throttled = r.throttled;
  out->throttled_wait_micros = r.throttled_wait_micros;
  out->has_bad_row = r.bad_row.has_value() ? 1 : 0;
  out->bad_row = r.bad_row.value_or(0);
  out->bad_line = r.bad_line;
  out->resume_line = r.resume_line;
  out->also_written_rows = 0;
  for (const BulkRowRange& range : r.also_written)
    out->also_written_rows += range.end - range.begin;
}

partkv_status_t* partkv_bulk_writer_error(const partkv_bulk_writer_t* writer) {
  if (writer == nullptr) return NullArgument("writer");
  return Wrap(writer->writer.report().error);
}

}  // extern "C"
