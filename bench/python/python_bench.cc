// partkv-python-bench: partkv's Python package (python/partkv, cffi over the C API) against the
// C++ library it wraps, in one process, for the acceptance criterion
//
//   Python paging through 100,000 entities at >= 0.2x the C++ paging rate, Python batch inserts at
//   >= 0.3x the C++ batch rate, and the same workload through Debian's python3-lmdb and
//   python3-plyvel for scale.
//
// The program embeds CPython and, in each of --rounds rounds, in fresh temporary directories:
//
//   1. Batch inserts: --entities entities of the benchmarks' common layout (bench_common.h: 8
//      typed properties, about 200 encoded bytes, 100 per PartitionKey), written in batches of 100
//      (one PartitionKey each) by partkv::Table::Submit into one store and by the Python package's
//      TableClient.submit_transaction (batches of 100 "create" operations on dict entities) into
//      another. The two are interleaved in chunks of --chunk batches (the side that goes first
//      alternating), so both rates are measured in the same moments of a machine that other work
//      shares.
//   2. Paging: both tables read whole, 1,000 entities a page — C++ by Table::QueryEntities into one
//      reused Page (the fast path, the baseline of the target) and, for scale, into a new Page per
//      call; Python by list_entities(results_per_page=1000).by_page() — every property of every
//      entity touched; one page of each in turn, the order rotating.
//   3. For scale, the same entities through python3-lmdb and python3-plyvel (bench/python/
//      workload.py: JSON values under "PartitionKey\0RowKey" keys, write transactions /
//      WriteBatches of 100, one ordered scan decoding every value), each alone.
//
// Only the calls under test are timed: building a batch's entities (C++ Entity objects, Python
// dicts) is not, on either side. Rates are entities per second of wall-clock time inside those
// calls; a ratio is Python's rate over C++'s in the same round, and the figure judged against the
// target is the median of the rounds' ratios. The exit status is 0 whether the targets are met or
// missed (2 on an error).
//
//   partkv-python-bench [--entities 100000] [--rounds 3] [--chunk 10]
//
// The Python package and libpartkv are those of this build tree: the package directory, the C
// header and the library's path are compiled in (PARTKV_PYTHON_DIR, PARTKV_C_HEADER_PATH,
// PARTKV_LIBRARY_PATH) and PARTKV_LIBRARY / PARTKV_C_HEADER are set for the embedded interpreter
// before it imports partkv, so the package loads the very library this program is linked with.

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/bench_common.h"
#include "fmt/format.h"
#include "partkv/c.h"
#include "partkv/partkv.h"

#ifndef PARTKV_PYTHON_DIR
#error "PARTKV_PYTHON_DIR (the source tree's python/ directory) must be defined"
#endif
#ifndef PARTKV_BENCH_PYTHON_DIR
#error "PARTKV_BENCH_PYTHON_DIR (bench/python, where workload.py is) must be defined"
#endif
#ifndef PARTKV_LIBRARY_PATH
#error "PARTKV_LIBRARY_PATH (the libpartkv this program links) must be defined"
#endif
#ifndef PARTKV_C_HEADER_PATH
#error "PARTKV_C_HEADER_PATH (api/include/partkv/c.h) must be defined"
#endif
#ifndef PARTKV_PYTHON_EXECUTABLE
#define PARTKV_PYTHON_EXECUTABLE ""
#endif

namespace partkv::bench {
namespace {

constexpr double kPagingTarget = 0.2;
constexpr double kBatchTarget = 0.3;
constexpr uint32_t kPageSize = 1000;

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "partkv-python-bench: %s\n", what.c_str());
  std::exit(2);
}

// ---- A little CPython: owned references and calls that end the program on a Python error ----

class Ref {
 public:
  Ref() = default;
  explicit Ref(PyObject* object) : object_(object) {}
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  Ref(Ref&& other) noexcept : object_(std::exchange(other.object_, nullptr)) {}
  Ref& operator=(Ref&& other) noexcept {
    if (this != &other) {
      Py_XDECREF(object_);
      object_ = std::exchange(other.object_, nullptr);
    }
    return *this;
  }
  ~Ref() { Py_XDECREF(object_); }

