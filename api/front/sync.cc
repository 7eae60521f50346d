// partkv::SyncTable (partkv/sync.h, docs/sync.md): push from the local change feed, pull by the
// remote's Timestamp, per-entity state in a local table, conflicts resolved by policy.

#include "partkv/sync.h"

#include <xxhash.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <future>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "engine/port/mutex.h"
#include "partkv/batch.h"
#include "partkv/changes.h"
#include "partkv/query.h"
#include "partkv/table.h"

namespace partkv {
namespace {

using Clock = std::chrono::steady_clock;

// State entities' property names (docs/sync.md "State").
constexpr const char* kLocalTableProp = "LocalTable";
constexpr const char* kRemoteProp = "Remote";
constexpr const char* kPushTokenProp = "PushToken";
constexpr const char* kPullMarkProp = "PullMark";
constexpr const char* kShadowPk = "pk";
constexpr const char* kShadowRk = "rk";
constexpr const char* kRemoteEtagProp = "RemoteETag";
constexpr const char* kLocalEtagProp = "LocalETag";
constexpr const char* kCheckpointRow = "checkpoint";
// Properties added to a version set aside (kReport).
constexpr const char* kSideProp = "SyncConflictSide";
constexpr const char* kTimeProp = "SyncConflictTime";
constexpr const char* kRemoteEtagSetAside = "SyncRemoteETag";

// The attempts at resolving one conflict before the sync stops: each one lost a race with a
// write to the same entity made meanwhile, on one side or the other.
constexpr int kMaxResolveAttempts = 8;
// Bytes of entities per pushed batch (below Azure's 4 MiB request, JSON included).
constexpr size_t kMaxBatchBytes = 2u << 20;
// The longest SyncOptions::overlap: a year.
constexpr std::chrono::seconds kMaxOverlap{365 * 24 * 3600};
// A push window (Sync::Push): the changes read from the feed before they are sent.
constexpr size_t kPushWindowChanges = 100000;
constexpr size_t kPushWindowBytes = 64u << 20;

std::string Hex(const void* data, size_t n) {
  static const char* digits = "0123456789abcdef";
  const auto* p = static_cast<const unsigned char*>(data);
  std::string out;
  out.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    out.push_back(digits[p[i] >> 4]);
    out.push_back(digits[p[i] & 15]);
  }
  return out;
}

// The 128-bit hash of an entity's keys: the RowKey of its state entity.
struct KeyHash {
  uint64_t lo = 0, hi = 0;
  friend bool operator==(const KeyHash&, const KeyHash&) = default;
};
struct KeyHashHasher {
  size_t operator()(const KeyHash& h) const { return h.lo ^ (h.hi * 0x9E3779B97F4A7C15ull); }
};

// XXH3-128 of pk, a NUL, pk's length (8 bytes, little-endian) and rk: the length makes the pair
// unambiguous. One pass over one buffer, kept per thread (a streaming state would cost an
// allocation per call, and this runs several times per entity synced).
KeyHash HashKeys(std::string_view pk, std::string_view rk) {
  thread_local std::string buffer;
  buffer.assign(pk);
  buffer.push_back('\0');
  const uint64_t n = pk.size();
  for (int i = 0; i < 8; ++i) buffer.push_back(static_cast<char>(n >> (8 * i)));
  buffer.append(rk);
  const XXH128_hash_t h = XXH3_128bits(buffer.data(), buffer.size());
  return KeyHash{h.low64, h.high64};
}

std::string ShadowRowKey(const KeyHash& h) {
  unsigned char bytes[16];
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<unsigned char>(h.hi >> (56 - 8 * i));
    bytes[8 + i] = static_cast<unsigned char>(h.lo >> (56 - 8 * i));
  }
  return Hex(bytes, 16);
}

// What both sides last agreed on for one entity.
struct Shadow {
  std::string remote_etag;
  std::string local_etag;
};

// A local change to send: the entity's newest version in a feed page (or a table scan), or
// its removal.
struct PushItem {
  std::string pk, rk;
  bool remove = false;
  Entity entity;           // when !remove
  std::string local_etag;  // the version sent (empty for a removal)
};

std::string StringProp(const Entity& e, const char* name) {
  const Value* v = e.Get(name);
  return v != nullptr && v->type() == Type::kString ? std::string(v->as_string()) : std::string();
}

WriteOptions SyncWrite() {
  WriteOptions w;
  w.origin = WriteOrigin::kSync;
  return w;
}

bool IsConflictStatus(const Status& s) {
  return s.IsPreconditionFailed() || s.IsAlreadyExists() || s.IsNotFound();
}

// The pairs syncing in this process (one sync per pair at a time), under their mutex.
struct RunningPairs {
  port::Mutex mu;
  std::set<std::string> pairs PARTKV_GUARDED_BY(mu);
};
RunningPairs& Running() {
  static auto* running = new RunningPairs;
  return *running;
}

