// The remote backend's queries (remote_backend.h): key conditions as $filter clauses, sealed
// continuation tokens over the service's, and QueryShards' scatter-gather merge.

#include <xxhash.h>

#include <algorithm>

#include "engine/filter_expr.h"
#include "engine/remote/query_page.h"
#include "engine/remote/remote_table.h"
#include "engine/token.h"
#include "partkv/json.h"

namespace partkv::remote {
namespace {

constexpr uint8_t kFlagShards = 2;  // as the local engine's (engine/local/query.cc)

// The smallest string above every string that starts with `prefix`, as valid UTF-8 (a filter's
// literal must be): the last code point that can grow grows by one, the ones after it go.
// "" when there is none (the prefix is all U+10FFFF).
std::string PrefixSuccessor(std::string_view prefix) {
  std::string s(prefix);
  while (!s.empty()) {
    size_t start = s.size() - 1;
    while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
    const unsigned char* p = reinterpret_cast<const unsigned char*>(s.data() + start);
    size_t n = s.size() - start;
    uint32_t cp = n == 1   ? p[0]
                  : n == 2 ? ((p[0] & 0x1Fu) << 6) | (p[1] & 0x3Fu)
                  : n == 3 ? ((p[0] & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu)
                           : ((p[0] & 0x07u) << 18) | ((p[1] & 0x3Fu) << 12) |
                                 ((p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu);
    s.resize(start);
    if (cp >= 0x10FFFF) continue;
    ++cp;
    if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xE000;
    if (cp < 0x80) {
      s.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      s.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      s.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      s.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      s.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
    return s;
  }
  return s;
}

void AddClause(std::string* filter, std::string_view clause) {
  if (!filter->empty()) *filter += " and ";
  *filter += clause;
}

void AddBound(std::string* filter, std::string_view key, const std::optional<Bound>& bound,
              bool lower) {
  if (!bound) return;
  const char* op =
      lower ? (bound->inclusive ? " ge " : " gt ") : (bound->inclusive ? " le " : " lt ");
  AddClause(filter, std::string(key) + op + ODataString(bound->key));
}

// A query's checked form, shared by QueryEntities and QueryShards.
struct RemotePlan {
  std::string filter;  // the whole $filter: key conditions and the caller's filter
  std::string select;  // the $select value, "" = all
  uint64_t fingerprint = 0;
  engine::KeyConditions filter_keys;  // the key bounds of the caller's filter
};

Result<RemotePlan> Plan(const std::string& table, const Query& q, const engine::Limits& limits,
                        std::string_view shard_clause_kind) {
  PARTKV_RETURN_IF_ERROR(engine::ValidateQueryShape(q, limits));
  if (q.descending) {
    return engine::MissingCapability("Query::descending", "descending-scans", "remote");
  }
  // The caller's filter is parsed as locally, for the same errors; it is sent as written.
  PARTKV_ASSIGN_OR_RETURN(engine::Filter parsed, engine::Filter::Parse(q.filter));
  RemotePlan p;
  p.filter_keys = parsed.key_conditions();
  if (q.partition_key) AddClause(&p.filter, "PartitionKey eq " + ODataString(*q.partition_key));
  AddBound(&p.filter, "PartitionKey", q.partition_lower, true);
  AddBound(&p.filter, "PartitionKey", q.partition_upper, false);
  AddBound(&p.filter, "RowKey", q.row_lower, true);
  AddBound(&p.filter, "RowKey", q.row_upper, false);
  if (q.row_prefix && !q.row_prefix->empty()) {
    AddClause(&p.filter, "RowKey ge " + ODataString(*q.row_prefix));
    std::string end = PrefixSuccessor(*q.row_prefix);
    if (!end.empty()) AddClause(&p.filter, "RowKey lt " + ODataString(end));
  }
  if (!parsed.Canonical().empty()) AddClause(&p.filter, "(" + q.filter + ")");
  if (!q.select.empty()) {
    std::vector<std::string> names = q.select;
    for (const char* key : {"PartitionKey", "RowKey", "Timestamp"}) names.push_back(key);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (const auto& n : names) p.select += (p.select.empty() ? "" : ",") + n;
  }
  std::string id = "partkv-remote-query/1|table=";
  for (char c : table) id.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  id += "|filter=" + p.filter + "|select=" + p.select + "|" + std::string(shard_clause_kind);
  p.fingerprint = XXH3_64bits(id.data(), id.size());
  return p;
}

// Two keys in one token: length-prefixed, so any bytes round-trip.
std::string PackKeys(std::string_view a, std::string_view b) {
  std::string out = std::to_string(a.size()) + ":";
  out += a;
  out += b;
  return out;
}

Result<std::pair<std::string, std::string>> UnpackKeys(std::string_view packed) {
  size_t colon = packed.find(':');
  size_t n = 0;
  bool ok = colon != std::string_view::npos && colon > 0 && colon <= 8;
  for (size_t i = 0; ok && i < colon; ++i) {
    ok = packed[i] >= '0' && packed[i] <= '9';
    n = n * 10 + static_cast<size_t>(packed[i] - '0');
  }
  if (!ok || n > packed.size() - colon - 1) {
    return Status::InvalidArgument("continuation token: malformed resume keys");
  }
  return std::pair<std::string, std::string>(packed.substr(colon + 1, n),
                                             packed.substr(colon + 1 + n));
}

std::string EntitiesQuery(const RemotePlan& plan, uint32_t top) {
  std::string query = "$top=" + std::to_string(top);
  if (!plan.filter.empty()) query += "&$filter=" + EncodeComponent(plan.filter);
  if (!plan.select.empty()) query += "&$select=" + EncodeComponent(plan.select);
  return query;
}

// -1, 0 or 1 as `a` sorts before, with or after `b` in UTF-16 code units, the order of .NET's
// ordinal comparison (Azure's). It differs from UTF-8's byte order only where a character above
// U+FFFF meets one of U+E000..U+FFFF. Bytes that are not UTF-8 compare as they are.
int CompareUtf16(std::string_view a, std::string_view b) {
  auto next_unit = [](std::string_view s, size_t* i, uint32_t* pending) -> uint32_t {
    if (*pending != 0) {
      uint32_t u = *pending;
      *pending = 0;
      return u;
    }
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const unsigned char c = p[*i];
    size_t n = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (*i + n > s.size()) n = 1;
    uint32_t cp = n == 1   ? c
                  : n == 2 ? ((c & 0x1Fu) << 6) | (p[*i + 1] & 0x3Fu)
                  : n == 3 ? ((c & 0x0Fu) << 12) | ((p[*i + 1] & 0x3Fu) << 6) | (p[*i + 2] & 0x3Fu)
                           : ((c & 0x07u) << 18) | ((p[*i + 1] & 0x3Fu) << 12) |
                                 ((p[*i + 2] & 0x3Fu) << 6) | (p[*i + 3] & 0x3Fu);
    *i += n;
    if (cp < 0x10000) return cp;
    cp -= 0x10000;
    *pending = 0xDC00 + (cp & 0x3FF);
    return 0xD800 + (cp >> 10);
  };
  size_t i = 0, j = 0;
  uint32_t pa = 0, pb = 0;
  while ((i < a.size() || pa != 0) && (j < b.size() || pb != 0)) {
    const uint32_t x = next_unit(a, &i, &pa);
    const uint32_t y = next_unit(b, &j, &pb);
    if (x != y) return x < y ? -1 : 1;
  }
  const bool a_left = i < a.size() || pa != 0;
  const bool b_left = j < b.size() || pb != 0;
  return a_left == b_left ? 0 : a_left ? 1 : -1;
}

// Whether `key` is on the right side of `bound`, in byte order or in UTF-16 order: a server
// that compares either way is right.
bool Within(std::string_view key, const Bound& bound, bool lower) {
  for (int c : {key.compare(bound.key) < 0 ? -1
                : key == bound.key         ? 0
                                           : 1,
                CompareUtf16(key, bound.key)}) {
    if (lower ? (c > 0 || (c == 0 && bound.inclusive)) : (c < 0 || (c == 0 && bound.inclusive))) {
      return true;
    }
  }
  return false;
}

// Whether `key` is within both bounds (an absent one is no bound), as Within reads them.
bool InRange(std::string_view key, const std::optional<Bound>& lower,
             const std::optional<Bound>& upper) {
  return (!lower || Within(key, *lower, true)) && (!upper || Within(key, *upper, false));
}

// The keys of an entity, redacted, for a message.
std::string KeysOf(const Entity& e, const ServiceClient& client) {
  return "(PartitionKey '" + client.ServiceText(e.partition_key(), 128) + "', RowKey '" +
         client.ServiceText(e.row_key(), 128) + "')";
}

}  // namespace

bool SameTableName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

Status PageCheck::Row(const Entity& e, const std::string& what, const ServiceClient& client) const {
  auto wrong = [&](std::string_view asked) {
    return Status::Corruption(what + ": the service answered with the row " + KeysOf(e, client) +
                              ", which the query did not ask for (" + std::string(asked) + ")");
  };
  if (partition_key && e.partition_key() != *partition_key) {
    return wrong("PartitionKey '" + client.ServiceText(*partition_key, 128) + "'");
  }
  if (query != nullptr) {
    const Query& q = *query;
    if (q.partition_key && e.partition_key() != *q.partition_key) {
      return wrong("PartitionKey '" + client.ServiceText(*q.partition_key, 128) + "'");
    }
    if (!InRange(e.partition_key(), q.partition_lower, q.partition_upper)) {
      return wrong("a PartitionKey range");
    }
    if (!InRange(e.row_key(), q.row_lower, q.row_upper)) return wrong("a RowKey range");
    if (q.row_prefix && !e.row_key().starts_with(*q.row_prefix)) {
      return wrong("RowKeys that start with '" + client.ServiceText(*q.row_prefix, 128) + "'");
    }
  }
  if (filter_keys != nullptr && !filter_keys->unsatisfiable) {
    const engine::KeyRange& pk = filter_keys->pk;
    const engine::KeyRange& rk = filter_keys->rk;
    if (!InRange(e.partition_key(), pk.lower, pk.upper)) {
      return wrong("the PartitionKey conditions of its filter");
    }
    if (!InRange(e.row_key(), rk.lower, rk.upper)) {
      return wrong("the RowKey conditions of its filter");
    }
  }
  if (last_row_key != nullptr) {
    if (*last_row_key && !Within(e.row_key(), Bound{**last_row_key, false}, true)) {
      return Status::Corruption(what + ": the service answered with the row " + KeysOf(e, client) +
                                " after a later or the same RowKey: its rows are not in order");
    }
    *last_row_key = e.row_key();
  }
  return Status::OK();
}

Status PageCheck::Continuation(const std::pair<std::string, std::string>& next,
                               const std::string& what, const ServiceClient& client) const {
  const size_t bytes = next.first.size() + next.second.size();
  if (bytes > kMaxServiceContinuationBytes) {
    return Status::Corruption(what + ": the service's continuation is " + std::to_string(bytes) +
                              " bytes, more than the " +
                              std::to_string(kMaxServiceContinuationBytes) +
                              " a continuation token carries");
  }
  if (sent && *sent == next) {
    return Status::Corruption(
        what + ": the endpoint " + client.endpoint().Url() +
        " answered with the very continuation it was sent (NextPartitionKey '" +
        client.ServiceText(next.first, 128) + "', NextRowKey '" +
        client.ServiceText(next.second, 128) + "'): following it would never end");
  }
  return Status::OK();
}

std::string ODataString(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    out.push_back(c);
    if (c == '\'') out.push_back('\'');
  }
  out.push_back('\'');
  return out;
}

Status RemoteTable::FetchPage(Call call, const PageCheck& check, Page* page,
                              std::pair<std::string, std::string>* next, bool* has_next) const {
  PARTKV_ASSIGN_OR_RETURN(Outcome out, client_->Send(call));
  if (out.response.status >= 300) {
    Record("", out, false, 0, 0);
    return client_->StatusOf(out.response, call.what);
  }
  PARTKV_ASSIGN_OR_RETURN(QueryPageBody body, ReadQueryPageBody(out.response.body, call.what));
  if (body.metadata) {
    // Azurite names "Tables" in every query's metadata, whatever table it reads (docs/remote.md
    // "Known divergences of the test servers"); any other name must be the table queried.
    std::string_view table = MetadataTable(*body.metadata);
    if (!table.empty() && table != "Tables" && !SameTableName(table, name_)) {
      return Status::Corruption(call.what + ": the service answered with rows of table '" +
                                client_->ServiceText(table, 128) + "'");
    }
  }
  const size_t first = page->entities.size();
  for (std::string_view text : body.objects) {
    auto entity = EntityFromJson(text, JsonReadOptions{.read_system = true});
    if (!entity.ok()) {
      return Status::Corruption(call.what + ": an entity of the service's answer does not read: " +
                                client_->ServiceText(entity.status().message()));
    }
    PARTKV_RETURN_IF_ERROR(check.Row(*entity, call.what, *client_));
    page->entities.push_back(std::move(*entity));
  }
  Record("", out, false, page->entities.size() - first, out.response.body.size());
  next->first = out.response.Header("x-ms-continuation-NextPartitionKey");
  next->second = out.response.Header("x-ms-continuation-NextRowKey");
  *has_next = !next->first.empty() || !next->second.empty();
  if (*has_next) PARTKV_RETURN_IF_ERROR(check.Continuation(*next, call.what, *client_));
  return Status::OK();
}

Status RemoteTable::QueryEntities(const Query& query, Page* page) const {
  PARTKV_ASSIGN_OR_RETURN(RemotePlan plan, Plan(name_, query, limits_, "entities"));
  Call call{.method = "GET",
            .path = path_ + "()",
            .query = EntitiesQuery(plan, query.page_size),
            .what = "query table '" + name_ + "'"};
  PageCheck check;
  check.query = &query;
  check.filter_keys = &plan.filter_keys;
  if (!query.continuation.empty()) {
    PARTKV_ASSIGN_OR_RETURN(
        engine::TokenContents token,
        engine::DecodeToken(client_->token_secret(), query.continuation, plan.fingerprint));
    if (token.flags != 0) {
      return Status::InvalidArgument("continuation token: from another kind of query");
    }
    PARTKV_ASSIGN_OR_RETURN(auto keys, UnpackKeys(token.resume_key));
    call.query += "&NextPartitionKey=" + EncodeComponent(keys.first);
    if (!keys.second.empty()) call.query += "&NextRowKey=" + EncodeComponent(keys.second);
    check.sent = std::move(keys);
  }
  page->entities.clear();
  page->continuation.clear();
  std::pair<std::string, std::string> next;
  bool has_next = false;
  PARTKV_RETURN_IF_ERROR(FetchPage(std::move(call), check, page, &next, &has_next));
  page->examined = page->entities.size();
  if (has_next) {
    page->continuation = engine::EncodeToken(
        client_->token_secret(),
        engine::TokenContents{0, plan.fingerprint, PackKeys(next.first, next.second)});
  }
  return Status::OK();
}

// ---- QueryShards ----------------------------------------------------------------------------
//
// Each shard is read in RowKey order by its own query; the merge takes the smallest (RowKey,
// PartitionKey) of the shards' heads until the page is full. A shard's buffer is filled with a
// few more rows than its share of the page, and topped up (four times as many each time) when
// it runs dry before the page is full. The token holds the last row the page returned; the
// cursors are kept under it (TakeResume), and without them the next page asks every shard for
// the rows after that row.

std::optional<std::vector<ShardCursor>> RemoteTable::TakeResume(const std::string& token) const {
  port::MutexLock lock(&resume_mu_);
  const auto now = std::chrono::steady_clock::now();
  const uint64_t generation = write_generation_.load();
  for (auto it = resume_.begin(); it != resume_.end(); ++it) {
    if (it->token != token) continue;
    std::optional<std::vector<ShardCursor>> found;
    if (it->generation == generation && now - it->at < kResumeTtl) found = std::move(it->shards);
    resume_.erase(it);
    return found;
  }
  return std::nullopt;
}

void RemoteTable::KeepResume(std::string token, std::vector<ShardCursor> shards) const {
  port::MutexLock lock(&resume_mu_);
  const auto now = std::chrono::steady_clock::now();
  resume_.push_front(
      ShardResume{std::move(token), write_generation_.load(), now, std::move(shards)});
  while (resume_.size() > kResumeEntries ||
         (!resume_.empty() && now - resume_.back().at >= kResumeTtl)) {
    resume_.pop_back();
  }
}

// One QueryShards call: the shards' cursors (fresh, or those the page before kept), topped up
// from the service and merged by (RowKey, PartitionKey) into one page.
class RemoteTable::ShardRead {
 public:
  // `after` is the (RowKey, PartitionKey) of the last row of the page before, from its token.
  ShardRead(const RemoteTable& table, const std::vector<std::string>& shard_keys,
            const Query& query, RemotePlan plan,
            std::optional<std::pair<std::string, std::string>> after)
      : table_(table),
        query_(query),
        plan_(std::move(plan)),
        after_(std::move(after)),
        n_(shard_keys.size()),
        share_(static_cast<uint32_t>(std::clamp<size_t>(
            2 * ((query.page_size + n_ - 1) / std::max<size_t>(n_, 1)), 16, query.page_size))) {
    // The cursors the previous page left, when this process made it and nothing was written
    // through this handle since: the shards' rows after the token's row, already fetched.
    if (!query.continuation.empty()) {
      if (auto kept = table_.TakeResume(query.continuation); kept && kept->size() == n_) {
        shards_ = std::move(*kept);
      }
    }
    if (shards_.empty()) {
      shards_.resize(n_);
      for (size_t i = 0; i < n_; ++i) {
        shards_[i].pk = shard_keys[i];
        shards_[i].fetch = share_;
      }
    }
  }

  // Fills every shard without rows in hand and more to come: all of them for a new read, none
  // or few when resuming.
  Status FillEmpty() {
    std::vector<size_t> to_fill;
    for (size_t i = 0; i < n_; ++i) {
      if (shards_[i].empty() && shards_[i].more) to_fill.push_back(i);
    }
    return TopUpAll(to_fill);
  }

  // Merges the shards' heads into *page through a min-heap by (RowKey, PartitionKey): a row costs
  // log N comparisons. A shard that ran dry with more to come is topped up only when the page
  // needs another row, and with it every shard in the heap that holds a quarter of its last
  // request or less: the shards of a key run dry at about the same pace, so their requests go
  // out together.
  Status Merge(Page* page) {
    page->entities.clear();
    page->continuation.clear();
    auto later = [this](size_t a, size_t b) { return Later(a, b); };
    std::vector<size_t> heap;
    heap.reserve(n_);
    for (size_t i = 0; i < n_; ++i) {
      if (!shards_[i].empty()) heap.push_back(i);
    }
    std::make_heap(heap.begin(), heap.end(), later);
    std::optional<size_t> dry;
    while (page->entities.size() < query_.page_size) {
      if (dry) {
        std::vector<size_t> which{*dry};
        for (size_t i : heap) {
          const ShardCursor& s = shards_[i];
          if (s.more && 16 * (s.buffer.entities.size() - s.head) <= s.fetch) which.push_back(i);
        }
        PARTKV_RETURN_IF_ERROR(TopUpAll(which));
        if (!shards_[*dry].empty()) {
          heap.push_back(*dry);
          std::push_heap(heap.begin(), heap.end(), later);
        }
        dry.reset();
      }
      if (heap.empty()) break;
      std::pop_heap(heap.begin(), heap.end(), later);
      const size_t best_index = heap.back();
      ShardCursor& best = shards_[best_index];
      page->entities.push_back(std::move(best.buffer.entities[best.head++]));
      if (best.empty()) {
        heap.pop_back();
        if (best.more) dry = best_index;
      } else {
        std::push_heap(heap.begin(), heap.end(), later);
      }
    }
    page->examined = page->entities.size();
    return Status::OK();
  }

  // When rows remain, seals *page's token after its last row and keeps the cursors for the next
  // page, holding at most kResumeRows(n) rows: the shards that hold the most give theirs back
  // first and will ask the service again for the rows after the token's.
  void KeepForNextPage(Page* page) {
    const bool more = std::any_of(shards_.begin(), shards_.end(),
                                  [](const ShardCursor& s) { return !s.empty() || s.more; });
    if (!more || page->entities.empty()) return;
    const Entity& last = page->entities.back();
    page->continuation =
        engine::EncodeToken(table_.client_->token_secret(),
                            engine::TokenContents{kFlagShards, plan_.fingerprint,
                                                  PackKeys(last.row_key(), last.partition_key())});
    std::vector<size_t> order(n_);
    size_t held = 0;
    for (size_t i = 0; i < n_; ++i) {
      ShardCursor& s = shards_[i];
      // Drop the rows already returned, so an entry holds only what is still to come.
      s.buffer.entities.erase(s.buffer.entities.begin(),
                              s.buffer.entities.begin() + static_cast<ptrdiff_t>(s.head));
      s.head = 0;
      held += s.buffer.entities.size();
      order[i] = i;
    }
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return shards_[a].buffer.entities.size() > shards_[b].buffer.entities.size();
    });
    for (size_t i = 0; held > kResumeRows(n_) && i < n_; ++i) {
      ShardCursor& s = shards_[order[i]];
      held -= s.buffer.entities.size();
      s.buffer.entities.clear();
      s.more = true;
      s.has_next = false;
      s.fetch = share_;
      s.last_row.reset();  // its rows after the token's come again
    }
    table_.KeepResume(page->continuation, std::move(shards_));
  }

