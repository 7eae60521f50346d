// Entity: sorted-vector property storage.

#include "partkv/entity.h"

#include <algorithm>

namespace partkv {
namespace {

struct NameLess {
  bool operator()(const Entity::Property& p, std::string_view name) const { return p.first < name; }
};

}  // namespace

const Value* Entity::Get(std::string_view name) const {
  auto it = std::lower_bound(properties_.begin(), properties_.end(), name, NameLess());
  if (it == properties_.end() || it->first != name) return nullptr;
  return &it->second;
}

Entity& Entity::Set(std::string name, Value value) {
  auto it = std::lower_bound(properties_.begin(), properties_.end(), name, NameLess());
  if (it != properties_.end() && it->first == name) {
    it->second = std::move(value);
  } else {
    properties_.emplace(it, std::move(name), std::move(value));
  }
  return *this;
}

bool Entity::Remove(std::string_view name) {
  auto it = std::lower_bound(properties_.begin(), properties_.end(), name, NameLess());
  if (it == properties_.end() || it->first != name) return false;
  properties_.erase(it);
  return true;
}

std::string Entity::DebugString() const {
  std::string out = "(" + partition_key_ + "," + row_key_ + "){";
  bool first = true;
  for (const auto& [name, value] : properties_) {
    if (!first) out += ",";
    first = false;
    out += name;
    out += "=";
    out += value.DebugString();
  }
  out += "}";
  return out;
}

}  // namespace partkv
