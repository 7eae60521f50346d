// Key schemes on every backend (key_schemes.h).

#include "engine/key_schemes.h"

#include <tuple>

namespace partkv::engine {

Result<const Entity*> WithSchemeKeys(const KeySchemes& schemes, OpType type, const Entity& entity,
                                     std::optional<Entity>* computed) {
  bool need_pk = schemes.partition_key && entity.partition_key().empty();
  bool need_rk = schemes.row_key && entity.row_key().empty();
  if (!need_pk && !need_rk) return &entity;
  bool writes_new =
      type == OpType::kInsert || type == OpType::kInsertOrReplace || type == OpType::kInsertOrMerge;
  computed->emplace(entity);
  for (auto [need, scheme, what] : {std::tuple{need_pk, &schemes.partition_key, "PartitionKey"},
                                    std::tuple{need_rk, &schemes.row_key, "RowKey"}}) {
    if (!need) continue;
    const KeyStrategy& s = **scheme;
    if (!writes_new && s.kind() == KeyStrategy::Kind::kRandomSuffix) {
      return Status::InvalidArgument(std::string(what) + " scheme " + s.ToString() +
                                     " draws a random suffix: give the " + what +
                                     " of the existing entity to " + std::string(OpTypeName(type)));
    }
    auto key = s.Compute(entity);
    if (!key.ok()) return key.status().WithContext(std::string("computing the ") + what);
    if (std::string_view(what) == "PartitionKey") {
      (*computed)->set_partition_key(std::move(*key));
    } else {
      (*computed)->set_row_key(std::move(*key));
    }
  }
  return &**computed;
}

Result<Entity> GetByAttributes(const KeySchemes& schemes, std::string_view table,
                               const Entity& attributes, const GetFirst& get) {
  const auto& pk_scheme = schemes.partition_key;
  const auto& rk_scheme = schemes.row_key;
  if (!pk_scheme && !rk_scheme) {
    return Status::InvalidArgument("table '" + std::string(table) +
                                   "' has no key scheme to compute keys from attributes");
  }
  std::string rk = attributes.row_key();
  if (rk_scheme) {
    if (rk_scheme->kind() == KeyStrategy::Kind::kRandomSuffix) {
      return Status::InvalidArgument("a random-suffix RowKey cannot be recomputed from attributes");
    }
    PARTKV_ASSIGN_OR_RETURN(rk, rk_scheme->Compute(attributes));
  }
  std::vector<std::pair<std::string, std::string>> candidates;
  if (!pk_scheme) {
    candidates.emplace_back(attributes.partition_key(), rk);
  } else if (pk_scheme->kind() == KeyStrategy::Kind::kRandomSuffix) {
    // The suffix was drawn at write time: look in every shard.
    PARTKV_ASSIGN_OR_RETURN(std::string base, pk_scheme->ComputeBase(attributes));
    for (auto& pk : pk_scheme->ShardKeys(base)) candidates.emplace_back(std::move(pk), rk);
    auto found = get(candidates);
    if (found.ok() || !found.status().IsNotFound()) return found;
    return Status::NotFound("no entity with RowKey '" + rk + "' in any of the " +
                            std::to_string(pk_scheme->shard_count()) + " shards of '" + base + "'");
  } else {
    PARTKV_ASSIGN_OR_RETURN(std::string pk, pk_scheme->Compute(attributes));
    candidates.emplace_back(std::move(pk), rk);
  }
  return get(candidates);
}

}  // namespace partkv::engine