class Sync {
 public:
  Sync(Table local, Table remote, Table state, std::string pair, std::string remote_identity,
       Store& local_store, const SyncOptions& options)
      : local_(std::move(local)),
        remote_(std::move(remote)),
        state_(std::move(state)),
        pair_(std::move(pair)),
        shadow_pk_(pair_ + "-s"),
        remote_identity_(std::move(remote_identity)),
        local_store_(local_store),
        options_(options) {}

  SyncReport Run() {
    const auto start = Clock::now();
    report_.error = RunSteps();
    report_.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
    return std::move(report_);
  }

 private:
  Status RunSteps() {
    PARTKV_RETURN_IF_ERROR(LoadCheckpoint());
    if (options_.direction != SyncDirection::kPull) PARTKV_RETURN_IF_ERROR(Push());
    if (options_.direction != SyncDirection::kPush) {
      PARTKV_RETURN_IF_ERROR(Pull());
      if (options_.reconcile) PARTKV_RETURN_IF_ERROR(Reconcile());
    }
    return Status::OK();
  }

  // ---- checkpoint -------------------------------------------------------------------------

  Status LoadCheckpoint() {
    Result<Entity> cp = state_.Get(pair_, kCheckpointRow);
    if (cp.status().IsNotFound()) {
      checkpoint_ = Entity(pair_, kCheckpointRow);
      checkpoint_.Set(kLocalTableProp, Value::String(local_.name()));
      checkpoint_.Set(kRemoteProp, Value::String(remote_identity_));
      return Status::OK();
    }
    if (!cp.ok()) return cp.status();
    checkpoint_ = std::move(*cp);
    const std::string recorded = StringProp(checkpoint_, kRemoteProp);
    if (StringProp(checkpoint_, kLocalTableProp) != local_.name() || recorded != remote_identity_) {
      return Status::Corruption("sync state " + pair_ + " in table " + state_.name() +
                                " is of another pair (" + recorded + ")");
    }
    return Status::OK();
  }

  Status SaveCheckpoint() {
    Result<WriteResult> w = state_.InsertOrReplace(checkpoint_);
    return w.ok() ? Status::OK() : w.status();
  }

  // ---- shadows ----------------------------------------------------------------------------

  Result<std::optional<Shadow>> LoadShadow(std::string_view pk, std::string_view rk) {
    Result<Entity> e = state_.Get(shadow_pk_, ShadowRowKey(HashKeys(pk, rk)));
    if (e.status().IsNotFound()) return std::optional<Shadow>();
    if (!e.ok()) return e.status();
    if (StringProp(*e, kShadowPk) != pk || StringProp(*e, kShadowRk) != rk) {
      return Status::Corruption("sync state: two entities' keys hash alike in table " +
                                state_.name());
    }
    return std::optional<Shadow>(
        Shadow{StringProp(*e, kRemoteEtagProp), StringProp(*e, kLocalEtagProp)});
  }

  Entity ShadowEntity(std::string_view pk, std::string_view rk, const Shadow& s) {
    Entity e(shadow_pk_, ShadowRowKey(HashKeys(pk, rk)));
    e.Set(kShadowPk, Value::String(std::string(pk)));
    e.Set(kShadowRk, Value::String(std::string(rk)));
    e.Set(kRemoteEtagProp, Value::String(s.remote_etag));
    e.Set(kLocalEtagProp, Value::String(s.local_etag));
    return e;
  }

  // Shadows to write (or, with none, remove), flushed in batches of 100.
  void StageShadow(std::string_view pk, std::string_view rk, std::optional<Shadow> s) {
    pending_shadows_.emplace_back(
        ShadowRowKey(HashKeys(pk, rk)),
        s ? std::optional<Entity>(ShadowEntity(pk, rk, *s)) : std::optional<Entity>());
  }

  Status FlushShadows() {
    Batch batch;
    auto submit = [&]() -> Status {
      if (batch.empty()) return Status::OK();
      Result<std::vector<WriteResult>> r = state_.Submit(batch);
      batch.Clear();
      return r.ok() ? Status::OK() : r.status();
    };
    for (auto& [rk, entity] : pending_shadows_) {
      if (entity) {
        batch.InsertOrReplace(std::move(*entity));
        if (batch.size() == Batch::kMaxOperations) PARTKV_RETURN_IF_ERROR(submit());
      } else {
        Status s = state_.Delete(shadow_pk_, rk, IfMatch::Any());
        if (!s.ok() && !s.IsNotFound()) return s;
      }
    }
    PARTKV_RETURN_IF_ERROR(submit());
    pending_shadows_.clear();
    return Status::OK();
  }

  // ---- push -------------------------------------------------------------------------------

