// The comparison's data (tools/bench/dataset.h): JSON Lines read in one streaming pass into kept,
// interned columns, a timeline and bounded summaries; entities made again from their lines; every
// error naming its line and attribute; and the built-in workload behind the same interface.

#include "tools/bench/dataset.h"

#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "partkv/json.h"
#include "partkv/stored_entity.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace partkv::compare {
namespace {

using ::partkv::testing::StatusIs;
using testing::TempDir;

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// Joins lines with "\n", each line ending in one.
std::string Lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

DataSetOptions Options(const std::string& path, std::vector<std::string> keep,
                       std::string time_attribute = "") {
  DataSetOptions o;
  o.path = path;
  o.keep = std::move(keep);
  o.time_attribute = std::move(time_attribute);
  return o;
}

// Loads `text` written to a file of `dir`.
Result<DataSet> LoadText(const TempDir& dir, const std::string& text, std::vector<std::string> keep,
                         std::string time_attribute = "") {
  const std::string path = dir.Sub("data.jsonl");
  WriteFile(path, text);
  return DataSet::Load(Options(path, std::move(keep), std::move(time_attribute)));
}

// The error's message, or "OK".
template <typename T>
std::string Error(const Result<T>& r) {
  return r.ok() ? "OK" : std::string(r.status().message());
}

// "line:value" of column `c` for every entity in timeline order: "2:b 1:a 3:-" (- when absent).
std::string Column(const DataSet& data, size_t c) {
  std::string out;
  for (size_t i = 0; i < data.size(); ++i) {
    const Value* v = data.Get(i, c);
    out += (i > 0 ? " " : "") + std::to_string(data.Line(i)) + ":" +
           (v == nullptr ? "-" : v->DebugString());
  }
  return out;
}

const AttributeSummary* Summary(const DataSet& data, const std::string& name) {
  for (const AttributeSummary& s : data.attributes()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

TEST(DataSetTest, KeptValuesAreInternedAndMissingOnesAbsent) {
  TempDir dir;
  auto data = LoadText(dir,
                       Lines({R"({"region":"eu","n":1,"other":"x"})",  //
                              R"({"region":"us","n":2})",              //
                              R"({"region":"eu"})",                    //
                              R"({"n":4,"region":"eu"})"}),
                       {"region", "n", "region"});
  ASSERT_OK(data);
  EXPECT_EQ(data->size(), 4u);
  EXPECT_EQ(data->kept(), (std::vector<std::string>{"region", "n"}));
  EXPECT_EQ(data->Column("n"), 1u);
  EXPECT_EQ(data->Column("other"), std::nullopt);
  EXPECT_EQ(Column(*data, 0), "1:'eu' 2:'us' 3:'eu' 4:'eu'");
  EXPECT_EQ(Column(*data, 1), "1:1 2:2 3:- 4:4");
  // One stored value for every entity that repeats it.
  EXPECT_EQ(data->Get(0, 0), data->Get(2, 0));
  EXPECT_EQ(data->Get(0, 0), data->Get(3, 0));
  EXPECT_NE(data->Get(0, 0), data->Get(1, 0));
  EXPECT_EQ(data->Attributes(0).DebugString(), "(,){n=1,region='eu'}");
  EXPECT_EQ(data->Attributes(2).DebugString(), "(,){region='eu'}");
  EXPECT_EQ(data->source(), dir.Sub("data.jsonl"));
}

TEST(DataSetTest, MakeEntityReadsTheWholeLineAgain) {
  TempDir dir;
  const std::vector<std::string> lines = {
      R"({"odata.etag":"W/\"x\"","PartitionKey":"p","RowKey":"r","Timestamp":"2024-01-01T00:00:00Z","s":"text","i":7})",
      R"({"big@odata.type":"Edm.Int64","big":"9007199254740993","d":2.5,"b":true})",
      R"({"when@odata.type":"Edm.DateTime","when":"2024-01-02T03:04:05.5Z","g@odata.type":"Edm.Guid","g":"c9da6455-213d-42c9-9a79-3e9149a57833","bin@odata.type":"Edm.Binary","bin":"AAEC"})",
  };
  auto data = LoadText(dir, Lines(lines), {"s"});
  ASSERT_OK(data);
  ASSERT_EQ(data->size(), lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    Result<Entity> made = data->MakeEntity(i);
    ASSERT_OK(made);
    Result<Entity> expected = EntityFromJson(lines[i]);
    ASSERT_OK(expected);
    EXPECT_TRUE(made->SameContent(*expected)) << made->DebugString();
  }
  EXPECT_EQ(data->MakeEntity(0)->partition_key(), "p");
}

TEST(DataSetTest, MakeEntityFailsWhenTheFileWasTruncated) {
  TempDir dir;
  auto data = LoadText(dir, Lines({R"({"a":1})", R"({"a":2})"}), {"a"});
  ASSERT_OK(data);
  std::filesystem::resize_file(dir.Sub("data.jsonl"), 3);
  Result<Entity> made = data->MakeEntity(1);
  EXPECT_THAT(made, StatusIs(Status::Code::kIOError));
  EXPECT_NE(Error(made).find("line 2"), std::string::npos) << Error(made);
}

TEST(DataSetTest, KeysAreAttributesWhenPresent) {
  TempDir dir;
  auto data = LoadText(
      dir,
      Lines({R"({"PartitionKey":"p1","RowKey":"r1","x":1})",
             R"({"PartitionKey":"p1","RowKey":"r2","x":2})", R"({"PartitionKey":"","x":3})"}),
      {"RowKey", "x", "PartitionKey"});
  ASSERT_OK(data);
  EXPECT_EQ(data->Attributes(1).DebugString(), "(p1,r2){x=2}");
  EXPECT_EQ(data->Attributes(2).DebugString(), "(,){x=3}");  // an empty key is absent
  const AttributeSummary* pk = Summary(*data, "PartitionKey");
  ASSERT_NE(pk, nullptr);
  EXPECT_EQ(pk->present, 2u);
  EXPECT_EQ(pk->distinct, 1u);
  EXPECT_EQ(pk->top_value, "p1");
  const AttributeSummary* rk = Summary(*data, "RowKey");
  ASSERT_NE(rk, nullptr);
  EXPECT_EQ(rk->distinct, 2u);
}

TEST(DataSetTest, DateTimeAttributeOrdersTheTimeline) {
  TempDir dir;
  auto at = [](const char* t, const char* id) {
    return std::string(R"({"when@odata.type":"Edm.DateTime","when":")") + t + R"(","id":")" + id +
           R"("})";
  };
  auto data = LoadText(dir,
                       Lines({at("2026-01-03T00:00:00Z", "c"), at("2026-01-01T00:00:00Z", "a"),
                              at("2026-01-02T00:00:00Z", "b")}),
                       {"id"}, "when");
  ASSERT_OK(data);
  EXPECT_TRUE(data->has_time());
  EXPECT_EQ(data->kept(), (std::vector<std::string>{"id"}));  // the time is not a column
  EXPECT_EQ(Column(*data, 0), "2:'a' 3:'b' 1:'c'");
  const int64_t day = 86400LL * 1000000;
  const int64_t jan1 = DateTime::Parse("2026-01-01T00:00:00Z")->ToUnixMicros();
  EXPECT_EQ(data->TimeMicros(0), jan1);
  EXPECT_EQ(data->TimeMicros(1), jan1 + day);
  EXPECT_EQ(data->TimeMicros(2), jan1 + 2 * day);
  // The entity of each timeline position is its own line's.
  EXPECT_EQ(data->MakeEntity(0)->Get("id")->as_string(), "a");
  EXPECT_EQ(data->MakeEntity(2)->Get("id")->as_string(), "c");
}

