#include "engine/local/resume_cache.h"

#include <utility>

namespace partkv::engine {

std::shared_ptr<void> ResumeCache::TakeAny(const void* owner, const std::type_info& type,
                                           std::string_view token, uint64_t sequence) {
  std::vector<Entry> dropped;  // destroyed outside the lock
  std::shared_ptr<void> found;
  {
    port::MutexLock lock(&mu_);
    for (size_t i = 0; i < entries_.size();) {
      Entry& e = entries_[i];
      // Two readers may page the same query and hold the same token: each takes one entry.
      bool match = !found && e.owner == owner && *e.type == type && e.token == token;
      if (match || e.sequence != sequence) {
        if (match && e.sequence == sequence) found = std::move(e.state);
        dropped.push_back(std::move(e));
        entries_.erase(entries_.begin() + static_cast<ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
    size_.store(entries_.size(), std::memory_order_relaxed);
  }
  return found;
}

void ResumeCache::PutAny(const void* owner, const std::type_info& type, std::string token,
                         uint64_t sequence, std::shared_ptr<void> state) {
  std::vector<Entry> dropped;
  {
    port::MutexLock lock(&mu_);
    for (size_t i = 0; i < entries_.size();) {
      if (entries_[i].sequence != sequence) {
        dropped.push_back(std::move(entries_[i]));
        entries_.erase(entries_.begin() + static_cast<ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
    if (entries_.size() >= kEntries) {
      dropped.push_back(std::move(entries_.front()));
      entries_.erase(entries_.begin());
    }
    entries_.push_back(Entry{owner, &type, std::move(token), sequence, std::move(state)});
    size_.store(entries_.size(), std::memory_order_relaxed);
  }
}

void ResumeCache::Clear() {
  std::vector<Entry> dropped;
  {
    port::MutexLock lock(&mu_);
    dropped.swap(entries_);
    size_.store(0, std::memory_order_relaxed);
  }
}

}  // namespace partkv::engine