  PyObject* get() const { return object_; }
  explicit operator bool() const { return object_ != nullptr; }
  void reset() {
    Py_XDECREF(object_);
    object_ = nullptr;
  }

 private:
  PyObject* object_ = nullptr;
};

// The pending Python exception as one line ("" when none), cleared.
std::string TakePythonError() {
  if (!PyErr_Occurred()) return "";
  PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
  PyErr_Fetch(&type, &value, &traceback);
  PyErr_NormalizeException(&type, &value, &traceback);
  std::string text = "unknown Python error";
  if (value != nullptr) {
    Ref type_name(PyObject_GetAttrString(type, "__name__"));
    Ref message(PyObject_Str(value));
    const char* name = type_name ? PyUnicode_AsUTF8(type_name.get()) : nullptr;
    const char* what = message ? PyUnicode_AsUTF8(message.get()) : nullptr;
    text = fmt::format("{}: {}", name != nullptr ? name : "?", what != nullptr ? what : "?");
  }
  // Print the traceback too, on stderr, for the one who has to fix it.
  PyErr_Restore(type, value, traceback);
  PyErr_Print();
  return text;
}

Ref Check(PyObject* result, const std::string& what) {
  if (result == nullptr) Fail(fmt::format("{}: {}", what, TakePythonError()));
  return Ref(result);
}

double AsDouble(PyObject* object, const std::string& what) {
  double value = PyFloat_AsDouble(object);
  if (value == -1.0 && PyErr_Occurred()) Fail(fmt::format("{}: {}", what, TakePythonError()));
  return value;
}

long long AsLong(PyObject* object, const std::string& what) {
  long long value = PyLong_AsLongLong(object);
  if (value == -1 && PyErr_Occurred()) Fail(fmt::format("{}: {}", what, TakePythonError()));
  return value;
}

std::string AsString(PyObject* object) {
  Ref text(PyObject_Str(object));
  const char* utf8 = text ? PyUnicode_AsUTF8(text.get()) : nullptr;
  if (utf8 == nullptr) {
    PyErr_Clear();
    return "?";
  }
  return utf8;
}

void StartPython() {
  // The package finds the library this program links, and nothing else.
  setenv("PARTKV_LIBRARY", PARTKV_LIBRARY_PATH, 1);
  setenv("PARTKV_C_HEADER", PARTKV_C_HEADER_PATH, 1);
#ifdef PARTKV_SPEEDUPS_PATH
  // The package's optional C extension of this build tree (unless PARTKV_SPEEDUPS is set already;
  // PARTKV_PYTHON_PURE=1 measures the pure-Python code).
  if (PARTKV_SPEEDUPS_PATH[0] != '\0') setenv("PARTKV_SPEEDUPS", PARTKV_SPEEDUPS_PATH, 0);
#endif

  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.install_signal_handlers = 0;
  config.parse_argv = 0;
  // The interpreter CMake found (the one libpython belongs to) names the prefix, so that its
  // site-packages (Debian's dist-packages: cffi, lmdb, plyvel) are on sys.path.
  if (PARTKV_PYTHON_EXECUTABLE[0] != '\0') {
    PyStatus status =
        PyConfig_SetBytesString(&config, &config.program_name, PARTKV_PYTHON_EXECUTABLE);
    if (PyStatus_Exception(status)) Fail("cannot configure the embedded Python");
  }
  PyStatus status = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(status)) {
    Fail(
        fmt::format("cannot start the embedded Python: {}", status.err_msg ? status.err_msg : "?"));
  }
  PyObject* path = PySys_GetObject("path");  // borrowed
  if (path == nullptr) Fail("the embedded Python has no sys.path");
  for (const char* dir : {PARTKV_BENCH_PYTHON_DIR, PARTKV_PYTHON_DIR}) {
    Ref entry(PyUnicode_FromString(dir));
    if (PyList_Insert(path, 0, entry.get()) != 0) Fail(TakePythonError());
  }
}

Ref Import(const char* module) {
  return Check(PyImport_ImportModule(module), fmt::format("import {}", module));
}

// ---- The C++ side ----