TEST(DataSetTest, StringsAndUnixSecondsAreTimesAndTiesKeepFileOrder) {
  TempDir dir;
  auto data = LoadText(dir,
                       Lines({R"({"t":"2026-01-01T00:00:10Z","id":"1"})",  //
                              R"({"t":5,"id":"2"})",                       //
                              R"({"t@odata.type":"Edm.Int64","t":"5","id":"3"})",
                              R"({"t":"1970-01-01T00:00:05Z","id":"4"})",  //
                              R"({"t":0,"id":"5"})"}),
                       {"id"}, "t");
  ASSERT_OK(data);
  EXPECT_EQ(Column(*data, 0), "5:'5' 2:'2' 3:'3' 4:'4' 1:'1'");
  EXPECT_EQ(data->TimeMicros(0), 0);
  EXPECT_EQ(data->TimeMicros(1), 5000000);
  EXPECT_EQ(data->TimeMicros(3), 5000000);
  EXPECT_EQ(data->TimeMicros(4), DateTime::Parse("2026-01-01T00:00:10Z")->ToUnixMicros());
}

TEST(DataSetTest, EqualTimesKeepFileOrderInALargeFile) {
  TempDir dir;
  // Enough entities that an unstable sort would reorder ties (small ranges sort stably anyway).
  std::string text;
  const int n = 3000;
  for (int i = 0; i < n; ++i) {
    text += R"({"t":)" + std::to_string((i * 7919) % 5) + R"(,"i":)" + std::to_string(i) + "}\n";
  }
  auto data = LoadText(dir, text, {"i", "t"}, "t");
  ASSERT_OK(data);
  ASSERT_EQ(data->size(), static_cast<size_t>(n));
  for (size_t k = 1; k < data->size(); ++k) {
    ASSERT_LE(data->TimeMicros(k - 1), data->TimeMicros(k));
    if (data->TimeMicros(k - 1) == data->TimeMicros(k)) {
      ASSERT_LT(data->Get(k - 1, 0)->as_int32(), data->Get(k, 0)->as_int32()) << k;
    }
    ASSERT_EQ(data->Line(k), static_cast<uint64_t>(data->Get(k, 0)->as_int32()) + 1);
    ASSERT_EQ(data->Get(k, 1)->as_int32() * 1000000LL, data->TimeMicros(k));
  }
}

