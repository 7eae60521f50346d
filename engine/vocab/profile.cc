// The profile vocabulary: profile names, the steady clock, and the cloud services' write costs
// (partkv/profile.h, docs/analyzer.md).

#include "partkv/profile.h"

#include <array>
#include <chrono>
#include <thread>

namespace partkv {
namespace {

// Cosmos DB write cost by document size: "Understand request units consumption in Azure Cosmos
// DB", table "Document size" (learn.microsoft.com/azure/cosmos-db/understand-request-unit-
// consumption, ms.date 2026-04-21), column "Write Operation". Microsoft calls the values
// illustrative; its worked example adds 0.2 RU per indexed term.
struct RuPoint {
  double kb;
  double ru;
};
constexpr std::array<RuPoint, 12> kCosmosWriteRu = {{
    {1, 4.95},
    {2, 6.29},
    {4, 6.67},
    {8, 7.04},
    {16, 9.52},
    {32, 11.23},
    {64, 22.67},
    {128, 48.19},
    {256, 98.29},
    {512, 184.57},
    {1024, 625.00},
    {2048, 1250.00},
}};
constexpr double kCosmosRuPerIndexedTerm = 0.2;

}  // namespace

std::vector<std::string> ProfileNames() { return {"azure-table", "cosmos", "dynamodb", "none"}; }

Status CheckProfileName(std::string_view name) {
  for (const auto& n : ProfileNames()) {
    if (n == name) return Status::OK();
  }
  return Status::InvalidArgument("unknown profile '" + std::string(name) +
                                 "': use azure-table, cosmos, dynamodb or none");
}

std::shared_ptr<Clock> Clock::Steady() {
  class SteadyClock : public Clock {
   public:
    int64_t NowMicros() override {
      return std::chrono::duration_cast<std::chrono::microseconds>(
                 std::chrono::steady_clock::now().time_since_epoch())
          .count();
    }
    void SleepMicros(int64_t micros) override {
      if (micros > 0) std::this_thread::sleep_for(std::chrono::microseconds(micros));
    }
  };
  static const std::shared_ptr<Clock> clock = std::make_shared<SteadyClock>();
  return clock;
}

uint64_t DynamoDbWriteUnits(uint64_t bytes) {
  // "1 WCU = 1 write per second of an item up to 1 KB" (DynamoDB Constraints); larger items cost
  // one WCU per started KB.
  return bytes == 0 ? 1 : bytes / 1024 + (bytes % 1024 != 0 ? 1 : 0);
}

double CosmosWriteRequestUnits(uint64_t bytes, uint64_t indexed_terms) {
  double kb = static_cast<double>(bytes) / 1024.0;
  double ru;
  if (kb <= kCosmosWriteRu.front().kb) {
    ru = kCosmosWriteRu.front().ru;
  } else if (kb >= kCosmosWriteRu.back().kb) {
    ru = kCosmosWriteRu.back().ru * kb / kCosmosWriteRu.back().kb;
  } else {
    size_t i = 1;
    while (kCosmosWriteRu[i].kb < kb) ++i;
    const RuPoint& lo = kCosmosWriteRu[i - 1];
    const RuPoint& hi = kCosmosWriteRu[i];
    ru = lo.ru + (hi.ru - lo.ru) * (kb - lo.kb) / (hi.kb - lo.kb);
  }
  return ru + kCosmosRuPerIndexedTerm * static_cast<double>(indexed_terms);
}

}  // namespace partkv