  // Reads the feed from the checkpoint in windows of up to kPushWindowChanges changes (or
  // kPushWindowBytes of entities) and sends each window's newest change of each entity: a window
  // holds many changes of each PartitionKey, so the batches are full although the feed is in the
  // order of time, not of keys. The checkpoint moves after each window.
  Status Push() {
    push_started_ =
        DateTime::FromUnixMicros(std::chrono::duration_cast<std::chrono::microseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count());
    if (checkpoint_.Get(kPushTokenProp) == nullptr) PARTKV_RETURN_IF_ERROR(Seed());
    std::string token = StringProp(checkpoint_, kPushTokenProp);
    bool caught_up = false;
    while (!caught_up) {
      std::vector<PushItem> items;
      std::vector<bool> own;  // per item: its newest change was a sync's
      std::unordered_map<KeyHash, size_t, KeyHashHasher> at;
      size_t changes = 0, bytes = 0;
      bool trimmed = false;
      while (!caught_up && changes < kPushWindowChanges && bytes < kPushWindowBytes) {
        ChangesQuery q;
        q.continuation = token;
        q.mode = ChangeFeedMode::kAll;
        q.page_size = 1000;
        Result<ChangesPage> page = local_.ReadChanges(q);
        if (page.status().code() == Status::Code::kTrimmed) {
          trimmed = true;
          break;
        }
        if (!page.ok()) return page.status();
        for (Change& c : page->changes) {
          const KeyHash h = HashKeys(c.entity.partition_key(), c.entity.row_key());
          auto [it, fresh] = at.emplace(h, items.size());
          if (fresh) {
            items.emplace_back();
            own.push_back(false);
          } else {
            ++report_.push_skipped;  // superseded within the window
          }
          PushItem& item = items[it->second];
          item.pk = c.entity.partition_key();
          item.rk = c.entity.row_key();
          item.remove = c.op == ChangeOp::kDelete || c.op == ChangeOp::kExpire;
          item.local_etag = item.remove ? std::string() : c.etag;
          item.entity = item.remove ? Entity() : std::move(c.entity);
          if (!item.remove) bytes += ApproxBytes(item.entity);
          own[it->second] = c.origin == WriteOrigin::kSync;
        }
        changes += page->changes.size();
        token = std::move(page->continuation);
        caught_up = page->caught_up;
      }
      if (trimmed) {
        // Retention trimmed the position: what the window read is sent by the seed too.
        PARTKV_RETURN_IF_ERROR(Seed());
        token = StringProp(checkpoint_, kPushTokenProp);
        caught_up = false;
        continue;
      }
      std::vector<PushItem> send;
      for (size_t i = 0; i < items.size(); ++i) {
        if (own[i]) {
          ++report_.push_skipped;
        } else {
          send.push_back(std::move(items[i]));
        }
      }
      PARTKV_RETURN_IF_ERROR(PushItems(std::move(send)));
      checkpoint_.Set(kPushTokenProp, Value::String(token));
      PARTKV_RETURN_IF_ERROR(SaveCheckpoint());
      Progress("push");
    }
    return Status::OK();
  }

  // Sends every entity of the local table not synced in its current version, and the removal of
  // every entity synced before that the table no longer has; then follows the feed from before
  // the scan.
  Status Seed() {
    report_.seeded = true;
    ChangesQuery now;
    now.start = ChangeFeedStart::kNow;
    PARTKV_ASSIGN_OR_RETURN(ChangesPage start, local_.ReadChanges(now));
    Query q;
    do {
      PARTKV_ASSIGN_OR_RETURN(Page page, local_.QueryEntities(q));
      std::vector<PushItem> items;
      items.reserve(page.entities.size());
      for (Entity& e : page.entities) {
        PushItem item;
        item.pk = e.partition_key();
        item.rk = e.row_key();
        item.local_etag = e.etag();
        item.entity = std::move(e);
        items.push_back(std::move(item));
      }
      PARTKV_RETURN_IF_ERROR(PushItems(std::move(items)));
      Progress("push");
      q.continuation = page.continuation;
    } while (!q.continuation.empty());
    // Entities synced once and gone from the local table since.
    Query shadows;
    shadows.partition_key = shadow_pk_;
    do {
      PARTKV_ASSIGN_OR_RETURN(Page page, state_.QueryEntities(shadows));
      std::vector<PushItem> items;
      for (const Entity& s : page.entities) {
        PushItem item;
        item.pk = StringProp(s, kShadowPk);
        item.rk = StringProp(s, kShadowRk);
        Result<Entity> l = local_.Get(item.pk, item.rk);
        if (l.ok()) continue;
        if (!l.status().IsNotFound()) return l.status();
        item.remove = true;
        items.push_back(std::move(item));
      }
      PARTKV_RETURN_IF_ERROR(PushItems(std::move(items)));
      shadows.continuation = page.continuation;
    } while (!shadows.continuation.empty());
    checkpoint_.Set(kPushTokenProp, Value::String(start.continuation));
    return SaveCheckpoint();
  }

  struct PlannedOp {
    PushItem item;
    std::optional<Shadow> shadow;
  };