TEST(DataSetTest, WithoutTimeTheTimelineIsFileOrderAtTheDefaultRate) {
  TempDir dir;
  const std::string path = dir.Sub("data.jsonl");
  WriteFile(path, Lines({R"({"a":3})", R"({"a":1})", R"({"a":2})"}));
  DataSetOptions o = Options(path, {"a"});
  o.default_rate = 4;
  auto data = DataSet::Load(o);
  ASSERT_OK(data);
  EXPECT_FALSE(data->has_time());
  EXPECT_EQ(Column(*data, 0), "1:3 2:1 3:2");
  const int64_t start = Workload::kStartUnixSeconds * 1000000;
  EXPECT_EQ(data->TimeMicros(0), start);
  EXPECT_EQ(data->TimeMicros(1), start + 250000);
  EXPECT_EQ(data->TimeMicros(2), start + 500000);

  o.default_rate = 0;
  EXPECT_THAT(DataSet::Load(o), StatusIs(Status::Code::kInvalidArgument));
}

TEST(DataSetTest, SummariesCountValuesExactly) {
  TempDir dir;
  auto data = LoadText(dir,
                       Lines({R"({"c":"x","n":1})", R"({"c":"y","n":2})", R"({"c":"x","n":3})",
                              R"({"c":"x","n":"four"})", R"({"d":1.5})"}),
                       {});
  ASSERT_OK(data);
  std::vector<std::string> names;
  for (const AttributeSummary& s : data->attributes()) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"c", "d", "n"}));
  const AttributeSummary* c = Summary(*data, "c");
  EXPECT_EQ(c->type, Type::kString);
  EXPECT_EQ(c->present, 4u);
  EXPECT_EQ(c->distinct, 2u);
  EXPECT_TRUE(c->distinct_exact);
  EXPECT_EQ(c->top_value, "x");
  EXPECT_DOUBLE_EQ(c->top_share, 0.75);
  EXPECT_EQ(c->total_value_bytes, 4u);
  const AttributeSummary* n = Summary(*data, "n");
  EXPECT_EQ(n->type, Type::kInt32);  // what most entities give it
  EXPECT_EQ(n->distinct, 4u);
  EXPECT_EQ(n->total_value_bytes, 3u + 4u);  // "1" "2" "3" and "four"
  EXPECT_EQ(Summary(*data, "d")->top_value, "1.5");
}

