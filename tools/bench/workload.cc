#include "tools/bench/workload.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "fmt/format.h"

namespace partkv::compare {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr int64_t kMicrosPerHour = 3600LL * 1000000;
constexpr int64_t kSecondsPerDay = 86400;
constexpr double kDeviceZipf = 1.0;
constexpr double kCustomerZipf = 0.8;
// The burst hour's weight, in multiples of the busiest ordinary hour.
constexpr double kBurstFactor = 6.0;
// Longest `notes` text: with the other 14 properties, values top out near 1 KB.
constexpr double kMaxNotes = 700;

// splitmix64: derives independent values from one event's bits.
uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// A double in [0, 1) from 53 random bits (std::uniform_real_distribution is not portable).
double Unit(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// Draws ranks 0..n-1 with probability proportional to 1 / (rank + 1)^s.
class Zipf {
 public:
  Zipf(uint32_t n, double s) : cdf_(n) {
    double sum = 0;
    for (uint32_t k = 0; k < n; ++k) {
      sum += 1.0 / std::pow(static_cast<double>(k + 1), s);
      cdf_[k] = sum;
    }
    for (double& c : cdf_) c /= sum;
  }
  uint32_t operator()(uint64_t bits) const {
    auto it = std::upper_bound(cdf_.begin(), cdf_.end(), Unit(bits));
    return static_cast<uint32_t>(std::min<size_t>(it - cdf_.begin(), cdf_.size() - 1));
  }

 private:
  std::vector<double> cdf_;
};

// Rank -> id by a fixed stride coprime to n, so the busiest device is not device 0.
uint32_t Scatter(uint32_t rank, uint32_t n) {
  uint64_t stride = 7919;  // prime
  while (n > 1 && std::gcd<uint64_t>(stride, n) != 1) stride += 2;
  return static_cast<uint32_t>((rank * stride) % n);
}

double HourWeight(uint32_t day, int hour, uint32_t burst_day) {
  // Quiet at 04:00, busiest at 16:00.
  double w = 0.3 + 0.7 * (0.5 - 0.5 * std::cos(2 * kPi * (hour - 4) / 24.0));
  if (day % 7 >= 5) w *= 0.6;  // day 0 is a Monday
  if (day == burst_day && hour == Workload::kBurstHour) w = kBurstFactor;
  return w;
}

// Splits `total` into integer parts proportional to `weights` (largest remainder, ties to the
// earlier slot), so the parts always sum to `total`.
std::vector<uint64_t> Apportion(uint64_t total, const std::vector<double>& weights) {
  double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<uint64_t> parts(weights.size());
  std::vector<std::pair<double, size_t>> remainders;
  uint64_t given = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    double exact = static_cast<double>(total) * weights[i] / sum;
    parts[i] = static_cast<uint64_t>(std::floor(exact));
    given += parts[i];
    remainders.emplace_back(exact - std::floor(exact), i);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; given < total; ++k, ++given) ++parts[remainders[k % remainders.size()].second];
  return parts;
}

// Short words, so `notes` compresses like text rather than like noise.
constexpr const char* kWords[] = {
    "ok",    "warm",   "cold",  "door",   "open",  "fan",    "idle",  "busy",  "reset", "low",
    "high",  "net",    "lamp",  "beep",   "fine",  "check",  "sync",  "delay", "dust",  "soft",
    "valve", "signal", "retry", "filter", "power", "sensor", "drift", "clean", "late",  "queue"};
constexpr const char* kRegions[] = {"eu-west", "eu-north",  "us-east",
                                    "us-west", "asia-east", "asia-south"};

// A long run of words; an entity's notes are a slice of it at a random offset.
std::string WordRun(uint64_t seed, size_t length) {
  std::string out;
  out.reserve(length + 8);
  while (out.size() < length) {
    seed = Mix(seed);
    if (!out.empty()) out.push_back(' ');
    out += kWords[seed % std::size(kWords)];
  }
  out.resize(length);
  return out;
}

constexpr size_t kWordRun = 64 * 1024;

// Days since 1970-01-01 -> "yyyy-mm-dd" (the civil calendar, proleptic Gregorian).
std::string CivilDate(int64_t days) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return fmt::format("{:04d}-{:02d}-{:02d}", y, m, d);
}

}  // namespace