  static size_t ApproxBytes(const Entity& e) {
    size_t n = 64 + e.partition_key().size() + e.row_key().size();
    for (const auto& [name, value] : e) {
      n += 48 + name.size();
      if (value.type() == Type::kString) n += 2 * value.as_string().size();
      if (value.type() == Type::kBinary) n += value.as_binary().size() * 4 / 3 + 4;
    }
    return n;
  }

  static void AddOp(Batch& batch, const PlannedOp& op) {
    if (op.item.remove) {
      batch.Delete(op.item.pk, op.item.rk, IfMatch::ETag(op.shadow->remote_etag));
    } else if (op.shadow) {
      batch.Replace(op.item.entity, IfMatch::ETag(op.shadow->remote_etag));
    } else {
      batch.Insert(op.item.entity);
    }
  }

  Status PushItems(std::vector<PushItem> items) {
    // What to send: each entity's write, conditioned on the version last seen remotely.
    std::map<std::string, std::vector<PlannedOp>> by_pk;
    for (PushItem& item : items) {
      PARTKV_ASSIGN_OR_RETURN(std::optional<Shadow> shadow, LoadShadow(item.pk, item.rk));
      if (item.remove ? !shadow : (shadow && shadow->local_etag == item.local_etag)) {
        ++report_.push_skipped;  // never synced (nothing to remove) or synced in this version
        continue;
      }
      std::string pk = item.pk;
      by_pk[pk].push_back(PlannedOp{std::move(item), std::move(shadow)});
    }
    std::vector<std::vector<PlannedOp>> batches;
    for (auto& [pk, ops] : by_pk) {
      size_t bytes = 0;
      for (PlannedOp& op : ops) {
        const size_t n = op.item.remove ? 256 : ApproxBytes(op.item.entity);
        if (batches.empty() || batches.back().empty() || batches.back().front().item.pk != pk ||
            batches.back().size() == Batch::kMaxOperations || bytes + n > kMaxBatchBytes) {
          batches.emplace_back();
          bytes = 0;
        }
        bytes += n;
        batches.back().push_back(std::move(op));
      }
    }
    // Up to `window` batches in flight; results taken in the order sent, each as it comes.
    const size_t window = std::clamp<size_t>(options_.max_batches_in_flight, 1, 64);
    std::deque<std::future<Result<std::vector<WriteResult>>>> sent;
    size_t next = 0, done = 0;
    Status first_error;
    while (done < batches.size()) {
      while (first_error.ok() && next < batches.size() && sent.size() < window) {
        Batch batch;
        for (const PlannedOp& op : batches[next]) AddOp(batch, op);
        ++report_.remote_requests;
        sent.push_back(std::async(std::launch::async, [this, batch = std::move(batch)] {
          return remote_.Submit(batch);
        }));
        ++next;
      }
      if (sent.empty()) break;  // stopped: nothing more was sent
      Result<std::vector<WriteResult>> r = sent.front().get();
      sent.pop_front();
      std::vector<PlannedOp>& ops = batches[done++];
      if (!first_error.ok()) continue;  // the answers still in flight are only awaited
      if (r.ok()) {
        for (size_t i = 0; i < ops.size(); ++i) Acknowledged(ops[i], (*r)[i]);
      } else if (IsConflictStatus(r.status()) || r.status().IsInvalidArgument()) {
        // One operation failed, so none was written: each goes alone, and the one that fails
        // alone is a conflict (or a bad entity, named).
        for (PlannedOp& op : ops) {
          Status s = PushOne(op);
          if (!s.ok()) {
            first_error = s;
            break;
          }
        }
      } else {
        first_error = r.status();
      }
      if (pending_shadows_.size() >= Batch::kMaxOperations) {
        Status flushed = FlushShadows();
        if (first_error.ok()) first_error = flushed;
      }
    }
    Status flushed = FlushShadows();
    if (first_error.ok()) first_error = flushed;
    return first_error;
  }

  void Acknowledged(const PlannedOp& op, const WriteResult& result) {
    if (op.item.remove) {
      ++report_.pushed_deletes;
      StageShadow(op.item.pk, op.item.rk, std::nullopt);
    } else {
      ++report_.pushed;
      StageShadow(op.item.pk, op.item.rk, Shadow{result.etag, op.item.local_etag});
    }
  }

  // One write sent alone; a conflict is looked into and resolved.
  Status PushOne(const PlannedOp& op) {
    Status s;
    WriteResult result;
    ++report_.remote_requests;
    if (op.item.remove) {
      s = remote_.Delete(op.item.pk, op.item.rk, IfMatch::ETag(op.shadow->remote_etag));
    } else {
      Result<WriteResult> w =
          op.shadow ? remote_.Replace(op.item.entity, IfMatch::ETag(op.shadow->remote_etag))
                    : remote_.Insert(op.item.entity);
      if (w.ok()) result = *w;
      s = w.status();
    }
    if (s.ok()) {
      Acknowledged(op, result);
      return Status::OK();
    }
    if (!IsConflictStatus(s)) {
      if (s.IsInvalidArgument()) {
        return Status::InvalidArgument("sync: the remote refused entity (" + op.item.pk + ", " +
                                       op.item.rk + "): " + std::string(s.message()));
      }
      return s;
    }
    PARTKV_ASSIGN_OR_RETURN(std::optional<Entity> remote, RemoteGet(op.item.pk, op.item.rk));
    // The write found its own result in place: sent before, its answer lost.
    if (op.item.remove ? !remote : (remote && remote->SameContent(op.item.entity))) {
      ++report_.adopted;
      StageShadow(op.item.pk, op.item.rk,
                  remote ? std::optional<Shadow>(Shadow{remote->etag(), op.item.local_etag})
                         : std::nullopt);
      return Status::OK();
    }
    return Resolve(op.item.pk, op.item.rk, std::move(remote));
  }

