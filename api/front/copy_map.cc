#include "api/front/copy_map.h"

#include <algorithm>

#include "engine/validation.h"
#include "nlohmann/json.hpp"

namespace partkv::copy {

std::string KeyText(std::string_view partition_key, std::string_view row_key) {
  return "(" + nlohmann::json(std::string(partition_key)).dump() + ", " +
         nlohmann::json(std::string(row_key)).dump() + ")";
}

namespace {

Status CheckScheme(const std::optional<KeyStrategy>& scheme, std::string_view option) {
  if (!scheme) return Status::OK();
  Status s = scheme->Validate();
  if (!s.ok())
    return Status::InvalidArgument(std::string(option) + ": " + std::string(s.message()));
  if (scheme->kind() == KeyStrategy::Kind::kRandomSuffix) {
    return Status::InvalidArgument(
        std::string(option) + ": " + scheme->ToString() +
        " draws a new key every time an entity is read, so a resumed copy and a verification "
        "could not find the entities it wrote; hash-suffix(FIELD,SOURCE,N) spreads keys as well "
        "and maps each entity to one key");
  }
  return Status::OK();
}

Status CheckName(const std::string& name, std::string_view option) {
  if (name.empty()) return Status::OK();
  Status s = engine::ValidatePropertyName(name, engine::Limits::AzureTable());
  if (!s.ok())
    return Status::InvalidArgument(std::string(option) + ": " + std::string(s.message()));
  return Status::OK();
}

}  // namespace

Result<CopyMapper> CopyMapper::Create(const CopyOptions& options) {
  CopyMapper mapper(options);
  mapper.options_.on_progress = nullptr;  // the mapper never calls it
  auto filter = Filter::Parse(options.filter);
  if (!filter.ok())
    return Status::InvalidArgument("filter: " + std::string(filter.status().message()));
  mapper.filter_ = *std::move(filter);
  for (const std::string& name : options.select) {
    PARTKV_RETURN_IF_ERROR(CheckName(name, "select"));
    if (name.empty()) return Status::InvalidArgument("select: an empty property name");
  }
  PARTKV_RETURN_IF_ERROR(CheckScheme(options.partition_key, "partition-key scheme"));
  PARTKV_RETURN_IF_ERROR(CheckScheme(options.row_key, "row-key scheme"));
  PARTKV_RETURN_IF_ERROR(CheckName(options.keep_partition_key_as, "keep-keys-as"));
  PARTKV_RETURN_IF_ERROR(CheckName(options.keep_row_key_as, "keep-keys-as"));
  PARTKV_RETURN_IF_ERROR(CheckName(options.keep_timestamp_as, "keep-timestamp-as"));
  const bool keep_pk = !options.keep_partition_key_as.empty();
  const bool keep_rk = !options.keep_row_key_as.empty();
  if (keep_pk != keep_rk) {
    return Status::InvalidArgument(
        "keep-keys-as: give two names, the PartitionKey's and the "
        "RowKey's");
  }
  if (keep_pk && !mapper.rekeys()) {
    return Status::InvalidArgument(
        "keep-keys-as: only with re-keying (a partition-key or row-key "
        "scheme): a copy that keeps the keys has them already");
  }
  std::vector<std::string> kept;
  for (const std::string* name :
       {&options.keep_partition_key_as, &options.keep_row_key_as, &options.keep_timestamp_as}) {
    if (name->empty()) continue;
    if (std::find(kept.begin(), kept.end(), *name) != kept.end()) {
      return Status::InvalidArgument("keep-as: the property name '" + *name + "' is given twice");
    }
    kept.push_back(*name);
  }
  if (options.streams == 0 || options.streams > CopyOptions::kMaxStreams) {
    return Status::InvalidArgument("streams: " + std::to_string(options.streams) +
                                   " is not within 1.." + std::to_string(CopyOptions::kMaxStreams));
  }
  if (options.max_batches_in_flight == 0) {
    return Status::InvalidArgument("max_batches_in_flight: must be at least 1");
  }
  if (options.max_group_rows == 0) {
    return Status::InvalidArgument("max_group_rows: must be at least 1");
  }
  if (options.resume && options.checkpoint.empty()) {
    return Status::InvalidArgument("resume: needs a checkpoint file");
  }
  mapper.select_ = options.select;
  std::sort(mapper.select_.begin(), mapper.select_.end());
  mapper.select_.erase(std::unique(mapper.select_.begin(), mapper.select_.end()),
                       mapper.select_.end());
  if (!mapper.select_.empty()) {
    mapper.read_select_ = mapper.select_;
    for (const auto* scheme : {&options.partition_key, &options.row_key}) {
      if (!*scheme) continue;
      for (const std::string& field : (*scheme)->fields()) {
        if (field == "PartitionKey" || field == "RowKey") continue;
        mapper.read_select_.push_back(field);
      }
    }
    std::sort(mapper.read_select_.begin(), mapper.read_select_.end());
    mapper.read_select_.erase(std::unique(mapper.read_select_.begin(), mapper.read_select_.end()),
                              mapper.read_select_.end());
  }
  return mapper;
}

Status CopyMapper::Map(const Entity& source, Entity* image) const {
  image->ClearProperties();
  image->set_timestamp(DateTime{});
  image->set_etag("");
  auto compute = [&](const std::optional<KeyStrategy>& scheme, const std::string& kept,
                     std::string_view what) -> Result<std::string> {
    if (!scheme) return kept;
    auto key = scheme->Compute(source);
    if (!key.ok()) {
      return Status::InvalidArgument(
          "source entity " + KeyText(source) + ": the " + std::string(what) + " scheme " +
          scheme->ToString() + " cannot compute its key: " + std::string(key.status().message()));
    }
    return key;
  };
  PARTKV_ASSIGN_OR_RETURN(std::string pk,
                          compute(options_.partition_key, source.partition_key(), "partition-key"));
  PARTKV_ASSIGN_OR_RETURN(std::string rk, compute(options_.row_key, source.row_key(), "row-key"));
  image->set_partition_key(std::move(pk));
  image->set_row_key(std::move(rk));
  if (select_.empty()) {
    image->ReserveProperties(source.property_count() + 3);
    for (const auto& [name, value] : source) image->AppendSorted(name, value);
  } else {
    for (const auto& [name, value] : source) {
      if (std::binary_search(select_.begin(), select_.end(), name)) {
        image->AppendSorted(name, value);
      }
    }
  }
  auto keep = [&](const std::string& name, Value value) -> Status {
    if (name.empty()) return Status::OK();
    if (image->Get(name) != nullptr) {
      return Status::InvalidArgument("source entity " + KeyText(source) +
                                     " already has a property '" + name +
                                     "', which the copy would set to keep its " +
                                     (value.type() == Type::kDateTime ? "Timestamp" : "keys"));
    }
    image->Set(name, std::move(value));
    return Status::OK();
  };
  PARTKV_RETURN_IF_ERROR(
      keep(options_.keep_partition_key_as, Value::String(source.partition_key())));
  PARTKV_RETURN_IF_ERROR(keep(options_.keep_row_key_as, Value::String(source.row_key())));
  PARTKV_RETURN_IF_ERROR(keep(options_.keep_timestamp_as, Value::DateTime(source.timestamp())));
  return Status::OK();
}

bool CopyMapper::Holds(const Entity& stored, const Entity& image) const {
  if (stored.partition_key() != image.partition_key() || stored.row_key() != image.row_key()) {
    return false;
  }
  if (options_.mode != CopyMode::kMerge) return stored.properties() == image.properties();
  for (const auto& [name, value] : image) {
    const Value* there = stored.Get(name);
    if (there == nullptr || !(*there == value)) return false;
  }
  return true;
}

std::string CopyMapper::Describe() const {
  nlohmann::json d;
  d["filter"] = filter_.Canonical();
  d["select"] = select_;
  d["mode"] = options_.mode == CopyMode::kInsert   ? "insert"
              : options_.mode == CopyMode::kUpsert ? "upsert"
                                                   : "merge";
  d["partition_key"] = options_.partition_key ? options_.partition_key->ToString() : "";
  d["row_key"] = options_.row_key ? options_.row_key->ToString() : "";
  d["keep_keys_as"] = {options_.keep_partition_key_as, options_.keep_row_key_as};
  d["keep_timestamp_as"] = options_.keep_timestamp_as;
  return d.dump();
}

}  // namespace partkv::copy

namespace partkv {

Status CheckCopyOptions(const CopyOptions& options) {
  return copy::CopyMapper::Create(options).status();
}

}  // namespace partkv
