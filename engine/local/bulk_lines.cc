#include "engine/local/bulk_lines.h"

#include <cstring>

#include "engine/local/bulk_spill.h"

namespace partkv::engine {
namespace {

bool IsBlankLine(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

}  // namespace

uint64_t CountLines(std::string_view block) {
  // memchr skips a line's bytes many at a time; std::count looks at each.
  uint64_t n = 0;
  for (const char *p = block.data(), *end = p + block.size();
       (p = static_cast<const char*>(std::memchr(p, '\n', end - p))) != nullptr; ++p) {
    ++n;
  }
  return (!block.empty() && block.back() != '\n') ? n + 1 : n;
}

LineSealer::LineSealer(const RowSealer& sealer, JsonReadOptions read_options, size_t workers)
    : sealer_(sealer), read_options_(read_options), slots_(2 * workers) {
  // Twice as many blocks as workers, so that no worker waits while the owner takes blocks back.
  for (size_t i = 0; i < workers; ++i) threads_.emplace_back([this] { Work(); });
}

LineSealer::~LineSealer() {
  {
    port::MutexLock lock(&mu_);
    stop_ = true;
  }
  work_.SignalAll();
  for (std::thread& t : threads_) t.join();
}

void LineSealer::Submit(std::string_view text, uint64_t first_line) {
  LineBlock& block = slot(submitted_);
  block.text.assign(text);
  block.first_line = first_line;
  port::MutexLock lock(&mu_);
  block.done = false;
  queue_.push_back(submitted_++);
  work_.Signal();
}

LineBlock& LineSealer::Oldest() {
  port::MutexLock lock(&mu_);
  while (!slot(popped_).done) done_.Wait();
  return slot(popped_);
}

void LineSealer::Work() {
  while (true) {
    uint64_t seq;
    {
      port::MutexLock lock(&mu_);
      while (!stop_ && queue_.empty()) work_.Wait();
      if (stop_) return;
      seq = queue_.front();
      queue_.pop_front();
    }
    Seal(slot(seq));
    {
      port::MutexLock lock(&mu_);
      slot(seq).done = true;
    }
    done_.SignalAll();
  }
}

void LineSealer::Seal(LineBlock& block) const {
  block.records.clear();
  block.rows = 0;
  block.bad_line = 0;
  block.error = Status::OK();
  block.taken = 0;
  std::string_view rest(block.text);
  uint64_t line_number = block.first_line;
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!IsBlankLine(line)) {
      Result<Entity> entity = EntityFromJson(line, read_options_);
      Status s = entity.ok() ? AppendRecord(sealer_, *entity, line_number, &block.records)
                             : entity.status();
      if (!s.ok()) {
        block.bad_line = line_number;
        block.error = s.WithContext("line " + std::to_string(line_number));
        return;
      }
      ++block.rows;
    }
    ++line_number;
  }
}

}  // namespace partkv::engine