  Result<std::optional<Entity>> RemoteGet(std::string_view pk, std::string_view rk) {
    ++report_.remote_requests;
    Result<Entity> r = remote_.Get(pk, rk);
    if (r.status().IsNotFound()) return std::optional<Entity>();
    if (!r.ok()) return r.status();
    return std::optional<Entity>(std::move(*r));
  }

  Result<std::optional<Entity>> LocalGet(std::string_view pk, std::string_view rk) {
    Result<Entity> r = local_.Get(pk, rk);
    if (r.status().IsNotFound()) return std::optional<Entity>();
    if (!r.ok()) return r.status();
    return std::optional<Entity>(std::move(*r));
  }

  // ---- conflicts --------------------------------------------------------------------------

  // Both sides changed (pk, rk) since they last agreed; `remote` is the remote's version (none:
  // deleted there). Decides by policy with the local version read now, and writes the winner to
  // the other side, conditioned on the version seen there; a race lost to a write made
  // meanwhile reads both sides again.
  Status Resolve(const std::string& pk, const std::string& rk, std::optional<Entity> remote) {
    for (int attempt = 0; attempt < kMaxResolveAttempts; ++attempt) {
      if (attempt > 0) {
        PARTKV_ASSIGN_OR_RETURN(remote, RemoteGet(pk, rk));
      }
      PARTKV_ASSIGN_OR_RETURN(std::optional<Entity> local, LocalGet(pk, rk));
      if (local.has_value() == remote.has_value() && (!local || local->SameContent(*remote))) {
        ++report_.adopted;  // the two sides agree after all
        StageShadow(
            pk, rk,
            local ? std::optional<Shadow>(Shadow{remote->etag(), local->etag()}) : std::nullopt);
        return Status::OK();
      }
      bool local_wins = false;
      switch (options_.conflicts) {
        case ConflictPolicy::kRemoteWins:
        case ConflictPolicy::kReport:
          break;
        case ConflictPolicy::kLocalWins:
          local_wins = true;
          break;
        case ConflictPolicy::kLastWriter:
          // A remote delete has no time the sync can see: the local change wins over it.
          local_wins = !remote || (local && remote->timestamp() < local->timestamp());
          break;
      }
      bool set_aside = false;
      Status applied;
      if (local_wins) {
        applied = WriteRemote(pk, rk, local, remote);
      } else {
        if (options_.conflicts == ConflictPolicy::kReport && local) {
          PARTKV_RETURN_IF_ERROR(SetAside(*local, remote));
          set_aside = true;
        }
        applied = WriteLocal(pk, rk, local, remote);
      }
      if (IsConflictStatus(applied)) continue;  // written meanwhile: look again
      PARTKV_RETURN_IF_ERROR(applied);
      SyncConflict c{pk, rk, std::move(local), std::move(remote), local_wins, set_aside};
      Reported(std::move(c));
      return Status::OK();
    }
    return Status::Busy("sync: entity (" + pk + ", " + rk + ") kept changing while its conflict " +
                        "was resolved (" + std::to_string(kMaxResolveAttempts) + " attempts)");
  }

  // Writes `local` (none: a removal) over the remote's version `seen`.
  Status WriteRemote(const std::string& pk, const std::string& rk,
                     const std::optional<Entity>& local, const std::optional<Entity>& seen) {
    ++report_.remote_requests;
    if (!local) {
      Status s = remote_.Delete(pk, rk, IfMatch::ETag(seen->etag()));
      if (s.ok()) StageShadow(pk, rk, std::nullopt);
      return s;
    }
    Result<WriteResult> w =
        seen ? remote_.Replace(*local, IfMatch::ETag(seen->etag())) : remote_.Insert(*local);
    if (w.ok()) StageShadow(pk, rk, Shadow{w->etag, local->etag()});
    return w.status();
  }

  // Writes the remote's version `remote` (none: a removal) over `local`, as the sync's.
  Status WriteLocal(const std::string& pk, const std::string& rk,
                    const std::optional<Entity>& local, const std::optional<Entity>& remote) {
    if (!remote) {
      Status s = local_.Delete(pk, rk, IfMatch::ETag(local->etag()), SyncWrite());
      if (s.ok()) StageShadow(pk, rk, std::nullopt);
      return s;
    }
    Result<WriteResult> w = local
                                ? local_.Replace(*remote, IfMatch::ETag(local->etag()), SyncWrite())
                                : local_.Insert(*remote, SyncWrite());
    if (w.ok()) StageShadow(pk, rk, Shadow{remote->etag(), w->etag});
    return w.status();
  }

