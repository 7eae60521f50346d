#include "engine/local/row_sealer.h"

#include <bit>
#include <cstring>
#include <optional>

#include "engine/local/table_handle.h"
#include "engine/profile_spec.h"
#include "engine/validation.h"
#include "xxhash.h"

namespace partkv::engine {
namespace {

void PutFixed64(uint64_t v, std::string* out) {
  char buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>(v >> (8 * i));
  out->append(buf, 8);
}

void PutBytes(std::string_view bytes, std::string* out) {
  PutVarint(bytes.size(), out);
  out->append(bytes);
}

// Reading: kPartial when the data ends inside the field, kBad when it cannot be a field.
using Read = VarintRead;

Read GetFixed64(std::string_view data, size_t* pos, uint64_t* v) {
  if (data.size() - *pos < 8) return Read::kPartial;
  uint64_t result = 0;
  for (int i = 0; i < 8; ++i) {
    result |= static_cast<uint64_t>(static_cast<uint8_t>(data[*pos + i])) << (8 * i);
  }
  *pos += 8;
  *v = result;
  return Read::kOk;
}

Read GetBytes(std::string_view data, size_t* pos, std::string_view* bytes) {
  uint64_t n = 0;
  if (Read r = GetVarint(data, pos, &n); r != Read::kOk) return r;
  if (n > data.size() - *pos) return Read::kPartial;
  *bytes = data.substr(*pos, n);
  *pos += n;
  return Read::kOk;
}

// The header EncodeValue writes for ValueHeader{}: Seal checks that EncodeValue starts with it
// before cutting it off, so that a change of the value format fails loudly here.
const std::string& ZeroHeader() {
  static const std::string header = [] {
    std::string h;
    AppendValueHeader(ValueHeader{}, &h);
    return h;
  }();
  return header;
}

}  // namespace

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

VarintRead GetVarint(std::string_view data, size_t* pos, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63; shift += 7) {
    if (*pos >= data.size()) return VarintRead::kPartial;
    auto byte = static_cast<uint8_t>(data[(*pos)++]);
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return VarintRead::kOk;
    }
  }
  return VarintRead::kBad;
}

void AppendValueHeader(const ValueHeader& header, std::string* out) {
  out->push_back(static_cast<char>(kValueFormatV1));
  PutFixed64(static_cast<uint64_t>(header.timestamp_ticks), out);
  PutVarint(header.etag_version, out);
}

Status RowSealer::Seal(const Entity& given, std::string* out) const {
  std::optional<Entity> computed;
  PARTKV_ASSIGN_OR_RETURN(const Entity* keyed, table_->WithSchemeKeys(type_, given, &computed));
  const Entity& entity = *keyed;
  const SharedTable& data = table_->data();
  size_t size = 0;
  PARTKV_RETURN_IF_ERROR(ValidateEntity(entity, data.limits(), &size));
  const double cost = WriteCost(data.profile(), entity);

  thread_local std::string value;
  value.clear();
  EncodeValue(ValueHeader{}, entity, &value);
  const std::string& zero = ZeroHeader();
  if (std::string_view(value).substr(0, zero.size()) != zero) {
    return Status::Corruption("the value encoding does not start with its v1 header");
  }
  const size_t start = out->size();
  PutBytes(entity.partition_key(), out);
  PutBytes(entity.row_key(), out);
  PutVarint(size, out);
  PutFixed64(std::bit_cast<uint64_t>(cost), out);
  PutBytes(std::string_view(value).substr(zero.size()), out);
  PutFixed64(XXH3_64bits_withSeed(out->data() + start, out->size() - start, seed_), out);
  return Status::OK();
}

Result<bool> RowSealer::Parse(std::string_view data, SealedRow* row) const {
  size_t pos = 0;
  uint64_t size = 0, cost = 0, seal = 0;
  SealedRow r;
  Read read = GetBytes(data, &pos, &r.partition_key_);
  if (read == Read::kOk) read = GetBytes(data, &pos, &r.row_key_);
  if (read == Read::kOk) read = GetVarint(data, &pos, &size);
  if (read == Read::kOk) read = GetFixed64(data, &pos, &cost);
  if (read == Read::kOk) read = GetBytes(data, &pos, &r.body_);
  const size_t sealed = pos;
  if (read == Read::kOk) read = GetFixed64(data, &pos, &seal);
  if (read == Read::kPartial) return false;
  if (read == Read::kBad || seal != XXH3_64bits_withSeed(data.data(), sealed, seed_)) {
    return Status::Corruption("a sealed row is damaged or was not sealed for this write");
  }
  r.size_ = size;
  r.cost_ = std::bit_cast<double>(cost);
  r.bytes_ = data.substr(0, pos);
  r.sealer_ = seed_;
  *row = r;
  return true;
}

}  // namespace partkv::engine