// Reads every property value of an entity; returns a checksum the compiler cannot drop.
uint64_t Touch(const Entity& e) {
  uint64_t acc = e.partition_key().size() + e.row_key().size();
  for (const auto& [name, value] : e) {
    acc += name.size();
    switch (value.type()) {
      case Type::kString:
        acc += value.as_string().size();
        break;
      case Type::kBinary:
        acc += value.as_binary().size();
        break;
      case Type::kBoolean:
        acc += value.as_bool() ? 1 : 0;
        break;
      case Type::kDateTime:
        acc += static_cast<uint64_t>(value.as_datetime().ticks);
        break;
      case Type::kDouble:
        acc += static_cast<uint64_t>(value.as_double());
        break;
      case Type::kGuid:
        acc += value.as_guid().bytes[0];
        break;
      case Type::kInt32:
        acc += static_cast<uint64_t>(value.as_int32());
        break;
      case Type::kInt64:
        acc += static_cast<uint64_t>(value.as_int64());
        break;
    }
  }
  return acc;
}

struct Side {
  double seconds = 0;
  uint64_t entities = 0;
  double rate() const { return seconds > 0 ? static_cast<double>(entities) / seconds : 0; }
};

struct Round {
  Side cpp_write, py_write, cpp_read, cpp_read_new_page, py_read;
  uint64_t cpp_pages = 0, cpp_new_pages = 0, py_pages = 0;
  std::optional<Side> lmdb_write, lmdb_read, plyvel_write, plyvel_read;
  std::string lmdb_error, plyvel_error;
};

class CppSide {
 public:
  explicit CppSide(const std::string& path) {
    auto store = Store::Open(path);
    if (!store.ok()) Fail("C++: open: " + store.status().ToString());
    store_.emplace(std::move(*store));
    Status created = store_->CreateTable("Bench");
    if (!created.ok()) Fail("C++: create table: " + created.ToString());
    auto table = store_->OpenTable("Bench");
    if (!table.ok()) Fail("C++: open table: " + table.status().ToString());
    table_.emplace(std::move(*table));
  }

  void WriteBatches(uint64_t first, uint64_t count, Side* side) {
    for (uint64_t b = first; b < first + count; ++b) {
      Batch batch = MakeInsertBatch(b);  // not timed: the entities, as the Python side's dicts
      auto start = Clock::now();
      auto written = table_->Submit(batch);
      side->seconds += Since(start);
      if (!written.ok()) Fail("C++: Submit: " + written.status().ToString());
      side->entities += batch.size();
    }
  }

  const Table& table() const { return *table_; }

 private:
  std::optional<Store> store_;
  std::optional<Table> table_;
};

// Pages through a table, 1,000 entities a page, touching every property: into one reused Page
// (QueryEntities(query, &page), the fast path) or into a new Page per call (QueryEntities(query)).
class CppPager {
 public:
  CppPager(const Table& table, bool reuse_page) : table_(table), reuse_page_(reuse_page) {
    query_.page_size = kPageSize;
  }

  // One page; false when the table was read whole before this call.
  bool Next(Side* side, uint64_t* pages) {
    if (done_) return false;
    auto start = Clock::now();
    const Page* page = &page_;
    Result<Page> fresh = Page{};
    if (reuse_page_) {
      Status s = table_.QueryEntities(query_, &page_);
      if (!s.ok()) Fail("C++: QueryEntities: " + s.ToString());
    } else {
      fresh = table_.QueryEntities(query_);
      if (!fresh.ok()) Fail("C++: QueryEntities: " + fresh.status().ToString());
      page = &*fresh;
    }
    for (const Entity& e : page->entities) checksum_ += Touch(e);
    if (page->has_more()) {
      query_.continuation = page->continuation;
    } else {
      done_ = true;
    }
    side->seconds += Since(start);
    side->entities += page->entities.size();
    ++*pages;
    return true;
  }

  bool done() const { return done_; }
  uint64_t checksum() const { return checksum_; }

 private:
  const Table& table_;
  bool reuse_page_;
  Query query_;
  Page page_;
  bool done_ = false;
  uint64_t checksum_ = 0;
};

// ---- One round ----