  // Keeps the local version that loses a conflict in the conflicts table, under a RowKey of its
  // own (its RowKey, then the time), so a second conflict of the same entity keeps both.
  Status SetAside(const Entity& local, const std::optional<Entity>& remote) {
    if (!conflicts_) {
      const std::string name =
          options_.conflicts_table.empty() ? local_.name() + "Conflicts" : options_.conflicts_table;
      Status created = local_store_.CreateTable(name);
      if (!created.ok() && !created.IsAlreadyExists()) return created;
      PARTKV_ASSIGN_OR_RETURN(Table t, local_store_.OpenTable(name));
      conflicts_ = std::move(t);
    }
    const DateTime now =
        DateTime::FromUnixMicros(std::chrono::duration_cast<std::chrono::microseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count());
    Entity kept = local;
    kept.set_row_key(local.row_key() + "@" + now.ToString() + "~" +
                     std::to_string(++set_aside_seq_));
    kept.Set(kSideProp, Value::String("local"));
    kept.Set(kTimeProp, Value::DateTime(now));
    kept.Set(kRemoteEtagSetAside, Value::String(remote ? remote->etag() : std::string()));
    Result<WriteResult> w = conflicts_->Insert(kept);
    if (!w.ok()) {
      return w.status().WithContext("sync: setting aside the local version of (" +
                                    local.partition_key() + ", " + local.row_key() + ") in table " +
                                    conflicts_->name());
    }
    ++report_.set_aside;
    return Status::OK();
  }

  void Reported(SyncConflict c) {
    ++report_.conflicts;
    ++(c.local_won ? report_.local_won : report_.remote_won);
    if (c.local_won) {
      ++(c.local ? report_.pushed : report_.pushed_deletes);
    } else {
      ++(c.remote ? report_.pulled : report_.pulled_deletes);
    }
    if (options_.on_conflict) options_.on_conflict(c);
    if (report_.first_conflicts.size() < options_.max_listed) {
      report_.first_conflicts.push_back(std::move(c));
    }
  }

  // ---- pull -------------------------------------------------------------------------------

  Status Pull() {
    Query q;
    std::optional<DateTime> mark;
    if (const Value* v = checkpoint_.Get(kPullMarkProp);
        v != nullptr && v->type() == Type::kDateTime) {
      mark = v->as_datetime();
      const int64_t overlap_ticks = std::max<int64_t>(0, options_.overlap.count()) * 10'000'000;
      const DateTime from{std::max<int64_t>(DateTime::kMinAzureTicks, mark->ticks - overlap_ticks)};
      q.filter = "Timestamp ge datetime'" + from.ToString() + "'";
    }
    std::optional<DateTime> newest = mark;
    do {
      ++report_.remote_requests;
      PARTKV_ASSIGN_OR_RETURN(Page page, remote_.QueryEntities(q));
      for (Entity& r : page.entities) {
        if (!newest || *newest < r.timestamp()) newest = r.timestamp();
        PARTKV_RETURN_IF_ERROR(PullOne(std::move(r)));
      }
      PARTKV_RETURN_IF_ERROR(FlushShadows());
      Progress("pull");
      q.continuation = page.continuation;
    } while (!q.continuation.empty());
    if (newest && (!mark || *mark < *newest)) {
      checkpoint_.Set(kPullMarkProp, Value::DateTime(*newest));
      PARTKV_RETURN_IF_ERROR(SaveCheckpoint());
    }
    return Status::OK();
  }

  // Applies one remote version: written locally unless already there, or a conflict when the
  // local entity changed since the two last agreed.
  Status PullOne(Entity remote) {
    const std::string pk = remote.partition_key(), rk = remote.row_key();
    PARTKV_ASSIGN_OR_RETURN(std::optional<Shadow> shadow, LoadShadow(pk, rk));
    if (shadow && shadow->remote_etag == remote.etag()) {
      ++report_.pull_unchanged;
      return Status::OK();
    }
    for (int attempt = 0; attempt < kMaxResolveAttempts; ++attempt) {
      PARTKV_ASSIGN_OR_RETURN(std::optional<Entity> local, LocalGet(pk, rk));
      if (local && local->SameContent(remote)) {
        ++report_.pull_unchanged;
        StageShadow(pk, rk, Shadow{remote.etag(), local->etag()});
        return Status::OK();
      }
      const bool local_changed =
          local ? (!shadow || shadow->local_etag != local->etag()) : shadow.has_value();
      if (local_changed) return Resolve(pk, rk, std::move(remote));
      Status s = WriteLocal(pk, rk, local, remote);
      if (s.ok()) {
        ++report_.pulled;
        return Status::OK();
      }
      if (!IsConflictStatus(s)) return s;  // else the application wrote it meanwhile
    }
    return Status::Busy("sync: entity (" + pk + ", " + rk + ") kept changing while it was pulled");
  }

