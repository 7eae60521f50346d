#include "bench/bench_report.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "bench/bench_common.h"
#include "fmt/format.h"

namespace partkv::bench {

void CollectingReporter::ReportRuns(const std::vector<Run>& runs) {
  ConsoleReporter::ReportRuns(runs);
  for (const auto& run : runs) {
    std::string full = run.benchmark_name();
    std::string name = full.substr(0, full.find('/'));
    int round = 0;
    if (auto at = full.find("/round:"); at != std::string::npos) {
      round = std::atoi(full.c_str() + at + 7);
    }
    if (run.error_occurred) {
      errors_.push_back(full + ": " + run.error_message);
      continue;
    }
    auto it = run.counters.find("items_per_second");
    if (it == run.counters.end() || run.cpu_accumulated_time <= 0) continue;
    rates_[name][round] =
        RunRate{it->second.value, run.real_accumulated_time, run.cpu_accumulated_time};
  }
}

RatioReport PrintRatioTable(const std::vector<RatioLine>& lines, const RatesByName& rates) {
  std::printf("\n%-38s %16s %16s %8s %9s  %s\n", "ratio (median of rounds)", "numerator",
              "denominator", "ratio", "target", "");
  auto show = [](double rate, bool latency) {
    return latency ? fmt::format("{:.1f} us/query", rate > 0 ? 1e6 / rate : 0.0)
                   : fmt::format("{:.0f} rows/s", rate);
  };
  RatioReport report;
  for (const RatioLine& r : lines) {
    auto num = rates.find(r.numerator);
    auto den = rates.find(r.denominator);
    if (num == rates.end() || den == rates.end()) {
      std::printf("%-38s %16s\n", r.label.c_str(), "not run");
      continue;
    }
    std::vector<double> num_rates, den_rates, per_round;
    for (const auto& [round, rate] : num->second) {
      num_rates.push_back(rate.items_per_second);
      if (auto d = den->second.find(round);
          d != den->second.end() && d->second.items_per_second > 0) {
        per_round.push_back(rate.items_per_second / d->second.items_per_second);
      }
    }
    for (const auto& [round, rate] : den->second) den_rates.push_back(rate.items_per_second);
    double ratio = Median(per_round);
    std::string target = "-", verdict;
    bool met = true;
    if (r.target) {
      met = r.at_most ? ratio <= *r.target : ratio >= *r.target;
      report.all_targets_met = report.all_targets_met && met;
      target = fmt::format("{}{:.2f}x", r.at_most ? "<=" : ">=", *r.target);
      verdict = met ? "met" : "MISSED";
    }
    // For latency lines the numerator shown is the first-named side's latency.
    bool swap = r.latency && r.at_most;
    std::string a = show(Median(swap ? den_rates : num_rates), r.latency);
    std::string b = show(Median(swap ? num_rates : den_rates), r.latency);
    std::printf("%-38s %16s %16s %7.2fx %9s  %s\n", r.label.c_str(), a.c_str(), b.c_str(), ratio,
                target.c_str(), verdict.c_str());
    nlohmann::json j = {{"ratio_of", r.label},
                        {"numerator", r.numerator},
                        {"denominator", r.denominator},
                        {"numerator_items_per_second", Median(num_rates)},
                        {"denominator_items_per_second", Median(den_rates)},
                        {"per_round_ratios", per_round},
                        {"ratio", ratio}};
    if (r.target) {
      j["target"] = *r.target;
      j["target_is_upper_bound"] = r.at_most;
      j["met"] = met;
    }
    report.ratios.push_back(std::move(j));
  }
  return report;
}

nlohmann::json ReportJson(const std::vector<std::pair<std::string, std::string>>& facts) {
  nlohmann::json out;
  out["configuration"] = nlohmann::json::object();
  for (const auto& [k, v] : ConfigurationFacts()) out["configuration"][k] = v;
  for (const auto& [k, v] : facts) out["configuration"][k] = v;
  return out;
}

int FinishReport(std::string_view program, const CollectingReporter& reporter,
                 const nlohmann::json& report, const std::string& ratios_out) {
  for (const auto& e : reporter.errors()) {
    std::fprintf(stderr, "%.*s: error: %s\n", static_cast<int>(program.size()), program.data(),
                 e.c_str());
  }
  if (!ratios_out.empty()) {
    std::ofstream f(ratios_out);
    f << report.dump(2) << "\n";
    if (!f) {
      std::fprintf(stderr, "%.*s: error: cannot write %s\n", static_cast<int>(program.size()),
                   program.data(), ratios_out.c_str());
      std::exit(1);
    }
  }
  return reporter.errors().empty() ? 0 : 1;
}

int FinishRatioReport(std::string_view program, const std::vector<RatioLine>& lines,
                      const CollectingReporter& reporter,
                      const std::vector<std::pair<std::string, std::string>>& facts,
                      const std::string& ratios_out) {
  nlohmann::json out = ReportJson(facts);
  RatioReport table = PrintRatioTable(lines, reporter.rates());
  out["ratios"] = std::move(table.ratios);
  out["all_targets_met"] = table.all_targets_met;
  return FinishReport(program, reporter, out, ratios_out);
}

}  // namespace partkv::bench
