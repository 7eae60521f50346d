#include "engine/local/cursor.h"

#include <algorithm>

#include "engine/key_codec.h"

namespace partkv::engine {
namespace {

// The readahead of a bulk scan's files: RocksDB's own automatic readahead grows to this size after
// a few sequential reads; a bulk scan starts at it.
constexpr size_t kBulkReadahead = 256u << 10;

}  // namespace

void SetCacheUse(CacheUse cache, rocksdb::ReadOptions* ro) {
  ro->fill_cache = cache == CacheUse::kFill;
  if (cache == CacheUse::kBypass) ro->readahead_size = kBulkReadahead;
}

PartitionCursor::PartitionCursor(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf,
                                 std::string_view prefix, const rocksdb::Snapshot* snap,
                                 std::string_view lower, std::string_view upper, bool descending,
                                 std::optional<KeyRange> rows, CacheUse cache)
    : prefix_(prefix), descending_(descending), rows_(std::move(rows)) {
  lower_ = prefix_;
  lower_.append(lower.data(), lower.size());
  if (upper.empty()) {
    upper_ = PrefixEnd(prefix_);
  } else {
    upper_ = prefix_;
    upper_.append(upper.data(), upper.size());
  }
  rocksdb::ReadOptions ro;
  ro.snapshot = snap;
  SetCacheUse(cache, &ro);
  lower_slice_ = rocksdb::Slice(lower_);
  ro.iterate_lower_bound = &lower_slice_;
  if (!upper_.empty()) {  // (empty only for a prefix of 0xFF bytes, which ids never make)
    upper_slice_ = rocksdb::Slice(upper_);
    ro.iterate_upper_bound = &upper_slice_;
  }
  it_.reset(db->NewIterator(ro, cf));
}

void PartitionCursor::Seek(std::string_view key) {
  seek_.assign(prefix_);
  seek_.append(key.data(), key.size());
  it_->Seek(seek_);
}

void PartitionCursor::SeekForPrev(std::string_view key) {
  seek_.assign(prefix_);
  seek_.append(key.data(), key.size());
  it_->SeekForPrev(seek_);
}

uint64_t PartitionCursor::Start() {
  if (fixed_prefix_len_ != 0) prefix_len_ = fixed_prefix_len_;
  if (descending_) {
    if (upper_.empty()) {
      it_->SeekToLast();
    } else {
      it_->SeekForPrev(upper_);  // upper is exclusive; the bound makes SeekForPrev skip it
    }
  } else {
    it_->Seek(lower_);
  }
  return 1 + Settle();
}

uint64_t PartitionCursor::Next() {
  if (descending_) {
    it_->Prev();
  } else {
    it_->Next();
  }
  return Settle();
}

uint64_t PartitionCursor::Settle() {
  uint64_t seeks = 0;
  while (it_->Valid()) {
    key_ = Stripped();
    if (fixed_prefix_len_ != 0) return seeks;  // (no skip-scan with a fixed prefix)
    prefix_len_ = PartitionPrefixLength(key_);
    if (prefix_len_ == 0) return seeks;  // malformed key: surfaced by the decoder
    if (!rows_) return seeks;
    std::string_view rk = key().substr(prefix_len_);
    if (rows_->Contains(rk)) return seeks;
    std::string prefix(key().substr(0, prefix_len_));
    ++seeks;
    bool below = rows_->lower &&
                 (rk < rows_->lower->key || (rk == rows_->lower->key && !rows_->lower->inclusive));
    if (!descending_) {
      if (below) {
        std::string target = prefix + rows_->lower->key;
        if (!rows_->lower->inclusive) target.push_back('\0');
        Seek(target);
      } else {  // above the upper bound: on to the next PartitionKey
        prefix.push_back('\xFF');
        Seek(prefix);
      }
    } else {
      if (below) {          // below the lower bound: on to the previous PartitionKey
        prefix.pop_back();  // escape(pk); every key of pk sorts after it
        SeekForPrev(prefix);
        if (it_->Valid() && Stripped() == prefix) it_->Prev();
      } else {
        std::string target = prefix + rows_->upper->key;
        SeekForPrev(target);
        if (!rows_->upper->inclusive && it_->Valid() && Stripped() == target) {
          it_->Prev();
        }
      }
    }
  }
  return seeks;
}

}  // namespace partkv::engine
