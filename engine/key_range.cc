#include "engine/key_range.h"

namespace partkv::engine {

bool KeyRange::Contains(std::string_view key) const {
  if (lower) {
    int c = key.compare(lower->key);
    if (c < 0 || (c == 0 && !lower->inclusive)) return false;
  }
  if (upper) {
    int c = key.compare(upper->key);
    if (c > 0 || (c == 0 && !upper->inclusive)) return false;
  }
  return true;
}

bool KeyRange::Empty() const {
  if (!lower || !upper) return false;
  int c = lower->key.compare(upper->key);
  return c > 0 || (c == 0 && !(lower->inclusive && upper->inclusive));
}

void KeyRange::TightenLower(const Bound& b) {
  if (!lower) {
    lower = b;
    return;
  }
  int c = b.key.compare(lower->key);
  if (c > 0 || (c == 0 && !b.inclusive)) lower = b;
}

void KeyRange::TightenUpper(const Bound& b) {
  if (!upper) {
    upper = b;
    return;
  }
  int c = b.key.compare(upper->key);
  if (c < 0 || (c == 0 && !b.inclusive)) upper = b;
}

void KeyRange::Intersect(const KeyRange& other) {
  if (other.lower) TightenLower(*other.lower);
  if (other.upper) TightenUpper(*other.upper);
}

std::string PrefixEnd(std::string_view p) {
  std::string out(p);
  while (!out.empty() && static_cast<unsigned char>(out.back()) == 0xFF) out.pop_back();
  if (out.empty()) return out;
  out.back() = static_cast<char>(static_cast<unsigned char>(out.back()) + 1);
  return out;
}

}  // namespace partkv::engine
