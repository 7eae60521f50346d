#include "engine/value_codec.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/compare_keys.h"
#include "engine/etag.h"
#include "engine/key_codec.h"

namespace partkv::engine {
namespace {

void PutFixed32(std::string* out, uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<char>(v >> (8 * i));
  out->append(b, 4);
}

void PutFixed64(std::string* out, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(v >> (8 * i));
  out->append(b, 8);
}

void PutVarint(std::string* out, uint64_t v) {
  char b[10];
  int n = 0;
  while (v >= 0x80) {
    b[n++] = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  b[n++] = static_cast<char>(v);
  out->append(b, n);
}

void PutBytes(std::string* out, std::string_view s) {
  PutVarint(out, s.size());
  out->append(s.data(), s.size());
}

// A bounds-checked reader over the encoded bytes.
class Reader {
 public:
  explicit Reader(std::string_view in) : p_(in.data()), end_(in.data() + in.size()) {}

  bool done() const { return p_ == end_; }
  size_t left() const { return static_cast<size_t>(end_ - p_); }

  bool Byte(uint8_t* v) {
    if (p_ == end_) return false;
    *v = static_cast<uint8_t>(*p_++);
    return true;
  }
  bool Fixed32(uint32_t* v) { return Fixed(v); }
  bool Fixed64(uint64_t* v) { return Fixed(v); }
  bool Varint(uint64_t* v) {
    if (p_ != end_ && (static_cast<uint8_t>(*p_) & 0x80) == 0) {  // the common one-byte case
      *v = static_cast<uint8_t>(*p_++);
      return true;
    }
    uint64_t r = 0;
    for (int shift = 0; shift <= 63; shift += 7) {
      if (p_ == end_) return false;
      uint8_t b = static_cast<uint8_t>(*p_++);
      if (shift == 63 && b > 1) return false;  // overflow
      r |= static_cast<uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        *v = r;
        return true;
      }
    }
    return false;
  }
  bool Raw(size_t n, std::string_view* s) {
    if (static_cast<size_t>(end_ - p_) < n) return false;
    *s = std::string_view(p_, n);
    p_ += n;
    return true;
  }
  bool Bytes(std::string_view* s) {
    uint64_t n;
    if (!Varint(&n) || n > static_cast<uint64_t>(end_ - p_)) return false;
    *s = std::string_view(p_, n);
    p_ += n;
    return true;
  }

 private:
  // A little-endian unsigned integer of sizeof(T) bytes.
  template <typename T>
  bool Fixed(T* v) {
    if (static_cast<size_t>(end_ - p_) < sizeof(T)) return false;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(v, p_, sizeof(T));  // one load
    } else {
      T r = 0;
      for (size_t i = 0; i < sizeof(T); ++i) {
        r |= static_cast<T>(static_cast<uint8_t>(p_[i])) << (8 * i);
      }
      *v = r;
    }
    p_ += sizeof(T);
    return true;
  }