  // ---- reconcile --------------------------------------------------------------------------

  Status Reconcile() {
    std::unordered_set<KeyHash, KeyHashHasher> remote_keys;
    Query q;
    q.select = {"PartitionKey", "RowKey"};
    std::vector<std::pair<std::string, std::string>> unseen;
    do {
      ++report_.remote_requests;
      PARTKV_ASSIGN_OR_RETURN(Page page, remote_.QueryEntities(q));
      for (const Entity& r : page.entities) {
        ++report_.remote_keys_listed;
        remote_keys.insert(HashKeys(r.partition_key(), r.row_key()));
        PARTKV_ASSIGN_OR_RETURN(std::optional<Shadow> shadow,
                                LoadShadow(r.partition_key(), r.row_key()));
        if (!shadow || shadow->remote_etag != r.etag()) {
          unseen.emplace_back(r.partition_key(), r.row_key());
        }
      }
      Progress("reconcile");
      q.continuation = page.continuation;
    } while (!q.continuation.empty());
    // Remote entities the Timestamp queries missed (older than the overlap when written).
    for (const auto& [pk, rk] : unseen) {
      PARTKV_ASSIGN_OR_RETURN(std::optional<Entity> r, RemoteGet(pk, rk));
      if (r) PARTKV_RETURN_IF_ERROR(PullOne(std::move(*r)));
    }
    PARTKV_RETURN_IF_ERROR(FlushShadows());
    // Entities synced once that the remote no longer has: deleted there.
    Query shadows;
    shadows.partition_key = shadow_pk_;
    std::vector<std::pair<std::string, std::string>> gone_keys;
    do {
      PARTKV_ASSIGN_OR_RETURN(Page page, state_.QueryEntities(shadows));
      for (const Entity& s : page.entities) {
        std::string pk = StringProp(s, kShadowPk), rk = StringProp(s, kShadowRk);
        if (remote_keys.contains(HashKeys(pk, rk))) continue;
        gone_keys.emplace_back(std::move(pk), std::move(rk));
      }
      shadows.continuation = page.continuation;
    } while (!shadows.continuation.empty());
    for (const auto& [pk, rk] : gone_keys) {
      PARTKV_RETURN_IF_ERROR(RemoteGone(pk, rk));
    }
    PARTKV_RETURN_IF_ERROR(FlushShadows());
    if (push_started_) PARTKV_RETURN_IF_ERROR(Orphans(remote_keys));
    return Status::OK();
  }

  // Local entities the remote does not have and the pair has no shadow of, written before this
  // sync's push began: every change the application made by then was pushed (or resolved), so
  // such an entity was written by an earlier sync's pull that was killed before it saved its
  // shadow, and the remote has deleted it since. Each is a conflict against a remote delete.
  Status Orphans(const std::unordered_set<KeyHash, KeyHashHasher>& remote_keys) {
    Query q;
    q.select = {"PartitionKey", "RowKey"};
    std::vector<std::pair<std::string, std::string>> orphans;
    do {
      PARTKV_ASSIGN_OR_RETURN(Page page, local_.QueryEntities(q));
      for (const Entity& e : page.entities) {
        if (!(e.timestamp() < *push_started_)) continue;
        if (remote_keys.contains(HashKeys(e.partition_key(), e.row_key()))) continue;
        PARTKV_ASSIGN_OR_RETURN(std::optional<Shadow> shadow,
                                LoadShadow(e.partition_key(), e.row_key()));
        if (!shadow) orphans.emplace_back(e.partition_key(), e.row_key());
      }
      q.continuation = page.continuation;
    } while (!q.continuation.empty());
    for (const auto& [pk, rk] : orphans) {
      PARTKV_RETURN_IF_ERROR(Resolve(pk, rk, std::nullopt));
    }
    return FlushShadows();
  }

  Status RemoteGone(const std::string& pk, const std::string& rk) {
    PARTKV_ASSIGN_OR_RETURN(std::optional<Shadow> shadow, LoadShadow(pk, rk));
    if (!shadow) return Status::OK();
    for (int attempt = 0; attempt < kMaxResolveAttempts; ++attempt) {
      PARTKV_ASSIGN_OR_RETURN(std::optional<Entity> local, LocalGet(pk, rk));
      if (!local) {
        StageShadow(pk, rk, std::nullopt);
        return Status::OK();
      }
      if (local->etag() != shadow->local_etag) return Resolve(pk, rk, std::nullopt);
      Status s = WriteLocal(pk, rk, local, std::nullopt);
      if (s.ok()) {
        ++report_.pulled_deletes;
        return Status::OK();
      }
      if (!IsConflictStatus(s)) return s;
    }
    return Status::Busy("sync: entity (" + pk + ", " + rk + ") kept changing while reconciled");
  }

