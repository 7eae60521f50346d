// The comparison's workload: telemetry orders from a fleet of devices over several days, as an
// application would write them, deterministic by seed.
//
//   - Time: `days` consecutive days from 2026-11-02 (a Monday). Each hour of a day has a weight
//     that follows a diurnal curve (quiet at 04:00, busiest at 16:00), weekends carry 60 % of a
//     weekday, and one burst hour (19:00 on the middle day) carries six times the busiest hour.
//     The events are split over the hours by these weights and spread uniformly inside each hour.
//   - Who: devices and customers are drawn from Zipf distributions (exponent 1.0 over 2,000
//     devices, 0.8 over 20,000 customers), so a few devices send much of the traffic.
//   - What: entities of 15 typed properties (String, Int32, Int64, Double, DateTime, Guid,
//     Boolean) with a free-text `notes` of variable length, so that encoded values range from
//     about 200 B to about 1 KB.
//   - Natural attributes to derive keys from: `date` (yyyy-mm-dd), `deviceId` (dev-00042),
//     `orderId` (ORD-00000001 ... in time order, unique) and `time` (DateTime).
//
// Events are kept compactly (24 bytes each) and entities are built from them on demand: the
// same event always gives the same entity, byte for byte. All randomness comes from
// std::mt19937_64 (whose output the standard fixes) and splitmix64, so a seed gives the same
// workload on every platform.
//
// A Workload is immutable after Generate() and may be read from any thread.

#ifndef PARTKV_TOOLS_BENCH_WORKLOAD_H_
#define PARTKV_TOOLS_BENCH_WORKLOAD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "partkv/entity.h"

namespace partkv::compare {

struct WorkloadOptions {
  uint64_t events = 200000;
  uint32_t days = 7;
  uint64_t seed = 20261129;
  uint32_t devices = 2000;
  uint32_t customers = 20000;
};

// One event. Everything else about its entity is derived from `bits`.
struct Event {
  int64_t unix_micros = 0;
  uint32_t device = 0;
  uint32_t customer = 0;
  uint64_t bits = 0;
};

class Workload {
 public:
  // The first day: 2026-11-02T00:00:00Z.
  static constexpr int64_t kStartUnixSeconds = 1793577600;
  static constexpr int kBurstHour = 19;

  // REQUIRES: options.events >= 1, options.days >= 1, devices and customers >= 1.
  static Workload Generate(const WorkloadOptions& options);

  const WorkloadOptions& options() const { return options_; }
  // Events in time order; event i has orderId ORD-(i+1).
  const std::vector<Event>& events() const { return events_; }
  size_t size() const { return events_.size(); }

  // The whole entity of event i, with empty keys (a strategy computes them).
  Entity MakeEntity(size_t i) const;
  // Only the natural attributes of event i: date, deviceId, orderId, time.
  Entity Attributes(size_t i) const;

  uint32_t DayOf(size_t i) const;
  // Events of day d are [DayBegin(d), DayBegin(d + 1)).
  size_t DayBegin(uint32_t day) const { return day_begin_[day]; }
  uint64_t EventsOnDay(uint32_t day) const { return day_begin_[day + 1] - day_begin_[day]; }
  // The day holding the burst hour.
  uint32_t burst_day() const { return options_.days / 2; }
  // The index range of the burst hour's events.
  size_t BurstBegin() const { return burst_begin_; }
  size_t BurstEnd() const { return burst_end_; }

  static std::string DateText(uint32_t day);     // "2026-11-02" for day 0
  static std::string DeviceId(uint32_t device);  // "dev-00042"
  static std::string OrderId(size_t i);          // "ORD-00000001" for event 0

  // Mean, smallest and largest encoded value size of a sample of entities, as
  // DataSet::SampleValueSizes measures them.
  struct SizeStats {
    double mean = 0;
    size_t min = 0;
    size_t max = 0;
  };

 private:
  WorkloadOptions options_;
  std::vector<Event> events_;
  std::vector<size_t> day_begin_;  // days + 1 entries
  // Text that entities repeat, made once: building entities is a large part of every pass.
  std::vector<std::string> dates_, device_ids_, firmware_, customer_ids_;
  std::string words_;  // notes are slices of it
  size_t burst_begin_ = 0;
  size_t burst_end_ = 0;
};

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_WORKLOAD_H_
