// partkv::VerifyCopy (partkv/copy.h): the source's images as (key hash, content hash) pairs,
// sorted, then one pass over the destination looking each of its entities up; a second pass over
// the source names the first images not found.

#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "api/front/copy_map.h"
#include "api/front/copy_source.h"
#include "engine/port/mutex.h"
#include "engine/value_codec.h"
#include "partkv/copy.h"

namespace partkv {
namespace {

using copy::CopyMapper;
using copy::Source;
using copy::SourceLayout;

struct Image {
  uint64_t key;
  uint64_t content;
  friend bool operator<(const Image& a, const Image& b) {
    return a.key != b.key ? a.key < b.key : a.content < b.content;
  }
};

class Hasher {
 public:
  Image Of(const Entity& entity) {
    buffer_.clear();
    buffer_.append(entity.partition_key());
    buffer_.push_back('\0');
    buffer_.append(entity.row_key());
    const uint64_t key = XXH3_64bits(buffer_.data(), buffer_.size());
    buffer_.clear();
    engine::EncodeValue(engine::ValueHeader{}, entity, &buffer_);
    return Image{key, XXH3_64bits(buffer_.data(), buffer_.size())};
  }

 private:
  std::string buffer_;
};

// Reads every unit of `layout` on `streams` threads, calling visit(image, source entity, image
// entity) for each selected source entity; stops at the first error.
template <typename Visit>
Status ReadSource(const Source& source, const SourceLayout& layout, const CopyMapper& mapper,
                  uint32_t streams, Visit&& visit) {
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  port::Mutex mu;
  Status error;
  auto work = [&](size_t thread) {
    std::vector<Entity> chunk;
    Entity image;
    for (;;) {
      const size_t unit = next.fetch_add(1);
      if (unit >= layout.units() || stop.load()) return;
      auto reader = source.OpenUnit(layout, unit, std::nullopt);
      Status s = reader.status();
      while (s.ok()) {
        s = (*reader)->Next(&chunk);
        if (!s.ok() || chunk.empty()) break;
        for (const Entity& entity : chunk) {
          s = mapper.Map(entity, &image);
          if (!s.ok()) break;
          if (!visit(thread, entity, image)) {
            stop.store(true);
            return;
          }
        }
      }
      if (!s.ok()) {
        port::MutexLock lock(&mu);
        if (error.ok()) error = s;
        stop.store(true);
        return;
      }
    }
  };
  const size_t threads = std::max<size_t>(1, std::min<size_t>(streams, layout.units()));
  std::vector<std::thread> pool;
  for (size_t i = 1; i < threads; ++i) pool.emplace_back(work, i);
  work(0);
  for (std::thread& t : pool) t.join();
  port::MutexLock lock(&mu);
  return error;
}

// A merge copy leaves the destination's other properties in place: each image is looked up by
// its keys and compared as CopyMapper::Holds does (its properties there with their values);
// a pass over the destination then finds the entities no image has the keys of.
Result<VerifyReport> VerifyMerged(const Source& source, const SourceLayout& layout,
                                  const CopyMapper& mapper, const Table& to, uint32_t streams,
                                  size_t max_listed) {
  VerifyReport report;
  port::Mutex mu;
  Status lookup;
  std::vector<std::vector<uint64_t>> found(streams);
  std::vector<Hasher> hashers(streams);
  Status read = ReadSource(
      source, layout, mapper, streams,
      [&](size_t thread, const Entity& entity, const Entity& image) {
        found[thread].push_back(hashers[thread].Of(image).key);
        auto stored = to.Get(image.partition_key(), image.row_key());
        const bool missing = stored.status().IsNotFound();
        if (!missing && !stored.ok()) {
          port::MutexLock lock(&mu);
          lookup = stored.status();
          return false;
        }
        port::MutexLock lock(&mu);
        ++report.source_rows;
        if (missing) {
          ++report.missing;
          if (report.first_missing.size() < max_listed) {
            report.first_missing.push_back({image.partition_key(), image.row_key()});
            report.first_missing_source.push_back({entity.partition_key(), entity.row_key()});
          }
        } else if (!mapper.Holds(*stored, image)) {
          ++report.different;
          if (report.first_different.size() < max_listed) {
            report.first_different.push_back({image.partition_key(), image.row_key()});
          }
        }
        return true;
      });
  PARTKV_RETURN_IF_ERROR(read);
  {
    port::MutexLock lock(&mu);
    PARTKV_RETURN_IF_ERROR(lookup);
  }
  std::vector<uint64_t> keys;
  for (auto& part : found) keys.insert(keys.end(), part.begin(), part.end());
  std::sort(keys.begin(), keys.end());
  Hasher hasher;
  Query query;
  Page page;
  do {
    PARTKV_RETURN_IF_ERROR(to.QueryEntities(query, &page));
    query.continuation = page.continuation;
    for (const Entity& entity : page.entities) {
      ++report.destination_rows;
      if (std::binary_search(keys.begin(), keys.end(), hasher.Of(entity).key)) continue;
      ++report.extra;
      if (report.first_extra.size() < max_listed) {
        report.first_extra.push_back({entity.partition_key(), entity.row_key()});
      }
    }
  } while (page.has_more());
  return report;
}

}  // namespace

Result<VerifyReport> VerifyCopy(const Table& from, const Table& to, const CopyOptions& options,
                                size_t max_listed) {
  PARTKV_ASSIGN_OR_RETURN(CopyMapper mapper, CopyMapper::Create(options));
  PARTKV_ASSIGN_OR_RETURN(Source source, Source::Open(from, mapper));
  SourceLayout layout;
  if (source.local()) {
    layout = source.LocalLayout();
  } else {
    uint64_t probes = 0;
    PARTKV_ASSIGN_OR_RETURN(
        layout, source.PlanRemoteRanges(options.streams == 1 ? 1 : options.streams * 4, &probes));
  }
  const uint32_t streams = std::max<uint32_t>(1, options.streams);
  if (options.mode == CopyMode::kMerge) {
    return VerifyMerged(source, layout, mapper, to, streams, max_listed);
  }
  std::vector<std::vector<Image>> found(streams);
  std::vector<Hasher> hashers(streams);
  PARTKV_RETURN_IF_ERROR(ReadSource(source, layout, mapper, streams,
                                    [&](size_t thread, const Entity&, const Entity& image) {
                                      found[thread].push_back(hashers[thread].Of(image));
                                      return true;
                                    }));
  std::vector<Image> images;
  for (auto& part : found) {
    images.insert(images.end(), part.begin(), part.end());
    std::vector<Image>().swap(part);
  }
  std::sort(images.begin(), images.end());
  std::vector<bool> matched(images.size(), false);

  VerifyReport report;
  report.source_rows = images.size();
  Hasher hasher;
  Query query;
  Page page;
  do {
    PARTKV_RETURN_IF_ERROR(to.QueryEntities(query, &page));
    query.continuation = page.continuation;
    for (const Entity& entity : page.entities) {
      ++report.destination_rows;
      const Image image = hasher.Of(entity);
      auto [first, last] =
          std::equal_range(images.begin(), images.end(), image,
                           [](const Image& a, const Image& b) { return a.key < b.key; });
      if (first == last) {
        if (report.first_extra.size() < max_listed) {
          report.first_extra.push_back({entity.partition_key(), entity.row_key()});
        }
        ++report.extra;
        continue;
      }
      auto take = last;
      for (auto it = first; it != last; ++it) {
        if (!matched[it - images.begin()] && it->content == image.content) take = it;
      }
      if (take == last) {
        if (report.first_different.size() < max_listed) {
          report.first_different.push_back({entity.partition_key(), entity.row_key()});
        }
        ++report.different;
        for (auto it = first; it != last; ++it) {
          if (!matched[it - images.begin()]) {
            take = it;
            break;
          }
        }
        if (take == last) continue;
      }
      matched[take - images.begin()] = true;
    }
  } while (page.has_more());

  report.missing = static_cast<uint64_t>(std::count(matched.begin(), matched.end(), false));
  if (report.missing > 0 && max_listed > 0) {
    // Name the first images not found, reading the source again on one thread (in key order).
    std::vector<Hasher> one(1);
    PARTKV_RETURN_IF_ERROR(ReadSource(
        source, layout, mapper, 1, [&](size_t, const Entity& entity, const Entity& image_entity) {
          const Image image = one[0].Of(image_entity);
          auto [first, last] = std::equal_range(images.begin(), images.end(), image);
          for (auto it = first; it != last; ++it) {
            if (matched[it - images.begin()]) continue;
            matched[it - images.begin()] = true;
            report.first_missing.push_back({image_entity.partition_key(), image_entity.row_key()});
            report.first_missing_source.push_back({entity.partition_key(), entity.row_key()});
            break;
          }
          return report.first_missing.size() < max_listed;
        }));
  }
  return report;
}

}  // namespace partkv
