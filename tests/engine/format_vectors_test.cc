// Checks the key and value codecs against the byte-level vectors in docs/format.md, so the
// document and the code cannot drift apart.

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/key_codec.h"
#include "engine/value_codec.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testing/status_matchers.h"

namespace partkv::engine {
namespace {

std::string Hex(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

std::string Unhex(std::string_view h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16));
  }
  return out;
}

std::string Unquote(std::string cell) {
  // Cells are `code`: strip whitespace and backticks.
  size_t b = cell.find_first_not_of(" `"), e = cell.find_last_not_of(" `");
  return b == std::string::npos ? "" : cell.substr(b, e - b + 1);
}

// The rows of the table that follows the marker `<!-- vectors:NAME -->`, cells unquoted.
std::vector<std::vector<std::string>> VectorRows(const std::string& name) {
  std::ifstream in(std::string(PARTKV_SOURCE_DIR) + "/docs/format.md");
  EXPECT_TRUE(in.good()) << "docs/format.md not found";
  std::string line;
  bool inside = false;
  std::vector<std::vector<std::string>> rows;
  while (std::getline(in, line)) {
    if (line.find("<!-- vectors:" + name + " -->") != std::string::npos) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.find("<!-- end vectors -->") != std::string::npos) break;
    if (line.rfind("|", 0) != 0 || line.find("---") != std::string::npos) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1));
    std::string cell;
    while (std::getline(ss, cell, '|')) cells.push_back(Unquote(cell));
    rows.push_back(cells);
  }
  if (!rows.empty()) rows.erase(rows.begin());  // the header row
  return rows;
}

Value ValueFromVector(const nlohmann::json& type, const nlohmann::json& v) {
  std::string t = type.get<std::string>();
  if (t == "String") return Value::String(v.get<std::string>());
  if (t == "Binary") return Value::Binary(Unhex(v.get<std::string>()));
  if (t == "Boolean") return Value::Boolean(v.get<bool>());
  if (t == "DateTime") return Value::DateTime(DateTime{v.get<int64_t>()});
  if (t == "Double") return Value::Double(v.get<double>());
  if (t == "Guid") return Value::Guid(*Guid::Parse(v.get<std::string>()));
  if (t == "Int32") return Value::Int32(v.get<int32_t>());
  if (t == "Int64") return Value::Int64(v.get<int64_t>());
  ADD_FAILURE() << "unknown type in docs/format.md: " << t;
  return Value();
}

TEST(FormatVectors, KeyEncodingMatchesDocument) {
  auto rows = VectorRows("key");
  ASSERT_GE(rows.size(), 4u);
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 3u);
    std::string pk = nlohmann::json::parse(row[0]).get<std::string>();
    std::string rk = nlohmann::json::parse(row[1]).get<std::string>();
    EXPECT_EQ(Hex(EntityKey(pk, rk)), row[2]) << row[0] << " " << row[1];
    std::string dpk, drk;
    ASSERT_OK(DecodeEntityKey(Unhex(row[2]), &dpk, &drk));
    EXPECT_EQ(dpk, pk);
    EXPECT_EQ(drk, rk);
  }
}

TEST(FormatVectors, ValueEncodingMatchesDocument) {
  auto rows = VectorRows("value");
  ASSERT_GE(rows.size(), 3u);
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 4u);
    ValueHeader h{std::stoll(row[0]), std::stoull(row[1])};
    Entity e;
    for (const auto& p : nlohmann::json::parse(row[2])) {
      e.Set(p[0].get<std::string>(), ValueFromVector(p[1], p[2]));
    }
    std::string encoded;
    EncodeValue(h, e, &encoded);
    EXPECT_EQ(Hex(encoded), row[3]) << row[2];

    Entity back;
    ValueHeader hb;
    ASSERT_OK(DecodeValue(Unhex(row[3]), &hb, &back));
    EXPECT_EQ(hb.timestamp_ticks, h.timestamp_ticks);
    EXPECT_EQ(hb.etag_version, h.etag_version);
    EXPECT_TRUE(back.SameContent(e)) << back.DebugString();
  }
}

}  // namespace
}  // namespace partkv::engine