  void Progress(const char* phase) {
    if (!options_.on_progress) return;
    SyncProgress p;
    p.phase = phase;
    p.pushed = report_.pushed + report_.pushed_deletes;
    p.pulled = report_.pulled + report_.pulled_deletes;
    p.conflicts = report_.conflicts;
    options_.on_progress(p);
  }

  Table local_;
  Table remote_;
  Table state_;
  std::optional<Table> conflicts_;
  const std::string pair_;
  const std::string shadow_pk_;
  const std::string remote_identity_;
  Store& local_store_;
  const SyncOptions& options_;
  Entity checkpoint_;
  std::vector<std::pair<std::string, std::optional<Entity>>> pending_shadows_;
  uint64_t set_aside_seq_ = 0;
  // When this sync's push began (the local clock, as the local table's Timestamps); none when it
  // did not push.
  std::optional<DateTime> push_started_;
  SyncReport report_;
};

// Table names compare without regard to case (Azure Table's rule).
bool SameTableName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

Status CheckOptions(const SyncOptions& o) {
  if (o.overlap.count() < 0 || o.overlap > kMaxOverlap) {
    return Status::InvalidArgument("sync: overlap must be 0..31536000 seconds (a year)");
  }
  if (o.max_batches_in_flight < 1 || o.max_batches_in_flight > 64) {
    return Status::InvalidArgument("sync: max_batches_in_flight must be 1..64");
  }
  if (o.state_table.empty()) return Status::InvalidArgument("sync: state_table is empty");
  return Status::OK();
}

}  // namespace

const char* ConflictPolicyName(ConflictPolicy policy) {
  switch (policy) {
    case ConflictPolicy::kRemoteWins:
      return "remote-wins";
    case ConflictPolicy::kLocalWins:
      return "local-wins";
    case ConflictPolicy::kLastWriter:
      return "last-writer";
    case ConflictPolicy::kReport:
      return "report";
  }
  return "unknown";
}

std::optional<ConflictPolicy> ParseConflictPolicy(std::string_view name) {
  for (ConflictPolicy p : {ConflictPolicy::kRemoteWins, ConflictPolicy::kLocalWins,
                           ConflictPolicy::kLastWriter, ConflictPolicy::kReport}) {
    if (name == ConflictPolicyName(p)) return p;
  }
  return std::nullopt;
}

Result<SyncReport> SyncTable(Store& local, std::string_view table, Store& remote,
                             std::string_view remote_table, const SyncOptions& options) {
  PARTKV_RETURN_IF_ERROR(CheckOptions(options));
  if (Store::IsRemoteLocation(local.path())) {
    return Status::InvalidArgument("sync: the local store is a remote location");
  }
  PARTKV_ASSIGN_OR_RETURN(Table local_table, local.OpenTable(table));
  PARTKV_ASSIGN_OR_RETURN(ChangeFeedState feed, local_table.FeedState());
  if (!feed.options.enabled) {
    return Status::InvalidArgument("sync: table " + std::string(table) +
                                   " keeps no change feed (TableSettings::change_feed)");
  }
  PARTKV_ASSIGN_OR_RETURN(Table remote_handle, remote.OpenTable(remote_table));
  if (SameTableName(options.state_table, table) || SameTableName(options.conflicts_table, table) ||
      (options.conflicts_table.empty() &&
       SameTableName(options.state_table, std::string(table) + "Conflicts"))) {
    return Status::InvalidArgument("sync: the state and conflicts tables must not be the table");
  }
  Status created = local.CreateTable(options.state_table);
  if (!created.ok() && !created.IsAlreadyExists()) return created;
  PARTKV_ASSIGN_OR_RETURN(Table state, local.OpenTable(options.state_table));

  // A local store stands for the same remote whatever path names it.
  std::string remote_path = remote.path();
  if (!Store::IsRemoteLocation(remote_path)) {
    std::error_code ec;
    std::filesystem::path canonical = std::filesystem::weakly_canonical(remote_path, ec);
    if (!ec) remote_path = canonical.string();
  }
  const std::string remote_identity = remote_path + "/" + std::string(remote_table);
  const std::string pair_source = std::string(table) + '\n' + remote_identity;
  const XXH64_hash_t h = XXH3_64bits(pair_source.data(), pair_source.size());
  unsigned char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(h >> (56 - 8 * i));
  const std::string pair = "pair" + Hex(bytes, 8);
  RunningPairs& running = Running();
  {
    port::MutexLock lock(&running.mu);
    if (!running.pairs.insert(pair).second) {
      return Status::Busy("sync: table " + std::string(table) + " is already syncing with " +
                          remote_identity);
    }
  }
  Sync sync(std::move(local_table), std::move(remote_handle), std::move(state), pair,
            remote_identity, local, options);
  SyncReport report = sync.Run();
  {
    port::MutexLock lock(&running.mu);
    running.pairs.erase(pair);
  }
  return report;
}

}  // namespace partkv