TEST(DataSetTest, HighCardinalityIsEstimatedWithinFivePercent) {
  TempDir dir;
  // 150,000 entities: "hot" in a fifth of them, the others all distinct; a low-cardinality
  // attribute alongside stays exact.
  std::string text;
  const size_t n = 150000;
  for (size_t i = 0; i < n; ++i) {
    const std::string id = i % 5 == 0 ? "hot" : "id-" + std::to_string(i);
    text += R"({"id":")" + id + R"(","k":)" + std::to_string(i % 7) + R"(,"u":)" +
            std::to_string(i) + "}\n";
  }
  auto data = LoadText(dir, text, {"k"});
  ASSERT_OK(data);
  const AttributeSummary* id = Summary(*data, "id");
  ASSERT_NE(id, nullptr);
  const double distinct = n - n / 5 + 1;
  EXPECT_FALSE(id->distinct_exact);
  EXPECT_NEAR(static_cast<double>(id->distinct), distinct, 0.05 * distinct);
  EXPECT_EQ(id->top_value, "hot");
  EXPECT_NEAR(id->top_share, 0.2, 0.01);
  EXPECT_EQ(id->present, n);
  // Every value of u once: no value may look frequent.
  const AttributeSummary* u = Summary(*data, "u");
  EXPECT_FALSE(u->distinct_exact);
  EXPECT_NEAR(static_cast<double>(u->distinct), n, 0.05 * n);
  EXPECT_DOUBLE_EQ(u->top_share, 1.0 / n);
  const AttributeSummary* k = Summary(*data, "k");
  EXPECT_TRUE(k->distinct_exact);
  EXPECT_EQ(k->distinct, 7u);
}

TEST(DataSetTest, ExactlyTheExactBoundStaysExact) {
  TempDir dir;
  std::string text;
  for (uint64_t i = 0; i < AttributeSummary::kExactDistinct; ++i) {
    text += R"({"id":)" + std::to_string(i) + "}\n";
  }
  auto data = LoadText(dir, text, {});
  ASSERT_OK(data);
  EXPECT_TRUE(data->attributes()[0].distinct_exact);
  EXPECT_EQ(data->attributes()[0].distinct, AttributeSummary::kExactDistinct);
  WriteFile(dir.Sub("more.jsonl"), text + "{\"id\":-1}\n");
  auto more = DataSet::Load(Options(dir.Sub("more.jsonl"), {}));
  ASSERT_OK(more);
  EXPECT_FALSE(more->attributes()[0].distinct_exact);
}

TEST(DataSetTest, AttributeNamesAreCappedButKeptOnesAlwaysTracked) {
  TempDir dir;
  // 5 entities of 201 distinct names each: 1,005 names, the kept one last.
  std::string text;
  for (int e = 0; e < 5; ++e) {
    text += "{";
    for (int k = 0; k < 201; ++k) {
      text += (k > 0 ? ",\"p" : "\"p") + std::to_string(10000 + e * 201 + k) + "\":1";
    }
    text += "}\n";
  }
  auto data = LoadText(dir, text, {"p11004"});
  ASSERT_OK(data);
  EXPECT_EQ(data->attributes().size(), DataSet::kMaxAttributes);
  EXPECT_NE(Summary(*data, "p11004"), nullptr);
  EXPECT_NE(Summary(*data, "p10000"), nullptr);
  EXPECT_EQ(Summary(*data, "p11003"), nullptr);  // first seen past the cap
  EXPECT_EQ(data->Get(4, 0)->as_int32(), 1);
}

