#include "api/front/copy_checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "nlohmann/json.hpp"

namespace partkv::copy {
namespace {

constexpr char kFormat[] = "partkv-copy-checkpoint 1";
// A checkpoint is small (a key per unit); a file much larger is not one.
constexpr size_t kMaxCheckpointBytes = 64u << 20;

std::string SystemError(const std::string& what, const std::string& path) {
  return what + " checkpoint '" + path + "': " + std::strerror(errno);
}

Status NotACheckpoint(const std::string& path, const std::string& why) {
  return Status::InvalidArgument("checkpoint '" + path + "' is not a copy checkpoint: " + why);
}

nlohmann::json LayoutJson(const SourceLayout& layout) {
  nlohmann::json j;
  if (layout.local) {
    j["kind"] = "local";
    j["partitions"] = layout.partitions;
  } else {
    j["kind"] = "remote";
    j["ranges"] = nlohmann::json::array();
    for (const auto& [lower, upper] : layout.ranges) j["ranges"].push_back({lower, upper});
  }
  return j;
}

Result<SourceLayout> LayoutFrom(const nlohmann::json& j, const std::string& path) {
  SourceLayout layout;
  const std::string kind = j.at("kind").get<std::string>();
  if (kind == "local") {
    layout.local = true;
    layout.partitions = j.at("partitions").get<uint32_t>();
  } else if (kind == "remote") {
    layout.local = false;
    for (const auto& r : j.at("ranges")) {
      layout.ranges.emplace_back(r.at(0).get<std::string>(), r.at(1).get<std::string>());
    }
  } else {
    return NotACheckpoint(path, "unknown source kind '" + kind + "'");
  }
  if (layout.units() == 0) return NotACheckpoint(path, "a source of no units");
  return layout;
}

}  // namespace

Result<std::unique_ptr<Checkpoint>> Checkpoint::Resume(const std::string& path,
                                                       const CopyIdentity& identity) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) {
      return Status::NotFound("no checkpoint at '" + path +
                              "' to resume from (a finished copy deletes its checkpoint)");
    }
    return Status::IOError(SystemError("cannot read", path));
  }
  std::string text;
  {
    std::ostringstream buffer;
    buffer << in.rdbuf();
    text = std::move(buffer).str();
  }
  if (text.size() > kMaxCheckpointBytes) return NotACheckpoint(path, "it is too large");
  auto checkpoint = std::unique_ptr<Checkpoint>(new Checkpoint());
  checkpoint->path_ = path;
  checkpoint->identity_ = identity;
  checkpoint->active_ = true;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (!j.is_object() || j.value("format", "") != kFormat) {
      return NotACheckpoint(path, "no \"format\": \"" + std::string(kFormat) + "\"");
    }
    const struct {
      const char* field;
      const char* what;
      const std::string& expected;
    } fields[] = {
        {"identity", "its stores are", identity.identity},
        {"from_table", "its source table is", identity.from_table},
        {"to_table", "its destination table is", identity.to_table},
        {"options", "its options are", identity.options},
    };
    for (const auto& f : fields) {
      const std::string recorded = j.at(f.field).get<std::string>();
      if (recorded != f.expected) {
        return Status::InvalidArgument("checkpoint '" + path + "' is of another copy: " + f.what +
                                       " " + recorded + ", this copy's " + f.expected);
      }
    }
    PARTKV_ASSIGN_OR_RETURN(checkpoint->layout_, LayoutFrom(j.at("source"), path));
    checkpoint->window_ = j.value("resume_window", uint64_t{0});
    const auto& units = j.at("units");
    if (!units.is_array() || units.size() != checkpoint->layout_.units()) {
      return NotACheckpoint(path, "its units do not match its source");
    }
    port::MutexLock lock(&checkpoint->mu_);
    for (const auto& u : units) {
      UnitState state;
      state.done = u.value("done", false);
      state.unordered = u.value("unordered", false);
      if (u.contains("after")) {
        state.after.emplace(u["after"].at(0).get<std::string>(),
                            u["after"].at(1).get<std::string>());
      }
      checkpoint->units_.push_back(std::move(state));
    }
  } catch (const nlohmann::json::exception& e) {
    return NotACheckpoint(path, e.what());
  }
  return checkpoint;
}