Round RunRound(PyObject* workload, PyObject* sdk, uint64_t entities, uint64_t chunk, int round) {
  Round r;
  TempDir dir("partkv-pybench");
  const uint64_t batches = entities / kEntitiesPerPartitionKey;
  {
    CppSide cpp(dir.Sub("cpp"));
    Ref py =
        Check(PyObject_CallMethod(workload, "TablesWorkload", "Os", sdk, dir.Sub("py").c_str()),
              "Python: TablesWorkload (TableServiceClient, create_table)");

    // 1. Batches, interleaved by chunks; the side that goes first alternates.
    for (uint64_t first = 0, c = 0; first < batches; first += chunk, ++c) {
      uint64_t count = std::min(chunk, batches - first);
      auto python_chunk = [&] {
        Ref seconds = Check(PyObject_CallMethod(py.get(), "write_batches", "KK",
                                                static_cast<unsigned long long>(first),
                                                static_cast<unsigned long long>(count)),
                            "Python: submit_transaction");
        r.py_write.seconds += AsDouble(seconds.get(), "Python: write_batches");
        r.py_write.entities += count * kEntitiesPerPartitionKey;
      };
      if ((c + round) % 2 == 0) {
        cpp.WriteBatches(first, count, &r.cpp_write);
        python_chunk();
      } else {
        python_chunk();
        cpp.WriteBatches(first, count, &r.cpp_write);
      }
    }

    // 2. Paging, one page of each side in turn (C++ twice: into a reused Page, and into a new
    // Page per call, for scale); the order rotates from page to page.
    Check(PyObject_CallMethod(py.get(), "start_paging", "I", kPageSize), "Python: list_entities");
    CppPager reused(cpp.table(), /*reuse_page=*/true);
    CppPager fresh(cpp.table(), /*reuse_page=*/false);
    bool py_done = false;
    auto python_page = [&] {
      if (py_done) return;
      Ref result = Check(PyObject_CallMethod(py.get(), "read_pages", "I", 1u), "Python: by_page");
      r.py_read.seconds += AsDouble(PyTuple_GetItem(result.get(), 0), "Python: read_pages");
      uint64_t n =
          static_cast<uint64_t>(AsLong(PyTuple_GetItem(result.get(), 1), "Python: read_pages"));
      r.py_read.entities += n;
      py_done = PyObject_IsTrue(PyTuple_GetItem(result.get(), 2)) == 1;
      if (!py_done) ++r.py_pages;
    };
    auto reused_page = [&] { reused.Next(&r.cpp_read, &r.cpp_pages); };
    auto fresh_page = [&] { fresh.Next(&r.cpp_read_new_page, &r.cpp_new_pages); };
    for (uint64_t p = 0; !py_done || !reused.done() || !fresh.done(); ++p) {
      switch ((p + round) % 3) {
        case 0:
          reused_page(), python_page(), fresh_page();
          break;
        case 1:
          python_page(), fresh_page(), reused_page();
          break;
        default:
          fresh_page(), reused_page(), python_page();
          break;
      }
    }
    if (r.cpp_read.entities != entities || r.cpp_read_new_page.entities != entities ||
        r.py_read.entities != entities) {
      Fail(fmt::format("read back {} and {} entities in C++ and {} in Python, not {}",
                       r.cpp_read.entities, r.cpp_read_new_page.entities, r.py_read.entities,
                       entities));
    }
    if (reused.checksum() != fresh.checksum()) Fail("the two C++ pagers read different entities");
    Check(PyObject_CallMethod(py.get(), "close", nullptr), "Python: close");
    py.reset();
    Ref gc = Import("gc");
    Check(PyObject_CallMethod(gc.get(), "collect", nullptr), "gc.collect");
  }

  // 3. For scale: the key-value stores, each alone.
  auto key_value = [&](const char* cls, const char* sub, std::optional<Side>* write,
                       std::optional<Side>* read, std::string* error) {
    PyObject* made = PyObject_CallMethod(workload, cls, "s", dir.Sub(sub).c_str());
    if (made == nullptr) {
      *error = TakePythonError();
      return;
    }
    Ref kv(made);
    Ref seconds = Check(PyObject_CallMethod(kv.get(), "write_batches", "KK", 0ULL,
                                            static_cast<unsigned long long>(batches)),
                        std::string(cls) + ".write_batches");
    write->emplace(Side{AsDouble(seconds.get(), cls), batches * kEntitiesPerPartitionKey});
    Ref scan = Check(PyObject_CallMethod(kv.get(), "scan", nullptr), std::string(cls) + ".scan");
    read->emplace(Side{AsDouble(PyTuple_GetItem(scan.get(), 0), cls),
                       static_cast<uint64_t>(AsLong(PyTuple_GetItem(scan.get(), 1), cls))});
    if ((*read)->entities != entities) {
      Fail(fmt::format("{}: scanned {} entities, not {}", cls, (*read)->entities, entities));
    }
    Check(PyObject_CallMethod(kv.get(), "close", nullptr), std::string(cls) + ".close");
  };
  key_value("LmdbWorkload", "lmdb", &r.lmdb_write, &r.lmdb_read, &r.lmdb_error);
  key_value("PlyvelWorkload", "plyvel", &r.plyvel_write, &r.plyvel_read, &r.plyvel_error);
  return r;
}