  const char* p_;
  const char* end_;
};

// a == b for property names, which are short: compared inline, without a call to memcmp.
inline bool SameName(const std::string& a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  const char* x = a.data();
  const char* y = b.data();
  if (n >= 8) {
    // Two 8-byte words per step, the last one overlapping the end.
    uint64_t u, v;
    for (size_t i = 0; i + 8 < n; i += 8) {
      std::memcpy(&u, x + i, 8);
      std::memcpy(&v, y + i, 8);
      if (u != v) return false;
    }
    std::memcpy(&u, x + n - 8, 8);
    std::memcpy(&v, y + n - 8, 8);
    return u == v;
  }
  if (n >= 4) {  // two 4-byte words, overlapping
    uint32_t u0, v0, u1, v1;
    std::memcpy(&u0, x, 4);
    std::memcpy(&v0, y, 4);
    std::memcpy(&u1, x + n - 4, 4);
    std::memcpy(&v1, y + n - 4, 4);
    return u0 == v0 && u1 == v1;
  }
  for (size_t i = 0; i < n; ++i) {
    if (x[i] != y[i]) return false;
  }
  return true;
}

Status Corrupt(const char* what) {
  return Status::Corruption(std::string("entity value: ") + what);
}

Status ReadHeader(Reader* r, ValueHeader* header) {
  uint8_t version;
  if (!r->Byte(&version)) return Corrupt("empty");
  if (version != kValueFormatV1) {
    return Status::Corruption("entity value: unknown value format version " +
                              std::to_string(version) + " (this build reads version 1)");
  }
  uint64_t ts;
  if (!r->Fixed64(&ts)) return Corrupt("truncated timestamp");
  header->timestamp_ticks = static_cast<int64_t>(ts);
  if (!r->Varint(&header->etag_version)) return Corrupt("truncated etag version");
  return Status::OK();
}

constexpr const char* kUnknownTag = "unknown type tag";

// Reads the payload of a property of type `tag` into *v (String, Binary and Guid bytes as views
// into the input). nullptr when read; else what is wrong: "truncated String", "bad Boolean", ...,
// or kUnknownTag for a tag no version-1 value has.
inline const char* ReadPayload(Reader* r, uint8_t tag, ValueView* v) {
  v->type = static_cast<Type>(tag);
  switch (v->type) {
    case Type::kString:
      return r->Bytes(&v->bytes) ? nullptr : "truncated String";
    case Type::kBinary:
      return r->Bytes(&v->bytes) ? nullptr : "truncated Binary";
    case Type::kBoolean: {
      uint8_t b;
      if (!r->Byte(&b) || b > 1) return "bad Boolean";
      v->integer = b;
      return nullptr;
    }
    case Type::kDateTime:
    case Type::kInt64: {
      uint64_t x;
      if (!r->Fixed64(&x)) {
        return v->type == Type::kDateTime ? "truncated DateTime" : "truncated Int64";
      }
      v->integer = static_cast<int64_t>(x);
      return nullptr;
    }
    case Type::kDouble: {
      uint64_t bits;
      if (!r->Fixed64(&bits)) return "truncated Double";
      std::memcpy(&v->real, &bits, sizeof v->real);
      return nullptr;
    }
    case Type::kGuid:
      return r->Raw(16, &v->bytes) ? nullptr : "truncated Guid";
    case Type::kInt32: {
      uint32_t x;
      if (!r->Fixed32(&x)) return "truncated Int32";
      v->integer = static_cast<int32_t>(x);
      return nullptr;
    }
  }
  return kUnknownTag;
}

}  // namespace

void EncodeValue(const ValueHeader& header, const Entity& entity, std::string* out) {
  out->push_back(static_cast<char>(kValueFormatV1));
  PutFixed64(out, static_cast<uint64_t>(header.timestamp_ticks));
  PutVarint(out, header.etag_version);
  PutVarint(out, entity.property_count());
  for (const auto& [name, value] : entity) {
    PutBytes(out, name);
    out->push_back(static_cast<char>(value.type()));
    switch (value.type()) {
      case Type::kString:
        PutBytes(out, value.as_string());
        break;
      case Type::kBinary:
        PutBytes(out, value.as_binary());
        break;
      case Type::kBoolean:
        out->push_back(value.as_bool() ? 1 : 0);
        break;
      case Type::kDateTime:
        PutFixed64(out, static_cast<uint64_t>(value.as_datetime().ticks));
        break;
      case Type::kDouble: {
        uint64_t bits;
        double d = value.as_double();
        std::memcpy(&bits, &d, sizeof bits);
        PutFixed64(out, bits);
        break;
      }
      case Type::kGuid:
        out->append(reinterpret_cast<const char*>(value.as_guid().bytes.data()), 16);
        break;
      case Type::kInt32:
        PutFixed32(out, static_cast<uint32_t>(value.as_int32()));
        break;
      case Type::kInt64:
        PutFixed64(out, static_cast<uint64_t>(value.as_int64()));
        break;
    }
  }
}

Status DecodeValueHeader(std::string_view bytes, ValueHeader* header) {
  Reader r(bytes);
  return ReadHeader(&r, header);
}

// Builds decoded values and entities in place, with no temporary Value or std::string to move
// from: a page of a query decodes a thousand entities, and the moves and destructions of
// temporaries used to cost more than the decoding itself.
class ValueCodecAccess {
 public:
  // Decodes the properties into `entity`, reusing its property slots: a slot keeps its name's and
  // its string value's capacity for the next entity decoded into it, so decoding a stream of
  // similar entities into one Entity (or a Page reused for the next page) allocates nothing.
  static Status DecodeProperties(Reader* r, size_t total_size, Entity* entity);
  static void SetKeys(std::string_view pk, std::string_view rk, Entity* entity) {
    entity->partition_key_.assign(pk.data(), pk.size());
    entity->row_key_.assign(rk.data(), rk.size());
  }
  static std::vector<Entity::Property>* properties(Entity* entity) { return &entity->properties_; }
  static void SetSystem(const ValueHeader& h, Entity* entity) {
    entity->timestamp_ = DateTime{h.timestamp_ticks};
    FormatEtagInto(h.etag_version, &entity->etag_);
  }