Workload Workload::Generate(const WorkloadOptions& options) {
  Workload w;
  w.options_ = options;
  std::mt19937_64 random(options.seed);
  const uint32_t days = options.days;
  std::vector<double> weights;
  for (uint32_t d = 0; d < days; ++d) {
    for (int h = 0; h < 24; ++h) weights.push_back(HourWeight(d, h, w.burst_day()));
  }
  const std::vector<uint64_t> per_hour = Apportion(options.events, weights);
  const Zipf devices(options.devices, kDeviceZipf);
  const Zipf customers(options.customers, kCustomerZipf);

  w.events_.reserve(options.events);
  w.day_begin_.assign(days + 1, 0);
  std::vector<int64_t> offsets;
  for (uint32_t d = 0; d < days; ++d) {
    w.day_begin_[d] = w.events_.size();
    for (int h = 0; h < 24; ++h) {
      const uint64_t n = per_hour[d * 24 + h];
      offsets.resize(n);
      for (auto& o : offsets) o = static_cast<int64_t>(Unit(random()) * kMicrosPerHour);
      std::sort(offsets.begin(), offsets.end());
      const int64_t hour_start =
          (kStartUnixSeconds + static_cast<int64_t>(d) * kSecondsPerDay) * 1000000 +
          h * kMicrosPerHour;
      if (d == w.burst_day() && h == kBurstHour) w.burst_begin_ = w.events_.size();
      for (int64_t o : offsets) {
        Event e;
        e.unix_micros = hour_start + o;
        e.device = Scatter(devices(random()), options.devices);
        e.customer = Scatter(customers(random()), options.customers);
        e.bits = random();
        w.events_.push_back(e);
      }
      if (d == w.burst_day() && h == kBurstHour) w.burst_end_ = w.events_.size();
    }
  }
  w.day_begin_[days] = w.events_.size();
  for (uint32_t d = 0; d < days; ++d) w.dates_.push_back(DateText(d));
  for (uint32_t d = 0; d < options.devices; ++d) {
    w.device_ids_.push_back(DeviceId(d));
    w.firmware_.push_back(fmt::format("fw-{}.{}.{}", 2 + d % 3, d % 7, d % 11));
  }
  for (uint32_t c = 0; c < options.customers; ++c) {
    w.customer_ids_.push_back(fmt::format("cust-{:06d}", c));
  }
  w.words_ = WordRun(options.seed, kWordRun);
  return w;
}

uint32_t Workload::DayOf(size_t i) const {
  auto it = std::upper_bound(day_begin_.begin(), day_begin_.end(), i);
  return static_cast<uint32_t>(it - day_begin_.begin() - 1);
}

std::string Workload::DateText(uint32_t day) {
  return CivilDate(kStartUnixSeconds / kSecondsPerDay + day);
}

std::string Workload::DeviceId(uint32_t device) { return fmt::format("dev-{:05d}", device); }

std::string Workload::OrderId(size_t i) { return fmt::format("ORD-{:08d}", i + 1); }

Entity Workload::Attributes(size_t i) const {
  const Event& ev = events_[i];
  Entity e;
  e.ReserveProperties(4);
  // Names in sorted order, as AppendSorted requires.
  e.AppendSorted("date", Value::String(dates_[DayOf(i)]));
  e.AppendSorted("deviceId", Value::String(device_ids_[ev.device]));
  e.AppendSorted("orderId", Value::String(OrderId(i)));
  e.AppendSorted("time", Value::DateTime(DateTime::FromUnixMicros(ev.unix_micros)));
  return e;
}

Entity Workload::MakeEntity(size_t i) const {
  const Event& ev = events_[i];
  const uint64_t r1 = Mix(ev.bits), r2 = Mix(r1), r3 = Mix(r2), r4 = Mix(r3);
  Guid session;
  for (int b = 0; b < 8; ++b) {
    session.bytes[b] = static_cast<uint8_t>(r3 >> (8 * b));
    session.bytes[8 + b] = static_cast<uint8_t>(r4 >> (8 * b));
  }
  // Mostly short notes, a few long ones: the values spread from about 300 B to about 1 KB.
  const double u = Unit(r2);
  const size_t notes = static_cast<size_t>(kMaxNotes * u * u);
  Entity e;
  e.ReserveProperties(15);
  // Names in sorted (byte) order, as AppendSorted requires.
  e.AppendSorted("amount", Value::Double(static_cast<double>(r1 % 100000) / 100.0));
  e.AppendSorted("batteryPct", Value::Int32(static_cast<int32_t>((r1 >> 20) % 101)));
  e.AppendSorted("customerId", Value::String(customer_ids_[ev.customer]));
  e.AppendSorted("date", Value::String(dates_[DayOf(i)]));
  e.AppendSorted("deviceId", Value::String(device_ids_[ev.device]));
  e.AppendSorted("express", Value::Boolean(((r1 >> 30) & 7) == 0));
  e.AppendSorted("firmware", Value::String(firmware_[ev.device]));
  e.AppendSorted("lineItems", Value::Int32(static_cast<int32_t>(1 + (r1 >> 34) % 12)));
  e.AppendSorted("notes", Value::String(words_.substr((r2 >> 20) % (kWordRun - notes), notes)));
  e.AppendSorted("orderId", Value::String(OrderId(i)));
  e.AppendSorted("region", Value::String(kRegions[ev.device % std::size(kRegions)]));
  e.AppendSorted("sequence", Value::Int64(static_cast<int64_t>(i)));
  e.AppendSorted("sessionId", Value::Guid(session));
  e.AppendSorted("temperature", Value::Double(15.0 + static_cast<double>(r1 >> 40) / 1e5));
  e.AppendSorted("time", Value::DateTime(DateTime::FromUnixMicros(ev.unix_micros)));
  return e;
}

}  // namespace partkv::compare