std::string Rate(double per_second) {
  if (per_second >= 1e6) return fmt::format("{:.2f} M/s", per_second / 1e6);
  return fmt::format("{:.1f} k/s", per_second / 1e3);
}

std::string Ratios(const std::vector<double>& ratios) {
  std::string out;
  for (double r : ratios) out += fmt::format("{}{:.3f}", out.empty() ? "" : ", ", r);
  return out;
}

// The command line.
struct Flags {
  uint64_t entities = 100000;
  int rounds = 3;
  uint64_t chunk = 10;
  std::string sdk_module = "partkv";
};

// Parses the command line into `flags`, --entities rounded down to whole PartitionKeys. The exit
// status when the program ends here (help, or a bad flag); nullopt to go on.
std::optional<int> ParseFlags(int argc, char** argv, Flags* flags) {
  CLI::App app{"partkv's Python package against its C++ library (paging, batches), in one process"};
  app.add_option("--entities", flags->entities,
                 "Entities written and paged per round (a multiple of 100)")
      ->check(CLI::Range(uint64_t{1000}, uint64_t{100'000'000}));
  app.add_option("--rounds", flags->rounds, "Rounds, each in fresh stores; ratios are their median")
      ->check(CLI::Range(1, 99));
  app.add_option("--chunk", flags->chunk, "Batches each side writes in turn")
      ->check(CLI::Range(uint64_t{1}, uint64_t{100000}));
  app.add_option("--sdk", flags->sdk_module,
                 "The Python module measured (default partkv); another module of the same API, "
                 "such as fake_azure_tables with PYTHONPATH=python/tests, tests this program "
                 "without the package");
  CLI11_PARSE(app, argc, argv);
  flags->entities -= flags->entities % kEntitiesPerPartitionKey;
  return std::nullopt;
}

// The run's configuration: sizes, and the versions of the library, Python and the modules.
void PrintBenchConfiguration(const Flags& flags, PyObject* workload, PyObject* sdk) {
  Ref versions = Check(PyObject_CallMethod(workload, "versions", nullptr), "workload.versions");
  auto version_of = [&](const char* name) {
    PyObject* v = PyDict_GetItemString(versions.get(), name);  // borrowed
    return v != nullptr ? AsString(v) : std::string("?");
  };
  Ref package_file(PyObject_GetAttrString(sdk, "__file__"));
  PyErr_Clear();
  Ref json_size =
      Check(PyObject_CallMethod(workload, "entity_json_bytes", nullptr), "entity_json_bytes");
  PrintConfiguration(
      stdout, "partkv-python-bench: the Python package against the C++ library, one process",
      {
          {"entities", fmt::format("{} per round, {} per batch (one PartitionKey), pages of {}",
                                   flags.entities, kEntitiesPerPartitionKey, kPageSize)},
          {"rounds", fmt::format("{} (fresh stores each; ratios are the median of the "
                                 "rounds' ratios)",
                                 flags.rounds)},
          {"interleaving", fmt::format("{} batches / 1 page of each side in turn", flags.chunk)},
          {"libpartkv", fmt::format("{} ({})", partkv_version(), PARTKV_LIBRARY_PATH)},
          {"python",
           fmt::format("{} ({})", version_of("python"),
                       PARTKV_PYTHON_EXECUTABLE[0] ? PARTKV_PYTHON_EXECUTABLE : "embedded")},
          {"Python module", fmt::format("{} ({})", flags.sdk_module,
                                        package_file ? AsString(package_file.get()) : "?")},
          {"cffi", version_of("cffi")},
          {"python3-lmdb", version_of("python3-lmdb") + ", sync=False"},
          {"python3-plyvel", version_of("python3-plyvel")},
          {"key-value values", fmt::format("JSON, key {} B, value {} B",
                                           AsLong(PyTuple_GetItem(json_size.get(), 0), "size"),
                                           AsLong(PyTuple_GetItem(json_size.get(), 1), "size"))},
      });
}