 private:
  static Status DecodePropertiesInto(Reader* r, size_t total_size, Entity* entity);
  // The value of property slot `i`, named `name`: the slot that is there, or a new one.
  static Value& Slot(std::vector<Entity::Property>* props, size_t i, std::string_view name) {
    if (i < props->size()) {
      Entity::Property& p = (*props)[i];
      p.first.assign(name.data(), name.size());
      return p.second;
    }
    return props
        ->emplace_back(std::piecewise_construct, std::forward_as_tuple(name.data(), name.size()),
                       std::forward_as_tuple())
        .second;
  }
  static void SetString(Value* v, Type type, std::string_view s) {
    if (!v->holds_string()) new (&v->str_) std::string();
    v->type_ = type;
    v->str_.assign(s.data(), s.size());
  }
  static Value::Scalar& MakeScalar(Value* v, Type type) {
    if (v->holds_string()) v->str_.~basic_string();
    new (&v->scalar_) Value::Scalar();
    v->type_ = type;
    return v->scalar_;
  }
};

Status ValueCodecAccess::DecodeProperties(Reader* r, size_t total_size, Entity* entity) {
  Status s = DecodePropertiesInto(r, total_size, entity);
  // A half-decoded entity may break the sorted-names invariant the next decode relies on.
  if (!s.ok()) entity->properties_.clear();
  return s;
}

Status ValueCodecAccess::DecodePropertiesInto(Reader* r, size_t total_size, Entity* entity) {
  uint64_t count;
  if (!r->Varint(&count)) return Corrupt("truncated property count");
  // Each property takes at least 3 bytes: bound the count by the input before reserving.
  if (count > total_size / 3) return Corrupt("property count exceeds the value's size");
  std::vector<Entity::Property>* props = &entity->properties_;
  if (props->capacity() < count) props->reserve(count);
  std::string_view prev;
  // Whether every slot so far already held the name decoded into it. Then the slot for this
  // name, if it holds it too, follows the previous one in the entity's sorted order, so the
  // order check is already done (and the name need not be copied): the common case of a page
  // of entities of one shape, decoded into a reused page.
  bool same_names = true;
  for (uint64_t i = 0; i < count; ++i) {
    std::string_view name;
    if (!r->Bytes(&name)) return Corrupt("truncated property name");
    Value* v;
    if (same_names && i < props->size() && SameName((*props)[i].first, name)) {
      v = &(*props)[i].second;
    } else {
      if (i > 0 && CompareKeys(prev, name) >= 0) {
        return Corrupt("property names not strictly sorted");
      }
      same_names = false;
      v = &Slot(props, i, name);
    }
    prev = name;
    uint8_t tag;
    if (!r->Byte(&tag)) return Corrupt("truncated type tag");
    ValueView view;
    if (const char* bad = ReadPayload(r, tag, &view)) {
      if (bad == kUnknownTag) {
        return Status::Corruption("entity value: unknown type tag " + std::to_string(tag));
      }
      return Corrupt(bad);
    }
    switch (view.type) {
      case Type::kString:
      case Type::kBinary:
        SetString(v, view.type, view.bytes);
        break;
      case Type::kBoolean:
        MakeScalar(v, Type::kBoolean).boolean = view.integer == 1;
        break;
      case Type::kDateTime:
        MakeScalar(v, Type::kDateTime).datetime = DateTime{view.integer};
        break;
      case Type::kDouble:
        MakeScalar(v, Type::kDouble).real = view.real;
        break;
      case Type::kGuid:
        std::memcpy(MakeScalar(v, Type::kGuid).guid.bytes.data(), view.bytes.data(), 16);
        break;
      case Type::kInt32:
        MakeScalar(v, Type::kInt32).int32 = static_cast<int32_t>(view.integer);
        break;
      case Type::kInt64:
        MakeScalar(v, Type::kInt64).int64 = view.integer;
        break;
    }
  }
  if (!r->done()) return Corrupt("trailing bytes after the last property");
  if (props->size() > count) {
    props->erase(props->begin() + static_cast<ptrdiff_t>(count), props->end());
  }
  return Status::OK();
}

Status DecodeValue(std::string_view bytes, ValueHeader* header, Entity* entity) {
  Reader r(bytes);
  PARTKV_RETURN_IF_ERROR(ReadHeader(&r, header));
  return ValueCodecAccess::DecodeProperties(&r, bytes.size(), entity);
}