TEST(DataSetTest, MalformedLineIsNamed) {
  TempDir dir;
  const std::string bad = R"({"a":1,})";
  auto data = LoadText(dir, Lines({R"({"a":1})", R"({"a":2})", bad}), {"a"});
  EXPECT_THAT(data, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_EQ(Error(data), "line 3: " + std::string(EntityFromJson(bad).status().message()));
}

TEST(DataSetTest, BlankLineBeforeMoreEntitiesIsAnError) {
  TempDir dir;
  auto data = LoadText(dir, Lines({R"({"a":1})", "", R"({"a":2})"}), {"a"});
  EXPECT_THAT(data, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_EQ(Error(data), "line 2: empty line (one entity per line)");
}

TEST(DataSetTest, BlankLinesAtTheEndAndCrlfAreFine) {
  TempDir dir;
  const std::string text = "{\"a\":1}\r\n{\"a\":2,\"s\":\"z\"}\r\n\r\n\n";
  auto data = LoadText(dir, text, {"a"});
  ASSERT_OK(data);
  EXPECT_EQ(Column(*data, 0), "1:1 2:2");
  Result<Entity> made = data->MakeEntity(1);
  ASSERT_OK(made);
  EXPECT_EQ(made->DebugString(), "(,){a=2,s='z'}");
}

TEST(DataSetTest, LastLineWithoutNewlineAndByteOrderMarkAreRead) {
  TempDir dir;
  auto data = LoadText(dir, "\xEF\xBB\xBF{\"a\":1}\n{\"a\":2}", {"a"});
  ASSERT_OK(data);
  EXPECT_EQ(Column(*data, 0), "1:1 2:2");
  EXPECT_EQ(data->MakeEntity(0)->DebugString(), "(,){a=1}");
  EXPECT_EQ(data->MakeEntity(1)->DebugString(), "(,){a=2}");
}

TEST(DataSetTest, EmptyFileHasNoEntities) {
  TempDir dir;
  auto data = LoadText(dir, "", {});
  EXPECT_THAT(data, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_EQ(Error(data), dir.Sub("data.jsonl") + ": no entities (the file is empty)");
  auto blank = LoadText(dir, "\n \n", {});
  EXPECT_EQ(Error(blank), dir.Sub("data.jsonl") + ": no entities (only blank lines)");
}

TEST(DataSetTest, MissingFileIsIOError) {
  TempDir dir;
  auto data = DataSet::Load(Options(dir.Sub("absent.jsonl"), {}));
  EXPECT_THAT(data, StatusIs(Status::Code::kIOError));
  EXPECT_NE(Error(data).find("absent.jsonl"), std::string::npos);
}

TEST(DataSetTest, KeptAttributeNobodyHasListsThePresentOnes) {
  TempDir dir;
  auto data =
      LoadText(dir, Lines({R"({"b":1,"a":2})", R"({"PartitionKey":"p","c":3})"}), {"a", "custId"});
  EXPECT_THAT(data, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_EQ(Error(data),
            "no entity has the attribute 'custId' (the attributes present: PartitionKey, a, b, c)");

  std::string wide = "{";
  for (int k = 0; k < 25; ++k) wide += (k > 0 ? ",\"p" : "\"p") + std::to_string(100 + k) + "\":1";
  wide += "}";
  auto many = LoadText(dir, Lines({wide}), {"missing"});
  std::string list;
  for (int k = 0; k < 20; ++k) list += (k > 0 ? ", p" : "p") + std::to_string(100 + k);
  EXPECT_EQ(Error(many),
            "no entity has the attribute 'missing' (the attributes present: " + list + ", …)");
}

TEST(DataSetTest, TimeAttributeMissingOrNotATimeIsNamed) {
  TempDir dir;
  auto missing = LoadText(dir, Lines({R"({"when":1})", R"({"x":1})"}), {}, "when");
  EXPECT_THAT(missing, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_EQ(Error(missing), "line 2: attribute 'when' is missing (it orders the timeline: --time)");
  auto boolean =
      LoadText(dir, Lines({R"({"when":1})", R"({"when":1})", R"({"when":true})"}), {}, "when");
  EXPECT_EQ(Error(boolean),
            "line 3: attribute 'when' is Boolean; --time needs a DateTime, a DateTime string or "
            "Unix seconds");
  auto text = LoadText(dir, Lines({R"({"when":"soon"})"}), {}, "when");
  EXPECT_EQ(Error(text).rfind("line 1: attribute 'when' is the String 'soon', which is not a "
                              "DateTime (",
                              0),
            0u)
      << Error(text);
  auto far = LoadText(dir, Lines({R"({"when@odata.type":"Edm.Int64","when":"999999999999999"})"}),
                      {}, "when");
  EXPECT_EQ(Error(far).rfind("line 1: attribute 'when' is 999999999999999, outside", 0), 0u)
      << Error(far);
}

TEST(DataSetTest, LinesAcrossReadChunksAndLongerThanAChunkAreWhole) {
  TempDir dir;
  // About 3 MB in lines of varying length, one of them 2.5 MB (longer than the 1 MiB buffer).
  std::vector<std::string> lines;
  for (int i = 0; i < 20000; ++i) {
    lines.push_back(R"({"i":)" + std::to_string(i) + R"(,"s":")" + std::string(i % 97, 'x') +
                    "\"}");
    if (i == 10000) lines.push_back(R"({"i":-1,"s":")" + std::string(2500000, 'y') + "\"}");
  }
  auto data = LoadText(dir, Lines(lines), {"i"});
  ASSERT_OK(data);
  ASSERT_EQ(data->size(), lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    Result<Entity> made = data->MakeEntity(i);
    ASSERT_OK(made);
    ASSERT_TRUE(made->SameContent(*EntityFromJson(lines[i]))) << "line " << i + 1;
  }
  EXPECT_EQ(data->Get(10001, 0)->as_int32(), -1);
}

TEST(DataSetTest, StdinIsSpooledAndReadAgain) {
  TempDir dir;
  const std::string spool = dir.Sub("spool");
  std::filesystem::create_directory(spool);
  const std::vector<std::string> lines = {R"({"a":"x","b":1})", R"({"a":"y","b":2})"};
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const std::string text = Lines(lines);  // smaller than a pipe's buffer
  ASSERT_EQ(::write(pipe_fds[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(pipe_fds[1]);
  DataSetOptions o = Options("-", {"a"});
  o.spool_dir = spool;
  auto data = internal::LoadSpooling(pipe_fds[0], o);
  ::close(pipe_fds[0]);
  ASSERT_OK(data);
  EXPECT_EQ(data->source(), "stdin");
  EXPECT_EQ(Column(*data, 0), "1:'x' 2:'y'");
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_TRUE(data->MakeEntity(i)->SameContent(*EntityFromJson(lines[i])));
  }
  // The copy is already unlinked: nothing is left in the spool directory.
  EXPECT_TRUE(std::filesystem::is_empty(spool));

  int empty[2];
  ASSERT_EQ(::pipe(empty), 0);
  ::close(empty[1]);
  auto none = internal::LoadSpooling(empty[0], o);
  ::close(empty[0]);
  EXPECT_EQ(Error(none), "stdin: no entities (the input is empty)");
}

TEST(DataSetTest, SampleValueSizesAreTheStoredValueSizes) {
  TempDir dir;
  const std::vector<std::string> lines = {R"({"a":"x"})", R"({"a":"a much longer value here"})"};
  auto data = LoadText(dir, Lines(lines), {});
  ASSERT_OK(data);
  const size_t small = EncodeStoredEntity(*EntityFromJson(lines[0]), DateTime{0}, 1).value.size();
  const size_t large = EncodeStoredEntity(*EntityFromJson(lines[1]), DateTime{0}, 1).value.size();
  const Workload::SizeStats s = data->SampleValueSizes();
  EXPECT_EQ(s.min, small);
  EXPECT_EQ(s.max, large);
  EXPECT_DOUBLE_EQ(s.mean, (small + large) / 2.0);
}

TEST(DataSetTest, FromWorkloadIsTheWorkload) {
  WorkloadOptions wo;
  wo.events = 3000;
  wo.days = 2;
  auto workload = std::make_shared<const Workload>(Workload::Generate(wo));
  const DataSet data = DataSet::FromWorkload(workload);
  ASSERT_EQ(data.size(), workload->size());
  EXPECT_EQ(data.kept(), (std::vector<std::string>{"date", "deviceId", "orderId", "time"}));
  EXPECT_TRUE(data.has_time());
  EXPECT_EQ(data.source(), "built-in workload");
  for (size_t i = 0; i < data.size(); i += 7) {
    EXPECT_EQ(data.TimeMicros(i), workload->events()[i].unix_micros);
    EXPECT_TRUE(data.MakeEntity(i)->SameContent(workload->MakeEntity(i))) << i;
    EXPECT_TRUE(data.Attributes(i).SameContent(workload->Attributes(i))) << i;
    EXPECT_EQ(data.Line(i), 0u);
  }
  std::set<std::string> names;
  for (const AttributeSummary& s : data.attributes()) names.insert(s.name);
  std::set<std::string> expected;
  for (const auto& [name, value] : workload->MakeEntity(0)) expected.insert(name);
  EXPECT_EQ(names, expected);
  const AttributeSummary* order = Summary(data, "orderId");
  EXPECT_EQ(order->distinct, workload->size());
  EXPECT_EQ(order->present, workload->size());
  EXPECT_EQ(Summary(data, "date")->distinct, 2u);
}

}  // namespace
}  // namespace partkv::compare