// Runs the rounds, printing each one's rates as it ends.
std::vector<Round> RunRounds(PyObject* workload, PyObject* sdk, const Flags& flags) {
  std::vector<Round> results;
  for (int i = 0; i < flags.rounds; ++i) {
    results.push_back(RunRound(workload, sdk, flags.entities, flags.chunk, i));
    const Round& r = results.back();
    std::printf(
        "  round %d: batches C++ %s, Python %s (%.3fx); paging C++ %s (new Page per call %s), "
        "Python %s (%.3fx)\n",
        i + 1, Rate(r.cpp_write.rate()).c_str(), Rate(r.py_write.rate()).c_str(),
        r.py_write.rate() / r.cpp_write.rate(), Rate(r.cpp_read.rate()).c_str(),
        Rate(r.cpp_read_new_page.rate()).c_str(), Rate(r.py_read.rate()).c_str(),
        r.py_read.rate() / r.cpp_read.rate());
    std::fflush(stdout);
  }
  return results;
}

// One side of a round, when it ran.
using Pick = std::optional<Side> (*)(const Round&);
std::optional<Side> CppWrite(const Round& r) { return r.cpp_write; }
std::optional<Side> PyWrite(const Round& r) { return r.py_write; }
std::optional<Side> CppRead(const Round& r) { return r.cpp_read; }
std::optional<Side> CppReadNewPage(const Round& r) { return r.cpp_read_new_page; }
std::optional<Side> PyRead(const Round& r) { return r.py_read; }
std::optional<Side> LmdbWrite(const Round& r) { return r.lmdb_write; }
std::optional<Side> LmdbRead(const Round& r) { return r.lmdb_read; }
std::optional<Side> PlyvelWrite(const Round& r) { return r.plyvel_write; }
std::optional<Side> PlyvelRead(const Round& r) { return r.plyvel_read; }

// The median over the rounds of the rate of `pick`.
double MedianRate(const std::vector<Round>& results, Pick pick) {
  std::vector<double> v;
  for (const Round& r : results) {
    const std::optional<Side> side = pick(r);
    if (side) v.push_back(side->rate());
  }
  return Median(v);
}

// Per round, the rate of `num` over the rate of `den`.
std::vector<double> RoundRatios(const std::vector<Round>& results, Pick num, Pick den) {
  std::vector<double> v;
  for (const Round& r : results) {
    const std::optional<Side> a = num(r), b = den(r);
    if (a && b && b->rate() > 0) v.push_back(a->rate() / b->rate());
  }
  return v;
}

// A line of the rate table: `pick`'s median rate and its ratio to `baseline`, judged against
// `target` when it is above 0; `error` instead when the side could not run.
void PrintRow(const std::vector<Round>& results, const std::string& name, Pick pick, Pick baseline,
              const char* target_text, double target, const std::string& error) {
  if (!error.empty()) {
    std::printf("%-58s %12s %14s  (%s)\n", name.c_str(), "-", "-", error.c_str());
    return;
  }
  std::vector<double> v = RoundRatios(results, pick, baseline);
  double ratio = Median(v);
  std::string judged = target > 0 ? fmt::format("{} {}  (rounds: {})", target_text,
                                                ratio >= target ? "MET" : "MISSED", Ratios(v))
                                  : fmt::format("(rounds: {})", Ratios(v));
  std::printf("%-58s %12s %13.3fx  %s\n", name.c_str(), Rate(MedianRate(results, pick)).c_str(),
              ratio, judged.c_str());
}