 private:
  // Whether shard a's head sorts after shard b's, by (RowKey, PartitionKey).
  bool Later(size_t a, size_t b) const {
    const Entity& x = shards_[a].buffer.entities[shards_[a].head];
    const Entity& y = shards_[b].buffer.entities[shards_[b].head];
    int c = x.row_key().compare(y.row_key());
    return c != 0 ? c > 0 : x.partition_key() > y.partition_key();
  }

  // The request for a shard's next rows. A continuation goes with the very filter that produced
  // it (a server may bind the one to the other, as `partkv serve` does); a shard's first request
  // of a read sets it.
  Call ShardCall(ShardCursor& s) const {
    if (!s.has_next) {
      s.filter = "PartitionKey eq " + ODataString(s.pk);
      if (after_) {
        // Rows after (RowKey, PartitionKey) = `after`: in a shard whose key sorts after the
        // last row's, its RowKey itself is still to come.
        AddClause(&s.filter, std::string("RowKey ") + (s.pk > after_->second ? "ge " : "gt ") +
                                 ODataString(after_->first));
      }
      if (!plan_.filter.empty()) AddClause(&s.filter, "(" + plan_.filter + ")");
    }
    RemotePlan shard_plan{s.filter, plan_.select, 0, {}};
    Call call{.method = "GET",
              .path = table_.path_ + "()",
              .query = EntitiesQuery(shard_plan, s.fetch),
              .what = "query shard " + ODataString(s.pk) + " of table '" + table_.name_ + "'"};
    if (s.has_next) {
      call.query += "&NextPartitionKey=" + EncodeComponent(s.next.first);
      if (!s.next.second.empty()) call.query += "&NextRowKey=" + EncodeComponent(s.next.second);
    }
    return call;
  }

