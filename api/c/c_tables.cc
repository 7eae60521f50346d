// partkv/c.h: a table's writes and reads of one entity, batches, stored access policies.

#include <cstring>

#include "api/c/c_internal.h"

using namespace partkv;         // NOLINT(build/namespaces): the C functions wrap partkv's API
using namespace partkv::c_api;  // NOLINT(build/namespaces)

namespace {

const WriteOptions& Writing(const partkv_write_options_t* options) {
  static const WriteOptions kDefaults;
  return options == nullptr ? kDefaults : options->options;
}

// Runs a single write and, on success, gives `entity` the ETag and Timestamp it was written with.
template <typename Write>
partkv_status_t* WriteEntity(partkv_table_t* table, partkv_entity_t* entity, Write&& write) {
  if (table == nullptr) return NullArgument("table");
  if (entity == nullptr) return NullArgument("entity");
  Result<WriteResult> written = write(*Unwrap(entity));
  if (!written.ok()) return Wrap(written.status());
  Unwrap(entity)->set_etag(std::move(written->etag));
  Unwrap(entity)->set_timestamp(written->timestamp);
  return nullptr;
}

}  // namespace

extern "C" {

// ---- Tables ----

void partkv_table_close(partkv_table_t* table) { delete table; }

const char* partkv_table_name(const partkv_table_t* table, size_t* length) {
  static const std::string kEmpty;
  return Lend(table == nullptr ? kEmpty : table->table.name(), length);
}

partkv_table_info_t* partkv_table_info(const partkv_table_t* table) {
  if (table == nullptr) return nullptr;
  return new partkv_table_info_t{table->table.info()};
}

partkv_status_t* partkv_table_insert(partkv_table_t* table, partkv_entity_t* entity,
                                     const partkv_write_options_t* options) {
  return WriteEntity(table, entity,
                     [&](const Entity& e) { return table->table.Insert(e, Writing(options)); });
}

partkv_status_t* partkv_table_replace(partkv_table_t* table, partkv_entity_t* entity,
                                      const char* if_match, size_t if_match_length,
                                      const partkv_write_options_t* options) {
  return WriteEntity(table, entity, [&](const Entity& e) {
    return table->table.Replace(e, MakeIfMatch(if_match, if_match_length), Writing(options));
  });
}

partkv_status_t* partkv_table_merge(partkv_table_t* table, partkv_entity_t* entity,
                                    const char* if_match, size_t if_match_length,
                                    const partkv_write_options_t* options) {
  return WriteEntity(table, entity, [&](const Entity& e) {
    return table->table.Merge(e, MakeIfMatch(if_match, if_match_length), Writing(options));
  });
}

partkv_status_t* partkv_table_insert_or_replace(partkv_table_t* table, partkv_entity_t* entity,
                                                const partkv_write_options_t* options) {
  return WriteEntity(table, entity, [&](const Entity& e) {
    return table->table.InsertOrReplace(e, Writing(options));
  });
}

partkv_status_t* partkv_table_insert_or_merge(partkv_table_t* table, partkv_entity_t* entity,
                                              const partkv_write_options_t* options) {
  return WriteEntity(table, entity, [&](const Entity& e) {
    return table->table.InsertOrMerge(e, Writing(options));
  });
}

partkv_status_t* partkv_table_delete(partkv_table_t* table, const char* partition_key,
                                     size_t partition_key_length, const char* row_key,
                                     size_t row_key_length, const char* if_match,
                                     size_t if_match_length,
                                     const partkv_write_options_t* options) {
  if (table == nullptr) return NullArgument("table");
  return Wrap(table->table.Delete(View(partition_key, partition_key_length),
                                  View(row_key, row_key_length),
                                  MakeIfMatch(if_match, if_match_length), Writing(options)));
}

partkv_status_t* partkv_table_get(const partkv_table_t* table, const char* partition_key,
                                  size_t partition_key_length, const char* row_key,
                                  size_t row_key_length, partkv_entity_t** entity) {
  if (table == nullptr) return NullArgument("table");
  if (entity == nullptr) return NullArgument("entity");
  Result<Entity> got =
      table->table.Get(View(partition_key, partition_key_length), View(row_key, row_key_length));
  if (!got.ok()) return Wrap(got.status());
  *entity = WrapEntity(new Entity(std::move(*got)));
  return nullptr;
}

partkv_status_t* partkv_table_get_by_attributes(const partkv_table_t* table,
                                                const partkv_entity_t* attributes,
                                                partkv_entity_t** entity) {
  if (table == nullptr) return NullArgument("table");
  if (attributes == nullptr) return NullArgument("attributes");
  if (entity == nullptr) return NullArgument("entity");
  Result<Entity> got = table->table.GetByAttributes(*Unwrap(attributes));
  if (!got.ok()) return Wrap(got.status());
  *entity = WrapEntity(new Entity(std::move(*got)));
  return nullptr;
}

partkv_status_t* partkv_table_compute_keys(const partkv_table_t* table,
                                           const partkv_entity_t* entity, partkv_op_t op,
                                           partkv_entity_t** result) {
  if (table == nullptr) return NullArgument("table");
  if (entity == nullptr) return NullArgument("entity");
  if (result == nullptr) return NullArgument("result");
  const int value = EnumValue(op);
  if (value < PARTKV_OP_INSERT || value > PARTKV_OP_DELETE) {
    return Wrap(Status::InvalidArgument("unknown operation " + std::to_string(value)));
  }
  Result<Entity> computed = table->table.ComputeKeys(*Unwrap(entity), static_cast<OpType>(value));
  if (!computed.ok()) return Wrap(computed.status());
  *result = WrapEntity(new Entity(std::move(*computed)));
  return nullptr;
}

uint32_t partkv_table_physical_partition_of(const partkv_table_t* table, const char* partition_key,
                                            size_t length) {
  return table == nullptr ? 0 : table->table.PhysicalPartitionOf(View(partition_key, length));
}

// ---- Batches ----

partkv_batch_t* partkv_batch_create(void) { return new partkv_batch_t; }
void partkv_batch_destroy(partkv_batch_t* batch) { delete batch; }
void partkv_batch_clear(partkv_batch_t* batch) {
  if (batch == nullptr) return;
  batch->batch.Clear();
  batch->results.clear();
}
size_t partkv_batch_size(const partkv_batch_t* batch) {
  return batch == nullptr ? 0 : batch->batch.size();
}

void partkv_batch_add(partkv_batch_t* batch, partkv_op_t op, const partkv_entity_t* entity,
                      const char* if_match, size_t if_match_length) {
  if (batch == nullptr || entity == nullptr) return;
  batch->results.clear();
  // An unknown operation is recorded as it is: Submit names it (InvalidArgument, its index).
  batch->batch.Add(static_cast<OpType>(EnumValue(op)), *Unwrap(entity),
                   MakeIfMatch(if_match, if_match_length));
}

void partkv_batch_add_delete(partkv_batch_t* batch, const char* partition_key,
                             size_t partition_key_length, const char* row_key,
                             size_t row_key_length, const char* if_match, size_t if_match_length) {
  if (batch == nullptr) return;
  batch->results.clear();
  batch->batch.Delete(std::string(View(partition_key, partition_key_length)),
                      std::string(View(row_key, row_key_length)),
                      MakeIfMatch(if_match, if_match_length));
}

partkv_status_t* partkv_table_submit(partkv_table_t* table, partkv_batch_t* batch,
                                     const partkv_write_options_t* options) {
  if (table == nullptr) return NullArgument("table");
  if (batch == nullptr) return NullArgument("batch");
  batch->results.clear();
  for (size_t i = 0; i < batch->batch.size(); ++i) {
    auto op = static_cast<uint8_t>(batch->batch.ops()[i].type);
    if (op > static_cast<uint8_t>(OpType::kDelete)) {
      return Wrap(Status::InvalidArgument("unknown operation " + std::to_string(op))
                      .WithFailedOp(static_cast<int>(i)));
    }
  }
  Result<std::vector<WriteResult>> written = table->table.Submit(batch->batch, Writing(options));
  if (!written.ok()) return Wrap(written.status());
  batch->results = std::move(*written);
  return nullptr;
}

const char* partkv_batch_etag(const partkv_batch_t* batch, size_t index, size_t* length) {
  static const std::string kEmpty;
  if (batch == nullptr || index >= batch->results.size()) return Lend(kEmpty, length);
  return Lend(batch->results[index].etag, length);
}

int64_t partkv_batch_timestamp(const partkv_batch_t* batch, size_t index) {
  if (batch == nullptr || index >= batch->results.size()) return 0;
  return batch->results[index].timestamp.ticks;
}

// ---- Stored access policies ----

partkv_access_policies_t* partkv_access_policies_create(void) {
  return new partkv_access_policies_t;
}
void partkv_access_policies_destroy(partkv_access_policies_t* policies) { delete policies; }

void partkv_access_policies_add(partkv_access_policies_t* policies, const char* id,
                                size_t id_length, int has_start, int64_t start, int has_expiry,
                                int64_t expiry, const char* permission, size_t permission_length) {
  if (policies == nullptr) return;
  AccessPolicy policy;
  policy.id = std::string(View(id, id_length));
  if (has_start != 0) policy.start = DateTime{start};
  if (has_expiry != 0) policy.expiry = DateTime{expiry};
  policy.permission = std::string(View(permission, permission_length));
  policies->policies.push_back(std::move(policy));
}

size_t partkv_access_policies_count(const partkv_access_policies_t* policies) {
  return policies == nullptr ? 0 : policies->policies.size();
}

const char* partkv_access_policies_get(const partkv_access_policies_t* policies, size_t index,
                                       size_t* id_length, int* has_start, int64_t* start,
                                       int* has_expiry, int64_t* expiry, const char** permission,
                                       size_t* permission_length) {
  if (policies == nullptr || index >= policies->policies.size()) {
    if (id_length != nullptr) *id_length = 0;
    return nullptr;
  }
  const AccessPolicy& policy = policies->policies[index];
  if (has_start != nullptr) *has_start = policy.start.has_value() ? 1 : 0;
  if (start != nullptr) *start = policy.start ? policy.start->ticks : 0;
  if (has_expiry != nullptr) *has_expiry = policy.expiry.has_value() ? 1 : 0;
  if (expiry != nullptr) *expiry = policy.expiry ? policy.expiry->ticks : 0;
  if (permission != nullptr) *permission = Lend(policy.permission, permission_length);
  return Lend(policy.id, id_length);
}

partkv_status_t* partkv_table_access_policies(const partkv_table_t* table,
                                              partkv_access_policies_t** policies) {
  if (table == nullptr) return NullArgument("table");
  if (policies == nullptr) return NullArgument("policies");
  Result<std::vector<AccessPolicy>> stored = table->table.AccessPolicies();
  if (!stored.ok()) return Wrap(stored.status());
  *policies = new partkv_access_policies_t{std::move(*stored)};
  return nullptr;
}

partkv_status_t* partkv_table_set_access_policies(partkv_table_t* table,
                                                  const partkv_access_policies_t* policies) {
  if (table == nullptr) return NullArgument("table");
  if (policies == nullptr) return NullArgument("policies");
  return Wrap(table->table.SetAccessPolicies(policies->policies));
}

}  // extern "C"
