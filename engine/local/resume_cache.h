// ResumeCache: the streams of paged reads kept between pages, so that the next page of a read
// resumes where the last one stopped instead of opening and seeking its iterators again.
//
// A page ends with its stream positioned on the first row of the next page. The query code
// (engine/local/query.cc) leaves that stream here, under the continuation token it returned and the
// store's latest sequence number at its snapshot. When the token comes back and the store's
// latest sequence number is still the same — nothing at all was written in between — the
// stream's snapshot shows exactly what a new snapshot would, so the page is read from the stream
// as it stands. Any write makes every entry stale: a stale entry is never used, and is dropped at
// the next write (OnWrite), Take or Put.
//
// Entries own their snapshot and iterators (type-erased, with their type kept beside them:
// `state` is whatever the query code stored). At most kEntries are kept; the oldest goes first.
// The owner clears the cache before it closes the database or drops a column family the entries
// may read.
//
// Thread-safe. An entry taken is gone from the cache: one reader resumes one stream. Entries under
// the same token (two readers paging the same query) are taken one at a time.

#ifndef PARTKV_ENGINE_LOCAL_RESUME_CACHE_H_
#define PARTKV_ENGINE_LOCAL_RESUME_CACHE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"

namespace partkv::engine {

class ResumeCache {
 public:
  static constexpr size_t kEntries = 8;

  // The state of type T left under (owner, token) at `sequence`, or null. Removes the entry
  // either way. An entry is only ever returned as the type it was left as.
  template <typename T>
  std::shared_ptr<T> Take(const void* owner, std::string_view token, uint64_t sequence) {
    return std::static_pointer_cast<T>(TakeAny(owner, typeid(T), token, sequence));
  }
  // Leaves `state` under (owner, token), made at `sequence` (the store's latest then).
  template <typename T>
  void Put(const void* owner, std::string token, uint64_t sequence, std::shared_ptr<T> state) {
    PutAny(owner, typeid(T), std::move(token), sequence, std::move(state));
  }
  // A write is about to happen: drops every entry (each would be stale after it). One relaxed
  // load when the cache is empty.
  void OnWrite() PARTKV_EXCLUDES(mu_) {
    if (size_.load(std::memory_order_relaxed) != 0) Clear();
  }
  void Clear() PARTKV_EXCLUDES(mu_);
  size_t size() const { return size_.load(std::memory_order_relaxed); }

 private:
  struct Entry {
    const void* owner;
    const std::type_info* type;
    std::string token;
    uint64_t sequence;
    std::shared_ptr<void> state;
  };
  std::shared_ptr<void> TakeAny(const void* owner, const std::type_info& type,
                                std::string_view token, uint64_t sequence) PARTKV_EXCLUDES(mu_);
  void PutAny(const void* owner, const std::type_info& type, std::string token, uint64_t sequence,
              std::shared_ptr<void> state) PARTKV_EXCLUDES(mu_);

  port::Mutex mu_;
  std::vector<Entry> entries_ PARTKV_GUARDED_BY(mu_);  // oldest first
  // entries_.size(), written under mu_ and read without it: OnWrite's lock-free check.
  std::atomic<size_t> size_{0};
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_RESUME_CACHE_H_