  // Tops a shard up: the rows it holds stay (its head does not change), the next rows of its
  // query are appended, until it holds a row or the service has no more. Each request asks for
  // four times the rows of the one before (up to a page): a shard that keeps running dry is one
  // the merge takes many rows from. Bounded: kMaxEmptyPagesInARow pages without a row end it.
  Status TopUp(ShardCursor& s) const {
    s.buffer.entities.erase(s.buffer.entities.begin(),
                            s.buffer.entities.begin() + static_cast<ptrdiff_t>(s.head));
    s.head = 0;
    for (int empty_pages = 0;;) {
      PageCheck check;
      check.query = &query_;
      check.filter_keys = &plan_.filter_keys;
      check.partition_key = s.pk;
      if (s.has_next) check.sent = s.next;
      check.last_row_key = &s.last_row;
      const size_t before = s.buffer.entities.size();
      PARTKV_RETURN_IF_ERROR(
          table_.FetchPage(ShardCall(s), check, &s.buffer, &s.next, &s.has_next));
      s.more = s.has_next;
      s.fetch = std::min<uint32_t>(s.fetch * 4, Query::kMaxPageSize);
      if (!s.more || !s.empty()) return Status::OK();
      if (s.buffer.entities.size() == before && ++empty_pages >= kMaxEmptyPagesInARow) {
        const ServiceClient& client = *table_.client_;
        return Status::Corruption("query shard " + ODataString(client.ServiceText(s.pk, 128)) +
                                  " of table '" + table_.name_ + "': the endpoint " +
                                  client.endpoint().Url() + " answered " +
                                  std::to_string(kMaxEmptyPagesInARow) +
                                  " pages in a row without a row, each with a continuation");
      }
    }
  }