// The rate table: batch inserts, then paging, each side against C++ partkv.
void PrintRateTable(const std::vector<Round>& results, const std::string& sdk_module) {
  std::printf("\n%-58s %12s %14s  %s\n", "workload (median rate over the rounds)", "entities/s",
              "x C++ partkv", "target");
  std::printf("Batch inserts, 100 entities a batch\n");
  PrintRow(results, "  C++ partkv Table::Submit", CppWrite, CppWrite, "", 0, "");
  const std::string py_name = "  Python " + sdk_module;
  PrintRow(results, py_name + " TableClient.submit_transaction", PyWrite, CppWrite, ">= 0.3x",
           kBatchTarget, "");
  PrintRow(results, "  python3-lmdb write transaction of 100 (JSON)", LmdbWrite, CppWrite, "", 0,
           results[0].lmdb_error);
  PrintRow(results, "  python3-plyvel WriteBatch of 100 (JSON)", PlyvelWrite, CppWrite, "", 0,
           results[0].plyvel_error);
  std::printf("Paging / scanning every entity, every property touched\n");
  PrintRow(results, "  C++ partkv Table::QueryEntities, reused Page, 1000/page", CppRead, CppRead,
           "", 0, "");
  PrintRow(results, "  C++ partkv Table::QueryEntities, new Page per call", CppReadNewPage, CppRead,
           "", 0, "");
  PrintRow(results, py_name + " list_entities().by_page(), 1000/page", PyRead, CppRead, ">= 0.2x",
           kPagingTarget, "");
  PrintRow(results, "  python3-lmdb cursor scan + json.loads", LmdbRead, CppRead, "", 0,
           results[0].lmdb_error);
  PrintRow(results, "  python3-plyvel iterator scan + json.loads", PlyvelRead, CppRead, "", 0,
           results[0].plyvel_error);
}

// The targets, met or missed, and the pages each side read.
void PrintTargets(const std::vector<Round>& results) {
  double batch_ratio = Median(RoundRatios(results, PyWrite, CppWrite));
  double paging_ratio = Median(RoundRatios(results, PyRead, CppRead));
  double paging_ratio_new_page = Median(RoundRatios(results, PyRead, CppReadNewPage));
  std::printf(
      "\nTargets: Python paging %.3fx of C++ (>= %.1fx: %s); Python batches %.3fx of C++ "
      "(>= %.1fx: %s)\n",
      paging_ratio, kPagingTarget, paging_ratio >= kPagingTarget ? "met" : "missed", batch_ratio,
      kBatchTarget, batch_ratio >= kBatchTarget ? "met" : "missed");
  std::printf(
      "(the targets are judged against the reused-Page rate, the C++ fast path; against a new "
      "Page\n per call, Python paging is at %.3fx)\n",
      paging_ratio_new_page);
  std::printf("Pages per table: C++ %llu, Python %llu\n",
              static_cast<unsigned long long>(results[0].cpp_pages),
              static_cast<unsigned long long>(results[0].py_pages));
}

int Main(int argc, char** argv) {
  Flags flags;
  if (std::optional<int> exit = ParseFlags(argc, argv, &flags)) return *exit;

  StartPython();
  Ref workload = Import("workload");
  Ref sdk = Import(flags.sdk_module.c_str());
  PrintBenchConfiguration(flags, workload.get(), sdk.get());
  const std::vector<Round> results = RunRounds(workload.get(), sdk.get(), flags);
  PrintRateTable(results, flags.sdk_module);
  PrintTargets(results);

  sdk.reset();
  workload.reset();
  if (Py_FinalizeEx() != 0) {
    std::fprintf(stderr, "partkv-python-bench: Python did not finalize cleanly\n");
  }
  return 0;
}

}  // namespace
}  // namespace partkv::bench

int main(int argc, char** argv) { return partkv::bench::Main(argc, argv); }
