// Progress: a one-line status on stderr, redrawn in place, shown only when stderr is a terminal
// (progress never goes to a pipe or a file, so logs stay clean and scripts see only the final
// summary).
//
//   Progress progress;
//   while (...) {
//     if (progress.Due()) progress.Show("writing: " + ...);
//   }
//   progress.Clear();
//
// Not thread-safe: drive it from one thread.

#ifndef PARTKV_TOOLS_COMMON_PROGRESS_H_
#define PARTKV_TOOLS_COMMON_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace partkv::cli {

class Progress {
 public:
  // Redraws at most this often: often enough to look alive, rarely enough to cost nothing.
  static constexpr std::chrono::milliseconds kInterval{200};

  // Enabled when stderr is a terminal.
  Progress();
  explicit Progress(bool enabled) : enabled_(enabled) {}
  ~Progress() { Clear(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool enabled() const { return enabled_; }
  // True when enabled and the last redraw is kInterval old (or there was none).
  bool Due();
  // Replaces the status line with `text`.
  void Show(std::string_view text);
  // Erases the status line (so that the next line on stderr starts clean).
  void Clear();

 private:
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

// "12 s", "3 min 05 s", "1 h 02 min": an ETA for humans.
std::string HumanDuration(double seconds);

}  // namespace partkv::cli

#endif  // PARTKV_TOOLS_COMMON_PROGRESS_H_