  // Tops up the shards `which`, fan_out at a time, on the store's workers.
  Status TopUpAll(const std::vector<size_t>& which) {
    std::vector<Status> status(which.size());
    table_.client_->ParallelFor(which.size(),
                                [&](size_t i) { status[i] = TopUp(shards_[which[i]]); });
    for (auto& st : status) PARTKV_RETURN_IF_ERROR(st);
    return Status::OK();
  }

  const RemoteTable& table_;
  const Query& query_;
  const RemotePlan plan_;
  const std::optional<std::pair<std::string, std::string>> after_;  // (RowKey, PartitionKey)
  const size_t n_;
  const uint32_t share_;  // a shard's first request: twice its share of a page, 16 or more
  std::vector<ShardCursor> shards_;
};

Status RemoteTable::QueryShards(const std::vector<std::string>& shard_keys, const Query& query,
                                Page* page) const {
  if (client_->endpoint().host.find(".cosmos.") != std::string::npos) {
    return engine::MissingCapability("Table::QueryShards", "ordered-scans", "Cosmos DB for Table");
  }
  if (query.partition_key || query.partition_lower || query.partition_upper) {
    return Status::InvalidArgument("a sharded query takes no PartitionKey condition");
  }
  std::string kind = "shards=";
  for (const auto& k : shard_keys) kind += std::to_string(k.size()) + ":" + k;
  PARTKV_ASSIGN_OR_RETURN(RemotePlan plan, Plan(name_, query, limits_, kind));
  std::optional<std::pair<std::string, std::string>> after;  // (RowKey, PartitionKey)
  if (!query.continuation.empty()) {
    PARTKV_ASSIGN_OR_RETURN(
        engine::TokenContents token,
        engine::DecodeToken(client_->token_secret(), query.continuation, plan.fingerprint));
    if (token.flags != kFlagShards) {
      return Status::InvalidArgument("continuation token: from another kind of query");
    }
    PARTKV_ASSIGN_OR_RETURN(after, UnpackKeys(token.resume_key));
  }
  ShardRead read(*this, shard_keys, query, std::move(plan), std::move(after));
  PARTKV_RETURN_IF_ERROR(read.FillEmpty());
  PARTKV_RETURN_IF_ERROR(read.Merge(page));
  read.KeepForNextPage(page);
  return Status::OK();
}

}  // namespace partkv::remote
