// partkv::Clock — the time source of throughput budgets (throttling emulation) and of retry
// back-off. The default is the process's steady clock; tests inject a ManualClock so budgets are
// deterministic and no test sleeps.
//
// Thread-safety: implementations must be safe to call from any thread.

#ifndef PARTKV_CLOCK_H_
#define PARTKV_CLOCK_H_

#include <atomic>
#include <cstdint>
#include <memory>

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic microseconds from an arbitrary origin.
  virtual int64_t NowMicros() = 0;
  // Waits `micros` microseconds (a ManualClock just advances).
  virtual void SleepMicros(int64_t micros) = 0;

  // The steady clock of the process (shared instance).
  static std::shared_ptr<Clock> Steady();
};

// A clock that moves only when told to: Advance(), or SleepMicros() by a retrying caller.
class ManualClock : public Clock {
 public:
  explicit ManualClock(int64_t start_micros = 0) : now_(start_micros) {}
  int64_t NowMicros() override { return now_.load(std::memory_order_acquire); }
  void SleepMicros(int64_t micros) override { Advance(micros); }
  void Advance(int64_t micros) { now_.fetch_add(micros, std::memory_order_acq_rel); }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_CLOCK_H_