Status DecodeEntity(std::string_view key, size_t prefix_length, std::string_view value,
                    Entity* entity) {
  std::string_view escaped =
      prefix_length == 0 ? std::string_view() : key.substr(0, prefix_length - 1);
  // A PartitionKey without 0x00 bytes (every one under the default key profile) is its own
  // escaped form.
  if (prefix_length != 0 && std::memchr(escaped.data(), 0, escaped.size()) == nullptr) {
    ValueCodecAccess::SetKeys(escaped, key.substr(prefix_length), entity);
  } else {
    std::string pk, rk;
    PARTKV_RETURN_IF_ERROR(DecodeEntityKey(key, &pk, &rk));
    ValueCodecAccess::SetKeys(pk, rk, entity);
  }
  Reader r(value);
  ValueHeader h;
  PARTKV_RETURN_IF_ERROR(ReadHeader(&r, &h));
  ValueCodecAccess::SetSystem(h, entity);
  return ValueCodecAccess::DecodeProperties(&r, value.size(), entity);
}

ValueView ViewOf(const Value& value) {
  ValueView v;
  v.type = value.type();
  switch (value.type()) {
    case Type::kString:
      v.bytes = value.as_string();
      break;
    case Type::kBinary:
      v.bytes = value.as_binary();
      break;
    case Type::kBoolean:
      v.integer = value.as_bool() ? 1 : 0;
      break;
    case Type::kDateTime:
      v.integer = value.as_datetime().ticks;
      break;
    case Type::kDouble:
      v.real = value.as_double();
      break;
    case Type::kGuid:
      v.bytes = std::string_view(reinterpret_cast<const char*>(value.as_guid().bytes.data()), 16);
      break;
    case Type::kInt32:
      v.integer = value.as_int32();
      break;
    case Type::kInt64:
      v.integer = value.as_int64();
      break;
  }
  return v;
}

EncodedRow::EncodedRow(std::string_view key, size_t prefix_length, std::string_view value) {
  if (prefix_length == 0 || prefix_length > key.size()) {
    undecided_ = true;
    return;
  }
  escaped_pk_ = key.substr(0, prefix_length - 1);
  row_key_ = key.substr(prefix_length);
  Reader r(value);
  ValueHeader h;
  if (!ReadHeader(&r, &h).ok() || !r.Varint(&count_)) {
    undecided_ = true;
    return;
  }
  timestamp_ticks_ = h.timestamp_ticks;
  properties_ = value.substr(value.size() - r.left());
}

std::string_view EncodedRow::partition_key() {
  // Escaping changes only 0x00 bytes: without them the escaped form is the PartitionKey itself.
  if (std::memchr(escaped_pk_.data(), 0, escaped_pk_.size()) != nullptr) undecided_ = true;
  return escaped_pk_;
}

Status FindProperty(std::string_view value, std::string_view name, ValueHeader* header,
                    std::optional<ValueView>* found) {
  found->reset();
  Reader r(value);
  uint64_t count = 0;
  PARTKV_RETURN_IF_ERROR(ReadHeader(&r, header));
  if (!r.Varint(&count)) return Status::Corruption("stored value: truncated property count");
  for (uint64_t i = 0; i < count; ++i) {
    std::string_view n;
    uint8_t tag;
    if (!r.Bytes(&n) || !r.Byte(&tag))
      return Status::Corruption("stored value: truncated property");
    ValueView v;
    if (const char* bad = ReadPayload(&r, tag, &v)) {
      return Status::Corruption(std::string("stored value: ") + bad);
    }
    const int c = CompareKeys(n, name);
    if (c == 0) {
      *found = v;
      return Status::OK();
    }
    if (c > 0) return Status::OK();  // names are sorted: `name` would have come before
  }
  return Status::OK();
}

std::optional<ValueView> EncodedRow::Find(std::string_view name) {
  if (undecided_) return std::nullopt;
  Reader r(properties_);
  std::string_view prev;
  for (uint64_t i = 0; i < count_; ++i) {
    std::string_view n;
    uint8_t tag;
    if (!r.Bytes(&n) || !r.Byte(&tag) || (i > 0 && CompareKeys(prev, n) >= 0)) break;
    prev = n;
    ValueView v;
    if (ReadPayload(&r, tag, &v) != nullptr) break;
    int c = CompareKeys(n, name);  // inline: names are short
    if (c == 0) return v;
    if (c > 0) return std::nullopt;  // names are sorted: `name` would have come before
    if (i + 1 == count_) {
      if (!r.done()) break;  // bytes after the last property
      return std::nullopt;   // every property read: `name` is absent
    }
  }
  if (count_ == 0 && r.done()) return std::nullopt;
  // A property that could not be read: decoding the row reports it.
  undecided_ = true;
  return std::nullopt;
}

void RetainProperties(const std::vector<std::string>& names, Entity* entity) {
  std::vector<Entity::Property>* props = ValueCodecAccess::properties(entity);
  props->erase(std::remove_if(props->begin(), props->end(),
                              [&names](const Entity::Property& p) {
                                return !std::binary_search(names.begin(), names.end(), p.first);
                              }),
               props->end());
}

}  // namespace partkv::engine