Result<std::unique_ptr<Checkpoint>> Checkpoint::Start(const std::string& path,
                                                      const CopyIdentity& identity,
                                                      SourceLayout layout, uint64_t window) {
  auto checkpoint = std::unique_ptr<Checkpoint>(new Checkpoint());
  checkpoint->identity_ = identity;
  checkpoint->window_ = window;
  checkpoint->layout_ = std::move(layout);
  port::MutexLock lock(&checkpoint->mu_);
  checkpoint->units_.resize(checkpoint->layout_.units());
  if (path.empty()) return checkpoint;
  if (access(path.c_str(), F_OK) == 0) {
    return Status::AlreadyExists("checkpoint '" + path +
                                 "' exists: resume that copy (--resume), or delete the file to "
                                 "start over");
  }
  checkpoint->path_ = path;
  checkpoint->active_ = true;
  return checkpoint;
}

Status Checkpoint::CheckLocalLayout(uint32_t partitions) const {
  if (!layout_.local) {
    return Status::InvalidArgument("checkpoint '" + path_ +
                                   "' is of a copy from a remote source, not a local one");
  }
  if (layout_.partitions != partitions) {
    return Status::InvalidArgument(
        "checkpoint '" + path_ + "' is of a source of " + std::to_string(layout_.partitions) +
        " physical partitions; the source table now has " + std::to_string(partitions) +
        " (it was dropped and created again)");
  }
  return Status::OK();
}

UnitState Checkpoint::unit(size_t index) const {
  port::MutexLock lock(&mu_);
  return units_[index];
}

void Checkpoint::Acknowledge(size_t unit, std::string partition_key, std::string row_key) {
  port::MutexLock lock(&mu_);
  if (units_[unit].unordered) return;
  units_[unit].after.emplace(std::move(partition_key), std::move(row_key));
}

void Checkpoint::Unordered(size_t unit) {
  port::MutexLock lock(&mu_);
  units_[unit].unordered = true;
  units_[unit].after.reset();
}

void Checkpoint::Done(size_t unit) {
  port::MutexLock lock(&mu_);
  units_[unit].done = true;
  units_[unit].after.reset();
}

std::string Checkpoint::Serialise() const {
  nlohmann::json j;
  j["format"] = kFormat;
  j["identity"] = identity_.identity;
  j["from_table"] = identity_.from_table;
  j["to_table"] = identity_.to_table;
  j["options"] = identity_.options;
  j["source"] = LayoutJson(layout_);
  j["resume_window"] = window_;
  j["units"] = nlohmann::json::array();
  for (const UnitState& u : units_) {
    nlohmann::json unit = nlohmann::json::object();
    if (u.done) unit["done"] = true;
    if (u.unordered) unit["unordered"] = true;
    if (u.after) unit["after"] = {u.after->first, u.after->second};
    j["units"].push_back(std::move(unit));
  }
  return j.dump(1, ' ', false, nlohmann::json::error_handler_t::strict) + "\n";
}

Status Checkpoint::Save() {
  if (!active_) return Status::OK();
  port::MutexLock save(&save_mu_);
  std::string text;
  {
    port::MutexLock lock(&mu_);
    try {
      text = Serialise();
    } catch (const nlohmann::json::exception& e) {
      return Status::InvalidArgument("checkpoint '" + path_ + "': a key is not valid UTF-8");
    }
  }
  const std::string temporary = path_ + ".tmp";
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError(SystemError("cannot write", temporary));
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const Status s = Status::IOError(SystemError("cannot write", temporary));
      close(fd);
      return s;
    }
    written += static_cast<size_t>(n);
  }
  if (close(fd) != 0) return Status::IOError(SystemError("cannot write", temporary));
  if (rename(temporary.c_str(), path_.c_str()) != 0) {
    return Status::IOError(SystemError("cannot replace", path_));
  }
  return Status::OK();
}

Status Checkpoint::Remove() {
  if (!active_) return Status::OK();
  port::MutexLock save(&save_mu_);
  if (unlink(path_.c_str()) != 0 && errno != ENOENT) {
    return Status::IOError(SystemError("cannot delete", path_));
  }
  return Status::OK();
}

}  // namespace partkv::copy
