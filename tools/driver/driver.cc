#include "driver/driver.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "symbiosis/cgroup.h"
#include "symbiosis/error.h"
#include "symbiosis/workload.h"

namespace symbiosis::bench {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kKeyBytes = 16;
constexpr uint64_t kMaxValueBytes = 1 << 20;
constexpr char kMetaFile[] = "symbiosis-bench.json";

std::string program = "bench";  // <engine>_bench, for messages

[[noreturn]] void Fail(int status, const std::string& message) {
  std::fprintf(stderr, "%s: error: %s\n", program.c_str(), message.c_str());
  std::exit(status);
}

std::string Key(uint64_t i) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "user%012llu", static_cast<unsigned long long>(i));
  return buffer;
}

// alpha of the value is random bytes, the rest repeats them: snappy (and
// LZ4, zlib) keep the random part and turn the repeats into back-references.
void FillValue(uint64_t key, uint64_t version, double alpha, std::string* value) {
  std::mt19937_64 rng(key * 0x9E3779B97F4A7C15ull + version);
  const size_t random = std::max<size_t>(8, static_cast<size_t>(value->size() * alpha));
  for (size_t i = 0; i < value->size(); ++i) {
    (*value)[i] = i < random ? static_cast<char>(rng()) : (*value)[i % random];
  }
}

// "" if `value` can be one FillValue wrote for a value of `value_bytes` at
// `alpha` (its length, and its random head repeated to its end), else what
// is wrong with it. Which key or version wrote it is not checked: that
// would cost a generator per read.
std::string CheckValue(const std::string& value, uint32_t value_bytes, double alpha) {
  if (value.size() != value_bytes) {
    return "a value of " + std::to_string(value.size()) + " bytes, where the load wrote " +
           std::to_string(value_bytes);
  }
  const size_t random = std::max<size_t>(8, static_cast<size_t>(value.size() * alpha));
  for (size_t at = random; at < value.size(); at += random) {
    if (std::memcmp(value.data() + at, value.data(), std::min(random, value.size() - at)) != 0) {
      return "a value whose bytes from " + std::to_string(at) +
             " on are not the ones the load wrote";
    }
  }
  return "";
}

// Failed requests, counted by the reader threads, and the first one's
// message: what a failed run reports.
class RequestErrors {
 public:
  void Add(const std::string& message) {
    if (count_.fetch_add(1, std::memory_order_relaxed) == 0) {
      std::lock_guard<std::mutex> lock(mu_);
      first_ = message;
    }
  }
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  std::string first() const {
    std::lock_guard<std::mutex> lock(mu_);
    return first_;
  }

 private:
  std::atomic<uint64_t> count_{0};
  mutable std::mutex mu_;
  std::string first_;  // GUARDED_BY(mu_)
};

// One request of the workload: a Get (its value checked), a Scan or, with
// `write_value`, a Put. Failures go to `errors`.
void Request(BenchDb& db, const KeyRequest& request, const std::string* write_value,
             uint32_t value_bytes, double alpha, std::string* value, RequestErrors* errors) {
  const std::string key = Key(request.first_key);
  std::string error;
  if (write_value != nullptr) {
    if (!db.Put(key, *write_value, &error)) errors->Add("Put " + key + ": " + error);
  } else if (request.count > 1) {
    if (!db.Scan(key, request.count, &error)) errors->Add("Scan " + key + ": " + error);
  } else if (!db.Get(key, value, &error)) {
    errors->Add("Get " + key + ": " + error);
  } else if (error = CheckValue(*value, value_bytes, alpha); !error.empty()) {
    errors->Add("Get " + key + " returned " + error);
  }
}

// The failed run's one line: the count and the first error.
std::string FailedRequests(const RequestErrors& errors, uint64_t requests) {
  return std::to_string(errors.count()) + " of " + std::to_string(requests) +
         " requests failed; the first: " + errors.first();
}

// --- flags -----------------------------------------------------------------

struct Flags {
  std::map<std::string, std::string> values;
  std::string Get(const std::string& name, const std::string& fallback) const {
    const auto it = values.find(name);
    return it == values.end() ? fallback : it->second;
  }
  bool Has(const std::string& name) const { return values.count(name) > 0; }
};

// A command's flags, both what ParseFlags accepts and what `<command>
// --help` prints, so the two cannot drift apart.
struct FlagSpec {
  std::string name;
  std::string value;  // e.g. "SIZE"; empty for a switch
  std::string help;   // one line, with the default
};

struct CommandSpec {
  std::string name;
  std::string synopsis;  // the required flags
  std::string summary;   // lines, each ending in '\n'
  std::vector<FlagSpec> flags;
};

std::string CommandHelp(const CommandSpec& command) {
  std::string text = "usage: " + program + " " + command.name +
                     (command.synopsis.empty() ? "" : " " + command.synopsis) + " [flags]\n\n" + command.summary + "\nflags:\n";
  for (const FlagSpec& f : command.flags) {
    std::string left = "  --" + f.name + (f.value.empty() ? "" : " " + f.value);
    left.resize(std::max<size_t>(left.size() + 2, 28), ' ');
    text += left + f.help + "\n";
  }
  return text;
}

// `--help` or `-h` anywhere prints the command's help and exits 0.
Flags ParseFlags(int argc, char** argv, const CommandSpec& command) {
  Flags flags;
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::fputs(CommandHelp(command).c_str(), stdout);
      std::exit(0);
    }
  }
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) Fail(2, "unexpected argument '" + arg + "'; flags start with --");
    arg = arg.substr(2);
    std::string value;
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    const auto spec = std::find_if(command.flags.begin(), command.flags.end(),
                                   [&](const FlagSpec& f) { return f.name == arg; });
    if (spec == command.flags.end()) {
      Fail(2, "unknown flag --" + arg + "; see " + program + " " + command.name + " --help");
    }
    if (spec->value.empty()) {
      flags.values[arg] = "1";
      continue;
    }
    if (eq == std::string::npos) {
      if (i + 1 >= argc) Fail(2, "--" + arg + " needs a value");
      value = argv[++i];
    }
    flags.values[arg] = value;
  }
  return flags;
}
// A number that is the whole of `text` and lies between `low` and `high`,
// each end included where asked; otherwise exits with a one-line error
// naming `what` (and `example`, when given, as a valid value).
double ParseNumberIn(const std::string& text, const std::string& what, double low,
                     bool low_included, double high, bool high_included,
                     const std::string& example = "") {
  char* end = nullptr;
  const double f = std::strtod(text.c_str(), &end);
  const bool in_range = (low_included ? f >= low : f > low) && (high_included ? f <= high : f < high);
  if (text.empty() || *end != '\0' || !in_range) {
    std::ostringstream range;
    range << (low_included ? "[" : "(") << low << ", " << high << (high_included ? "]" : ")");
    Fail(2, what + " must be a number in " + range.str() +
                (example.empty() ? "" : ", e.g. " + example) + ", not '" + text + "'");
  }
  return f;
}

// A number in [0, 1], with 0 or 1 excluded where asked.
double ParseFraction(const std::string& text, const std::string& what, bool zero_allowed,
                     bool one_allowed) {
  return ParseNumberIn(text, what, 0, zero_allowed, 1, one_allowed);
}

// --app-cache-overhead (ControllerConfig::app_cache_overhead): (-1, 1).
double ParseOverhead(const std::string& text) {
  return ParseNumberIn(text, "--app-cache-overhead", -1, false, 1, false, "0.25");
}

// --- the layout file ---------------------------------------------------------

struct Layout {
  uint64_t keys = 0;
  uint32_t value_bytes = 0;
  double alpha_target = 0;
  double alpha_measured = 0;
  uint64_t data_bytes = 0;  // D_u: keys * (key + value)
  uint64_t table_bytes = 0;
};

std::string ToJson(const Layout& l) {
  std::ostringstream out;
  out.precision(17);  // alpha_target as given: CheckValue recomputes the values' heads
  out << "{\"keys\": " << l.keys << ", \"value_bytes\": " << l.value_bytes
      << ", \"alpha_target\": " << l.alpha_target << ", \"alpha_measured\": " << l.alpha_measured
      << ", \"data_bytes\": " << l.data_bytes << ", \"table_bytes\": " << l.table_bytes << "}\n";
  return out.str();
}

double JsonNumber(const std::string& text, const std::string& field) {
  const size_t at = text.find("\"" + field + "\":");
  if (at == std::string::npos) throw InputError("layout file lacks " + field);
  return std::strtod(text.c_str() + at + field.size() + 3, nullptr);
}

Layout ReadLayout(const std::string& db) {
  std::error_code error;
  if (!fs::is_directory(db, error)) {
    throw InputError("no DB directory " + db + "; create it with `" + program + " load --db " +
                     db + " --data-size ...`");
  }
  std::ifstream in(fs::path(db) / kMetaFile);
  if (!in) {
    throw InputError(db + " is not a benchmark DB (no " + kMetaFile +
                     "); create it with `" + program + " load --db " + db + " --data-size ...`");
  }
  std::stringstream text;
  text << in.rdbuf();
  Layout l;
  l.keys = static_cast<uint64_t>(JsonNumber(text.str(), "keys"));
  l.value_bytes = static_cast<uint32_t>(JsonNumber(text.str(), "value_bytes"));
  l.alpha_target = JsonNumber(text.str(), "alpha_target");
  l.alpha_measured = JsonNumber(text.str(), "alpha_measured");
  l.data_bytes = static_cast<uint64_t>(JsonNumber(text.str(), "data_bytes"));
  l.table_bytes = static_cast<uint64_t>(JsonNumber(text.str(), "table_bytes"));
  return l;
}

// --- load ----------------------------------------------------------------------

int Load(BenchEngine& engine, const Flags& flags) {
  if (!flags.Has("db") || !flags.Has("data-size")) {
    Fail(2, "load needs --db DIR and --data-size SIZE (e.g. --data-size 1280MiB)");
  }
  const std::string db_path = flags.Get("db", "");
  const uint64_t data_bytes = ParseBytes(flags.Get("data-size", ""), "--data-size");
  const uint64_t value_bytes = ParseBytes(flags.Get("value-size", "1000"), "--value-size");
  const double alpha = ParseFraction(flags.Get("alpha", "0.5"), "--alpha", false, true);
  const uint64_t seed = ParseCount(flags.Get("seed", "1"), "--seed");
  if (value_bytes > kMaxValueBytes) Fail(2, "--value-size must be at most 1MiB");
  if (fs::exists(db_path)) {
    Fail(2, db_path + " exists; remove it or choose another --db");
  }
  Layout layout;
  layout.value_bytes = static_cast<uint32_t>(value_bytes);
  layout.keys = data_bytes / (kKeyBytes + value_bytes);
  layout.alpha_target = alpha;
  layout.data_bytes = layout.keys * (kKeyBytes + value_bytes);
  if (layout.keys == 0) Fail(2, "--data-size is smaller than one entry");
  const std::string partial = db_path + ".partial";
  fs::remove_all(partial);
  std::string error;
  std::unique_ptr<BenchLoader> loader = engine.Create(partial, &error);
  if (!loader) Fail(1, "cannot create " + partial + ": " + error);
  const auto give_up = [&](const std::string& why) {
    loader.reset();
    fs::remove_all(partial);
    Fail(1, "loading " + db_path + " failed: " + why + " (is the disk full?); nothing was kept");
  };
  std::string value(value_bytes, '\0');
  const bool tty = isatty(2);
  const uint64_t batch_keys = 1000;
  std::vector<std::pair<std::string, std::string>> batch;
  for (uint64_t first = 0; first < layout.keys; first += batch_keys) {
    batch.clear();
    for (uint64_t i = first; i < std::min(layout.keys, first + batch_keys); ++i) {
      FillValue(i, seed, alpha, &value);
      batch.emplace_back(Key(i), value);
    }
    if (!loader->Write(batch, &error)) give_up(error);
    if (tty && first % (batch_keys * 100) == 0) {
      std::fprintf(stderr, "\rloading %s: %5.1f%%", db_path.c_str(),
                   100.0 * first / static_cast<double>(layout.keys));
    }
  }
  if (!loader->Finish(&error)) give_up(error);
  loader.reset();
  if (tty) std::fprintf(stderr, "\rloading %s: done   \n", db_path.c_str());
  layout.table_bytes = engine.TableBytes(partial);
  layout.alpha_measured = static_cast<double>(layout.table_bytes) / layout.data_bytes;
  std::ofstream(fs::path(partial) / kMetaFile) << ToJson(layout);
  fs::rename(partial, db_path);
  std::printf("%s", ToJson(layout).c_str());
  return 0;
}

// --- run -------------------------------------------------------------------------

// Latencies in log-linear buckets: 16 per power of two (6% resolution).
class Histogram {
 public:
  static constexpr int kBuckets = 64 * 16;
  static int Bucket(uint64_t ns) {
    if (ns < 16) return static_cast<int>(ns);
    const int e = 63 - __builtin_clzll(ns);
    return (e - 3) * 16 + static_cast<int>((ns >> (e - 4)) & 15);
  }
  static double Lower(int bucket) {
    if (bucket < 16) return bucket;
    const int e = bucket / 16 + 3;
    return std::ldexp(16 + bucket % 16, e - 4);
  }
  void Add(uint64_t ns) {
    counts_[Bucket(ns)].fetch_add(1, std::memory_order_relaxed);
    sum_.fetch_add(ns, std::memory_order_relaxed);
  }
  void Snapshot(std::vector<uint64_t>* counts, uint64_t* sum) const {
    counts->resize(kBuckets);
    for (int i = 0; i < kBuckets; ++i) (*counts)[i] = counts_[i].load(std::memory_order_relaxed);
    *sum = sum_.load(std::memory_order_relaxed);
  }

 private:
  std::array<std::atomic<uint64_t>, kBuckets> counts_{};
  std::atomic<uint64_t> sum_{0};
};

struct Window {
  uint64_t ops = 0;
  double mean_us = 0, p50_us = 0, p95_us = 0, p99_us = 0;
};

Window Summarize(const std::vector<uint64_t>& counts, uint64_t sum_ns) {
  Window w;
  for (uint64_t c : counts) w.ops += c;
  if (w.ops == 0) return w;
  w.mean_us = sum_ns / 1e3 / w.ops;
  const auto quantile = [&](double q) {
    const uint64_t rank = static_cast<uint64_t>(std::ceil(q * w.ops));
    uint64_t seen = 0;
    for (int b = 0; b < Histogram::kBuckets; ++b) {
      seen += counts[b];
      if (seen >= rank) return (Histogram::Lower(b) + Histogram::Lower(b + 1)) / 2 / 1e3;
    }
    return 0.0;
  };
  w.p50_us = quantile(0.50);
  w.p95_us = quantile(0.95);
  w.p99_us = quantile(0.99);
  return w;
}

struct RunConfig {
  std::string db;
  std::string name;
  Layout layout;
  uint64_t memory = 0;   // --memory: M, the caches' budget
  uint64_t reserve = 32ull << 20;  // a cgroup budget's cgroup is memory + reserve
  std::string budget;
  bool in_cgroup = false;
  std::vector<Phase> phases;
  double duration_s = 0;  // 0: until the phases' ops are done
  uint64_t ops = 0;
  double warmup_s = 0;
  double interval_s = 1;
  int threads = 4;
  double overwrite = 0;
  uint64_t device_latency_ns = 0;
  uint64_t seed = 1;
  bool progress = false;
  std::optional<double> app_cache_overhead;  // unset: the engine's default
};

// M_a for a static configuration, or nullopt for symbiosis.
std::optional<uint64_t> StaticAppBytes(const std::string& name, uint64_t m,
                                       uint64_t default_bytes) {
  if (name == "symbiosis") return std::nullopt;
  if (name == "static-default") return std::min(default_bytes, m);
  if (name == "static-max") return m;
  if (name.rfind("static-", 0) == 0 && name.size() == 8 && name[7] >= '0' && name[7] <= '8') {
    return m * static_cast<uint64_t>(name[7] - '0') / 8;
  }
  throw InputError("--config '" + name +
                   "' is unknown; use symbiosis, static-default, static-max or static-0 .. "
                   "static-8");
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out + "\"";
}

// The malloc this process runs with: "jemalloc" when it was preloaded
// (`symbiosis bench --allocator jemalloc`), else the C library's.
std::string AllocatorName() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("/libjemalloc") != std::string::npos) return "jemalloc";
  }
  return "system";
}

std::string CountersJson(const std::vector<std::pair<std::string, uint64_t>>& counters) {
  std::string out = "{";
  for (const auto& [name, value] : counters) {
    if (out.size() > 1) out += ", ";
    out += JsonString(name) + ": " + std::to_string(value);
  }
  return out + "}";
}

void DropFromPageCache(const std::string& db) {
  for (const auto& entry : fs::directory_iterator(db)) {
    const int fd = open(entry.path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  }
}

const char* StateName(const EngineStats& stats) {
  return stats.controller ? ControllerStateName(stats.controller->state) : "static";
}

// Opens the DB, or says why not on stderr and returns null.
std::unique_ptr<BenchDb> OpenOrExplain(BenchEngine& engine, const OpenRequest& request) {
  std::string error;
  std::unique_ptr<BenchDb> db = engine.Open(request, &error);
  if (!db) {
    std::fprintf(stderr, "%s: error: cannot open %s: %s\n", program.c_str(), request.path.c_str(),
                 error.c_str());
  }
  return db;
}

// --memory, checked against the engine's minimum.
uint64_t ParseMemory(const BenchEngine& engine, const Flags& flags) {
  const uint64_t memory = ParseBytes(flags.Get("memory", ""), "--memory");
  if (memory < engine.min_memory_bytes()) {
    Fail(2, "--memory " + std::to_string(memory >> 20) + " MiB is below the minimum " +
                std::to_string(engine.min_memory_bytes() >> 20) + " MiB; raise it");
  }
  return memory;
}

// "a<sep>b<sep>c" of `names`.
std::string JoinNames(const std::vector<std::string>& names, const std::string& sep) {
  std::string joined;
  for (const std::string& name : names) joined += (joined.empty() ? "" : sep) + name;
  return joined;
}

// --budget, one of the engine's (the first by default).
std::string ParseBudget(const BenchEngine& engine, const Flags& flags) {
  const std::vector<std::string> budgets = engine.budgets();
  const std::string budget = flags.Get("budget", budgets.front());
  if (std::find(budgets.begin(), budgets.end(), budget) == budgets.end()) {
    Fail(2, "--budget must be " + JoinNames(budgets, " or ") + ", not '" + budget + "'");
  }
  return budget;
}

// Runs `body` in a forked child inside `cgroup`, after the DB's pages are
// dropped from the page cache, with Ctrl-C (and the other guarded signals)
// removing the cgroup.
int RunInBenchCgroup(std::unique_ptr<ChildCgroup> cgroup, const std::string& db,
                     const std::function<int()>& body) {
  DropFromPageCache(db);
  InterruptGuard guard;
  try {
    return RunInChildCgroup(*cgroup, body, [] {});
  } catch (const CgroupError& e) {
    cgroup.reset();  // Fail exits without unwinding the stack
    Fail(130, std::string("interrupted: ") + e.what() + "; the cgroup was removed");
  }
}

// A cgroup of `limit` bytes for this run, under this process's own.
// Throws CgroupError.
// First removes the cgroups of runs that were killed with SIGKILL.
std::unique_ptr<ChildCgroup> MakeBenchCgroup(uint64_t limit) {
  const MemoryCgroup parent = DetectMemoryCgroup();
  const std::string prefix = "symbiosis-bench-";
  if (const int removed = RemoveOrphanedChildCgroups(parent, prefix); removed > 0) {
    std::fprintf(stderr, "removed %d cgroup(s) under %s left by killed runs\n", removed,
                 parent.dir.c_str());
  }
  return ChildCgroup::Create(parent, prefix + std::to_string(getpid()), limit);
}

int RunBody(BenchEngine& engine, const RunConfig& c) {
  OpenRequest request;
  request.path = c.db;
  request.budget = c.budget;
  request.memory = c.memory;
  request.reserve = c.reserve;
  request.in_cgroup = c.in_cgroup;
  request.static_ma_bytes = StaticAppBytes(c.name, c.memory, engine.default_ma_bytes(c.memory));
  request.device_latency_ns = c.device_latency_ns;
  request.app_cache_overhead = c.app_cache_overhead;
  std::unique_ptr<BenchDb> db = OpenOrExplain(engine, request);
  if (!db) return 2;
  const uint32_t entry_bytes = kKeyBytes + c.layout.value_bytes;
  uint64_t phase_ops_total = 0;
  std::vector<uint64_t> phase_end;  // cumulative op counts
  for (const auto& p : c.phases) {
    phase_ops_total += p.requests == 0 ? c.ops : p.requests;
    phase_end.push_back(phase_ops_total);
  }
  const uint64_t total_ops = c.duration_s > 0 ? UINT64_MAX : phase_ops_total;

  std::atomic<uint64_t> issued{0};
  std::atomic<bool> stop{false};
  RequestErrors errors;
  std::vector<std::unique_ptr<Histogram>> histograms;
  for (int t = 0; t < c.threads; ++t) histograms.push_back(std::make_unique<Histogram>());
  const auto phase_of = [&](uint64_t op) {
    for (size_t i = 0; i < phase_end.size(); ++i) {
      if (op < phase_end[i]) return i;
    }
    return phase_end.size() - 1;  // time-bounded runs stay in the last phase
  };
  const auto reader = [&](int t) {
    std::mt19937_64 rng(c.seed * 1000 + t);
    std::unique_ptr<Workload> workload;
    size_t phase = SIZE_MAX;
    std::string value, write_value(c.layout.value_bytes, '\0');
    while (!stop.load(std::memory_order_relaxed)) {
      const uint64_t op = issued.fetch_add(1, std::memory_order_relaxed);
      if (op >= total_ops) break;
      const size_t p = phase_of(op);
      if (p != phase) {
        phase = p;
        const uint64_t bytes = c.phases[p].data_bytes;
        const uint64_t keys =
            bytes == 0 ? c.layout.keys : std::min(c.layout.keys, std::max<uint64_t>(1, bytes / entry_bytes));
        workload = MakeWorkload(c.phases[p].spec, keys, entry_bytes, c.seed * 7919 + t * 104729 + p);
      }
      const KeyRequest request = workload->Next();
      const auto start = std::chrono::steady_clock::now();
      const bool write =
          c.overwrite > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < c.overwrite;
      if (write) FillValue(request.first_key, c.seed + 1 + op, c.layout.alpha_target, &write_value);
      Request(*db, request, write ? &write_value : nullptr, c.layout.value_bytes,
              c.layout.alpha_target, &value, &errors);
      histograms[t]->Add(static_cast<uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
              .count()));
    }
  };

  const auto snapshot = [&](std::vector<uint64_t>* counts, uint64_t* sum) {
    counts->assign(Histogram::kBuckets, 0);
    *sum = 0;
    std::vector<uint64_t> one;
    uint64_t one_sum = 0;
    for (const auto& h : histograms) {
      h->Snapshot(&one, &one_sum);
      for (int b = 0; b < Histogram::kBuckets; ++b) (*counts)[b] += one[b];
      *sum += one_sum;
    }
  };

  // Kernel budget: what the cgroup holds, to compare the real page cache
  // with the M - M_a the Controller assumes.
  std::optional<MemoryCgroup> cgroup;
  if (c.in_cgroup) cgroup = DetectMemoryCgroup();

  const auto begin = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < c.threads; ++t) threads.emplace_back(reader, t);

  std::vector<uint64_t> prev_counts(Histogram::kBuckets, 0), counts, warm_counts;
  uint64_t prev_sum = 0, sum = 0, warm_sum = 0;
  EngineStats prev_stats = db->Stats(), warm_stats = prev_stats;
  bool warm = c.warmup_s == 0;
  if (warm) warm_counts.assign(Histogram::kBuckets, 0);
  size_t rounds_reported = 0;
  uint64_t prev_errors = 0;
  double elapsed = 0;
  double next_report = c.interval_s;
  while (true) {
    const double step = std::min(0.05, c.interval_s);
    std::this_thread::sleep_for(std::chrono::duration<double>(step));
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    const bool done = (c.duration_s > 0 && elapsed >= c.duration_s) ||
                      issued.load(std::memory_order_relaxed) >= total_ops ||
                      InterruptGuard::received() != 0;
    if (elapsed < next_report && !done) continue;
    next_report += c.interval_s;
    snapshot(&counts, &sum);
    std::vector<uint64_t> delta(Histogram::kBuckets);
    for (int b = 0; b < Histogram::kBuckets; ++b) delta[b] = counts[b] - prev_counts[b];
    const Window w = Summarize(delta, sum - prev_sum);
    const EngineStats stats = db->Stats();
    const CgroupMemoryUsage usage = cgroup ? ReadMemoryUsage(*cgroup) : CgroupMemoryUsage{};
    const uint64_t lookups = stats.lookups - prev_stats.lookups;
    const uint64_t reads = stats.reads - prev_stats.reads;
    const double hit_app = lookups ? double(stats.app_hits - prev_stats.app_hits) / lookups : 0;
    const double hit_kernel = reads ? double(stats.second_tier_hits - prev_stats.second_tier_hits) / reads : 0;
    std::string events;
    const std::vector<RoundStats> no_rounds;
    const std::vector<RoundStats>& rounds = stats.controller ? stats.controller->rounds : no_rounds;
    for (size_t r = 0; r < rounds.size(); ++r) {
      const RoundStats& round = rounds[r];
      if (round.end_access == 0 || r < rounds_reported) continue;
      events += std::string(events.empty() ? "" : ", ") + "{\"start_access\": " +
                std::to_string(round.start_access) + ", \"trigger\": " + JsonString(round.trigger) +
                ", \"adopted_ma_bytes\": " + std::to_string(round.adopted_ma_bytes) +
                ", \"reason\": " + JsonString(round.reason) + "}";
      rounds_reported = r + 1;
    }
    std::printf(
        "{\"type\": \"interval\", \"t\": %.3f, \"ops\": %llu, \"throughput_ops\": %.1f, "
        "\"mean_us\": %.2f, \"p50_us\": %.2f, \"p95_us\": %.2f, \"p99_us\": %.2f, "
        "\"hit_app\": %.4f, \"hit_kernel\": %.4f, \"ma_bytes\": %llu, \"state\": %s, "
        "\"phase\": %zu, \"warm\": %s, \"app_usage_bytes\": %llu, \"cgroup_file_bytes\": %llu, "
        "\"cgroup_anon_bytes\": %llu, \"errors\": %llu, \"rounds\": [%s]}\n",
        elapsed, static_cast<unsigned long long>(w.ops), w.ops / c.interval_s, w.mean_us,
        w.p50_us, w.p95_us, w.p99_us, hit_app, hit_kernel,
        static_cast<unsigned long long>(stats.ma_bytes),
        JsonString(StateName(stats)).c_str(),
        phase_of(issued.load() == 0 ? 0 : std::min(issued.load(), total_ops) - 1),
        warm ? "true" : "false", static_cast<unsigned long long>(stats.app_usage_bytes),
        static_cast<unsigned long long>(usage.file), static_cast<unsigned long long>(usage.anon),
        static_cast<unsigned long long>(errors.count() - prev_errors), events.c_str());
    prev_errors = errors.count();
    std::fflush(stdout);
    if (c.progress) {
      std::fprintf(stderr, "\r%-15s t=%6.1fs  %9.0f ops/s  mean %7.1f us  p99 %8.1f us  M_a %6.0f MiB  %s   ",
                   c.name.c_str(), elapsed, w.ops / c.interval_s, w.mean_us, w.p99_us,
                   stats.ma_bytes / 1048576.0,
                   StateName(stats));
    }
    prev_counts = counts;
    prev_sum = sum;
    prev_stats = stats;
    if (!warm && elapsed >= c.warmup_s) {
      warm = true;
      warm_counts = counts;
      warm_sum = sum;
      warm_stats = stats;
    }
    if (done) break;
  }
  stop = true;
  for (auto& t : threads) t.join();
  if (c.progress) std::fprintf(stderr, "\n");
  snapshot(&counts, &sum);
  if (!warm) {  // the run ended inside the warm-up: report all of it
    warm_counts.assign(Histogram::kBuckets, 0);
    warm_sum = 0;
    warm_stats = EngineStats{};
  }
  std::vector<uint64_t> measured(Histogram::kBuckets);
  for (int b = 0; b < Histogram::kBuckets; ++b) measured[b] = counts[b] - warm_counts[b];
  const Window w = Summarize(measured, sum - warm_sum);
  const double measured_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() -
      (warm ? c.warmup_s : 0);
  const EngineStats stats = db->Stats();
  const uint64_t lookups = stats.lookups - warm_stats.lookups;
  const uint64_t reads = stats.reads - warm_stats.reads;
  // A failed run reports no throughput or latency: they would describe
  // requests that did not do their work.
  const bool failed = errors.count() > 0;
  const auto number = [&](double x, int decimals) {
    if (failed) return std::string("null");
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, x);
    return std::string(buffer);
  };
  uint64_t requests = 0;
  for (uint64_t n : counts) requests += n;
  std::printf(
      "{\"type\": \"summary\", \"name\": %s, \"budget\": %s, \"memory_bytes\": %llu, "
      "\"reserve_bytes\": %llu, \"cache_budget_bytes\": %llu, \"final_ma_bytes\": %llu, "
      "\"throughput_ops\": %s, \"mean_us\": %s, \"p50_us\": %s, \"p95_us\": %s, \"p99_us\": %s, "
      "\"hit_app\": %.4f, \"hit_kernel\": %.4f, \"ops\": %llu, \"requests\": %llu, "
      "\"errors\": %llu, \"failed\": %s, \"first_error\": %s, "
      "\"measured_s\": %.2f, \"allocator\": %s, \"engine_counters\": %s, \"controller\": %s}\n",
      JsonString(c.name).c_str(), JsonString(c.budget).c_str(),
      static_cast<unsigned long long>(c.memory), static_cast<unsigned long long>(c.reserve),
      static_cast<unsigned long long>(stats.memory_bytes),
      static_cast<unsigned long long>(stats.ma_bytes),
      number(measured_s > 0 ? w.ops / measured_s : 0.0, 1).c_str(), number(w.mean_us, 2).c_str(),
      number(w.p50_us, 2).c_str(), number(w.p95_us, 2).c_str(), number(w.p99_us, 2).c_str(),
      lookups ? double(stats.app_hits - warm_stats.app_hits) / lookups : 0,
      reads ? double(stats.second_tier_hits - warm_stats.second_tier_hits) / reads : 0,
      static_cast<unsigned long long>(w.ops), static_cast<unsigned long long>(requests),
      static_cast<unsigned long long>(errors.count()), failed ? "true" : "false",
      failed ? JsonString(errors.first()).c_str() : "null",
      measured_s, JsonString(AllocatorName()).c_str(), CountersJson(stats.engine_counters).c_str(),
      stats.controller ? ToJson(*stats.controller).c_str() : "null");
  std::fflush(stdout);
  if (InterruptGuard::received() != 0) return 130;
  if (failed) Fail(1, FailedRequests(errors, requests));
  return 0;
}

int Run(BenchEngine& engine, const Flags& flags) {
  RunConfig c;
  if (!flags.Has("db") || !flags.Has("memory") || !flags.Has("config")) {
    Fail(2, "run needs --db DIR, --memory SIZE and --config NAME");
  }
  c.db = flags.Get("db", "");
  c.name = flags.Get("config", "");
  c.layout = ReadLayout(c.db);
  c.memory = ParseMemory(engine, flags);
  c.reserve = ParseBytes(flags.Get("reserve", "32MiB"), "--reserve");
  StaticAppBytes(c.name, c.memory, engine.default_ma_bytes(c.memory));  // validates the name
  c.budget = ParseBudget(engine, flags);
  if (flags.Has("phases") && flags.Has("workload")) Fail(2, "give --workload or --phases, not both");
  c.phases = flags.Has("phases") ? ParsePhases(flags.Get("phases", ""))
                                 : std::vector<Phase>{{flags.Get("workload", "uniform"), 0, 0}};
  for (const auto& p : c.phases) {
    MakeWorkload(p.spec, std::max<uint64_t>(1, c.layout.keys), kKeyBytes + c.layout.value_bytes, 1);
  }
  c.duration_s = flags.Has("duration") ? ParseSeconds(flags.Get("duration", ""), "--duration") : 0;
  c.ops = flags.Has("ops") ? ParseCount(flags.Get("ops", ""), "--ops") : 0;
  const bool phases_counted = std::all_of(c.phases.begin(), c.phases.end(),
                                          [](const Phase& p) { return p.requests > 0; });
  if (c.duration_s == 0 && c.ops == 0 && !phases_counted) c.duration_s = 30;
  c.warmup_s = ParseSeconds(flags.Get("warmup", "0"), "--warmup");
  if (c.duration_s > 0 && c.warmup_s >= c.duration_s) {
    Fail(2, "--warmup " + flags.Get("warmup", "") + " is not shorter than --duration " +
                flags.Get("duration", "") +
                ", which includes it: nothing would be measured; lengthen --duration");
  }
  c.interval_s = ParseSeconds(flags.Get("interval", "1"), "--interval");
  if (c.interval_s <= 0) Fail(2, "--interval must be positive");
  c.threads = static_cast<int>(ParseCount(flags.Get("threads", "4"), "--threads"));
  if (c.threads < 1 || c.threads > 256) Fail(2, "--threads must be 1..256");
  c.overwrite = ParseFraction(flags.Get("overwrite", "0"), "--overwrite", true, true);
  c.device_latency_ns = static_cast<uint64_t>(
      ParseSeconds(flags.Get("device-latency", "0"), "--device-latency") * 1e9);
  c.seed = ParseCount(flags.Get("seed", "1"), "--seed");
  c.progress = flags.Has("progress");
  if (flags.Has("app-cache-overhead")) {
    c.app_cache_overhead = ParseOverhead(flags.Get("app-cache-overhead", ""));
  }
  if (!engine.NeedsCgroup(c.budget)) {
    InterruptGuard guard;
    return RunBody(engine, c);
  }
  std::unique_ptr<ChildCgroup> cgroup;
  try {
    cgroup = MakeBenchCgroup(c.memory + c.reserve);
  } catch (const CgroupError& e) {
    const std::string fallback = engine.FallbackBudget();
    if (!flags.Has("allow-fallback") || fallback.empty()) {
      Fail(2, "cannot make a memory cgroup for the " + c.budget + " budget (" + e.what() +
                  "); run as root" + (fallback.empty() ? "" : ", or use --budget " + fallback +
                                                               ", or add --allow-fallback"));
    }
    std::fprintf(stderr, "%s: note: no memory cgroup (%s); falling back to the %s budget\n",
                 program.c_str(), e.what(), fallback.c_str());
    c.budget = fallback;
    InterruptGuard guard;
    return RunBody(engine, c);
  }
  c.in_cgroup = true;
  return RunInBenchCgroup(std::move(cgroup), c.db, [&] { return RunBody(engine, c); });
}

// --- overhead ----------------------------------------------------------------
//
// What Symbiosis costs in Stable. One DB is opened with Symbiosis; once it
// is Stable, the readers run in slices that alternate between Symbiosis
// reporting every access (A) and Symbiosis suspended (B, BenchDb::Suspend),
// in which each access takes the static configuration's path: same cache,
// same M_a, same blocks at the same addresses. Pairs go A B, B A, A B, ...
//
// Why one DB and slices: the host's other tenants change the vCPUs' speed
// by up to 2x from one second to the next, and runs one after another, side
// by side on one CPU each, or even two copies of the DB in one process
// alternating by the second differed by 4-6% for a whole run (memory
// placement): any of these hid a 1% cost. Adjacent slices of one DB see the
// same machine and the same memory.
//
// A budget that needs a cgroup runs in one, as `run` does; with
// --no-cgroup the page cache holds the DB and the readers are CPU-bound,
// where a per-access cost weighs most. Not measured either way: timed work
// that serves the whole process (the kernel budget's once-a-second
// PageCacheRoomMonitor) falls on both halves of a pair alike.
//
// --control makes both halves report (an A/A run): its ratios show what the
// method reads where there is nothing to find, the floor below which a
// cell's A/B ratio says nothing.

struct OverheadConfig {
  std::string db;
  Layout layout;
  uint64_t memory = 0;
  uint64_t reserve = 32ull << 20;  // a cgroup budget's cgroup is memory + reserve
  bool in_cgroup = false;
  std::string budget;
  std::string workload;
  int threads = 4;
  double warmup_s = 30;
  double settle_s = 120;  // at most this long past the warm-up for Stable
  double slice_s = 0.25;
  int pairs = 400;
  uint64_t seed = 1;
  bool progress = false;
  bool control = false;  // both halves report: an A/A run
  std::optional<double> app_cache_overhead;
};

struct MedianSummary {
  double median = 0, low = 0, high = 0;
};

// The median of `values` and its distribution-free interval of about 95%:
// the values of ranks n/2 -+ 0.98 sqrt(n), clamped (the sign test's normal
// approximation). All zero when `values` is empty.
MedianSummary Median(std::vector<double> values) {
  MedianSummary m;
  if (values.empty()) return m;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  m.median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  const double half = 0.98 * std::sqrt(static_cast<double>(n));
  const auto at = [&](double rank) {
    return values[static_cast<size_t>(std::clamp(rank, 0.0, static_cast<double>(n - 1)))];
  };
  m.low = at(std::floor(n / 2.0 - half));
  m.high = at(std::ceil(n / 2.0 + half) - 1);
  return m;
}

int OverheadBody(BenchEngine& engine, const OverheadConfig& c) {
  OpenRequest request;
  request.path = c.db;
  request.budget = c.budget;
  request.memory = c.memory;
  request.reserve = c.reserve;
  request.in_cgroup = c.in_cgroup;
  request.app_cache_overhead = c.app_cache_overhead;
  std::unique_ptr<BenchDb> db = OpenOrExplain(engine, request);
  if (!db) return 2;
  if (!db->Suspend(false)) {
    std::fprintf(stderr, "%s: error: the %s plugin cannot suspend Symbiosis, which overhead needs\n",
                 program.c_str(), engine.name().c_str());
    return 2;
  }

  std::atomic<bool> stop{false};
  RequestErrors errors;
  struct alignas(64) Count {
    std::atomic<uint64_t> ops{0};
  };
  std::vector<Count> counts(c.threads);
  const uint32_t entry_bytes = kKeyBytes + c.layout.value_bytes;
  const auto reader = [&](int t) {
    std::unique_ptr<Workload> workload =
        MakeWorkload(c.workload, c.layout.keys, entry_bytes, c.seed * 7919 + t * 104729);
    std::string value;
    while (!stop.load(std::memory_order_relaxed)) {
      Request(*db, workload->Next(), nullptr, c.layout.value_bytes, c.layout.alpha_target, &value,
              &errors);
      counts[t].ops.fetch_add(1, std::memory_order_relaxed);
    }
  };
  const auto total_ops = [&] {
    uint64_t sum = 0;
    for (const Count& n : counts) sum += n.ops.load(std::memory_order_relaxed);
    return sum;
  };
  const auto interrupted = [] { return InterruptGuard::received() != 0; };
  const auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  const auto stable_at = [&](uint64_t* ma) {
    const EngineStats s = db->Stats();
    *ma = s.ma_bytes;
    return s.controller && s.controller->state == ControllerState::kStable &&
           s.controller->target_ma_bytes == s.controller->ma_bytes;
  };

  std::vector<std::thread> threads;
  for (int t = 0; t < c.threads; ++t) threads.emplace_back(reader, t);
  const auto finish = [&] {
    stop = true;
    for (auto& t : threads) t.join();
    db->Suspend(false);
    if (c.progress) std::fprintf(stderr, "\n");
  };

  // Warm up until Stable.
  uint64_t ma = 0;
  const auto begin = std::chrono::steady_clock::now();
  while (!interrupted()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    const double t = seconds_since(begin);
    if (c.progress) {
      const EngineStats s = db->Stats();
      std::fprintf(stderr, "\rwarming up  t=%6.1fs  M_a %6.1f MiB  %-9s", t,
                   s.ma_bytes / 1048576.0, StateName(s));
    }
    if (t >= c.warmup_s && stable_at(&ma)) break;
    if (t >= c.warmup_s + c.settle_s) {
      const std::string state = StateName(db->Stats());
      finish();
      Fail(1, "Symbiosis was not Stable " + std::to_string(static_cast<int>(t)) +
                  " s into the run (" + state +
                  "); lengthen --warmup, or choose a workload it settles in");
    }
  }

  // Pairs of slices; a pair counts only if Symbiosis stayed Stable at M_a.
  struct Slice {
    double ops_per_s = 0, hit_app = 0;
    uint64_t reported = 0;  // accesses the Controller counted
  };
  const auto reported = [](const EngineStats& s) {
    return s.controller ? s.controller->accesses : 0;
  };
  const auto run_slice = [&](bool suspended) {
    db->Suspend(suspended);
    const EngineStats before = db->Stats();
    const uint64_t ops_before = total_ops();
    const auto start = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(c.slice_s));
    Slice slice;
    slice.ops_per_s = (total_ops() - ops_before) / seconds_since(start);
    const EngineStats after = db->Stats();
    const uint64_t lookups = after.lookups - before.lookups;
    slice.hit_app = lookups ? double(after.app_hits - before.app_hits) / lookups : 0;
    slice.reported = reported(after) - reported(before);
    return slice;
  };
  std::vector<double> ratios;
  double sum_a = 0, sum_b = 0;
  int done = 0, invalid = 0;
  for (int i = 0; i < c.pairs && !interrupted(); ++i) {
    Slice a, b;
    if (i % 2 == 0) {
      a = run_slice(false);
      b = run_slice(!c.control);
    } else {
      b = run_slice(!c.control);
      a = run_slice(false);
    }
    uint64_t now_ma = 0;
    const bool valid = stable_at(&now_ma) && now_ma == ma && b.ops_per_s > 0;
    std::printf("{\"type\": \"pair\", \"pair\": %d, \"first\": \"%s\", \"a_ops_per_s\": %.1f, "
                "\"b_ops_per_s\": %.1f, \"ratio\": %.5f, \"a_hit_app\": %.4f, "
                "\"b_hit_app\": %.4f, \"a_reported\": %llu, \"b_reported\": %llu, "
                "\"valid\": %s, \"ma_bytes\": %llu}\n",
                i, i % 2 == 0 ? "a" : "b", a.ops_per_s, b.ops_per_s,
                b.ops_per_s > 0 ? a.ops_per_s / b.ops_per_s : 0.0, a.hit_app, b.hit_app,
                static_cast<unsigned long long>(a.reported),
                static_cast<unsigned long long>(b.reported), valid ? "true" : "false",
                static_cast<unsigned long long>(now_ma));
    std::fflush(stdout);
    ++done;
    if (!valid) {
      ++invalid;
      continue;
    }
    ratios.push_back(a.ops_per_s / b.ops_per_s);
    sum_a += a.ops_per_s;
    sum_b += b.ops_per_s;
    if (c.progress) {
      const MedianSummary m = Median(ratios);
      std::fprintf(stderr, "\rpair %5d of %d  %s %.4f (median %.4f, %.4f-%.4f)   ", i + 1,
                   c.pairs, c.control ? "A/A" : "Symbiosis/static", sum_a / sum_b, m.median,
                   m.low, m.high);
    }
  }
  finish();

  const MedianSummary m = Median(ratios);
  const size_t n = ratios.size();
  std::printf("{\"type\": \"overhead_summary\", \"budget\": %s, \"memory_bytes\": %llu, "
              "\"ma_bytes\": %llu, \"workload\": %s, \"threads\": %d, \"slice_s\": %.3f, "
              "\"control\": %s, \"pairs\": %d, \"valid_pairs\": %zu, \"a_ops_per_s\": %.1f, "
              "\"b_ops_per_s\": %.1f, \"ratio\": %.5f, \"median_ratio\": %.5f, "
              "\"median_low\": %.5f, \"median_high\": %.5f, \"errors\": %llu, "
              "\"first_error\": %s}\n",
              JsonString(c.budget).c_str(), static_cast<unsigned long long>(c.memory),
              static_cast<unsigned long long>(ma), JsonString(c.workload).c_str(), c.threads,
              c.slice_s, c.control ? "true" : "false", done, n, n ? sum_a / n : 0.0,
              n ? sum_b / n : 0.0, sum_b > 0 ? sum_a / sum_b : 0.0, m.median, m.low, m.high,
              static_cast<unsigned long long>(errors.count()),
              errors.count() ? JsonString(errors.first()).c_str() : "null");
  std::fflush(stdout);
  if (invalid > 0) {
    std::fprintf(stderr, "%s: note: %d of %d pairs left out: Symbiosis left Stable at %llu bytes\n",
                 program.c_str(), invalid, done, static_cast<unsigned long long>(ma));
  }
  if (interrupted()) return 130;
  if (errors.count() > 0) Fail(1, FailedRequests(errors, total_ops()));
  if (n == 0) Fail(1, "no pair counted: Symbiosis never stayed Stable; see the pair lines");
  return 0;
}

int Overhead(BenchEngine& engine, const Flags& flags) {
  OverheadConfig c;
  if (!flags.Has("db") || !flags.Has("memory")) Fail(2, "overhead needs --db DIR and --memory SIZE");
  c.db = flags.Get("db", "");
  c.layout = ReadLayout(c.db);
  c.memory = ParseMemory(engine, flags);
  c.budget = ParseBudget(engine, flags);
  c.workload = flags.Get("workload", "uniform");
  MakeWorkload(c.workload, std::max<uint64_t>(1, c.layout.keys), kKeyBytes + c.layout.value_bytes, 1);
  c.threads = static_cast<int>(ParseCount(flags.Get("threads", "4"), "--threads"));
  if (c.threads < 1 || c.threads > 256) Fail(2, "--threads must be 1..256");
  c.warmup_s = ParseSeconds(flags.Get("warmup", "30s"), "--warmup");
  c.slice_s = ParseSeconds(flags.Get("slice", "250ms"), "--slice");
  if (c.slice_s < 0.05) Fail(2, "--slice must be at least 50ms, not '" + flags.Get("slice", "") + "'");
  const uint64_t pairs = ParseCount(flags.Get("pairs", "400"), "--pairs");
  if (pairs < 1 || pairs > 1000000) Fail(2, "--pairs must be 1..1000000");
  c.pairs = static_cast<int>(pairs);
  c.seed = ParseCount(flags.Get("seed", "1"), "--seed");
  c.progress = flags.Has("progress");
  c.control = flags.Has("control");
  if (flags.Has("app-cache-overhead")) {
    c.app_cache_overhead = ParseOverhead(flags.Get("app-cache-overhead", ""));
  }
  c.reserve = ParseBytes(flags.Get("reserve", "32MiB"), "--reserve");
  if (!engine.NeedsCgroup(c.budget) || flags.Has("no-cgroup")) {
    InterruptGuard guard;
    return OverheadBody(engine, c);
  }
  std::unique_ptr<ChildCgroup> cgroup;
  try {
    cgroup = MakeBenchCgroup(c.memory + c.reserve);
  } catch (const CgroupError& e) {
    Fail(2, "cannot make a memory cgroup for the " + c.budget + " budget (" + e.what() +
                "); run as root, or add --no-cgroup (the page cache then holds the whole DB)");
  }
  c.in_cgroup = true;
  return RunInBenchCgroup(std::move(cgroup), c.db, [&] { return OverheadBody(engine, c); });
}

// The three commands' flags for an engine whose budgets are `budgets`
// (the first is the default).
std::vector<CommandSpec> Commands(const std::vector<std::string>& budgets) {
  const FlagSpec budget{"budget", "B",
                        "the budget M splits: " + JoinNames(budgets, " | ") + " (default " +
                            budgets.front() + ")"};
  const FlagSpec db{"db", "DIR", "the DB, written by `load` (required)"};
  const FlagSpec memory{"memory", "SIZE", "M, the caches' budget, e.g. 256MiB (required)"};
  const FlagSpec threads{"threads", "N", "reader threads, 1..256 (default 4)"};
  const FlagSpec seed{"seed", "N", "the workload's seed (default 1)"};
  const FlagSpec reserve{"reserve", "SIZE",
                         "a cgroup budget's room beyond M for the process (default 32MiB)"};
  const FlagSpec overhead{"app-cache-overhead", "F",
                          "the application cache's per-block overhead in (-1, 1) "
                          "(default: the engine's)"};
  const FlagSpec progress{"progress", "", "a status line on stderr"};
  return {
      {"load", "--db DIR --data-size SIZE",
       "Writes a bench DB: keys 0..N-1 with values whose first --alpha share is random\n"
       "and the rest repeats it, so the engine compresses them to about alpha. It is\n"
       "built in DIR.partial and renamed: a failed load leaves nothing behind.\n",
       {{"db", "DIR", "the DB to write; it must not exist (required)"},
        {"data-size", "SIZE", "keys plus values, e.g. 1280MiB (required)"},
        {"value-size", "SIZE", "bytes per value, at most 1MiB (default 1000)"},
        {"alpha", "F", "the compressed share of a value, in (0, 1] (default 0.5)"},
        {"seed", "N", "the values' seed (default 1)"}}},
      {"run", "--db DIR --memory SIZE --config NAME",
       "Runs one configuration and prints JSON lines: an interval line every --interval\n"
       "and a summary at the end. NAME is static-default (the engine's default cache),\n"
       "static-max (M_a = M), static-<i> (M_a = i*M/8, i = 0..8) or symbiosis.\n",
       {db, memory,
        {"config", "NAME", "static-default | static-max | static-<i> | symbiosis (required)"},
        {"workload", "SPEC", "uniform, zipfian, hotspot20, ... (include/symbiosis/workload.h)"},
        {"phases", "P", "phases \"SPEC@SIZE*OPS;...\" in place of --workload"},
        {"duration", "T", "the run's length, warm-up included (default 30s)"},
        {"ops", "N", "stop after N requests in place of --duration"},
        threads,
        {"interval", "T", "time between interval lines (default 1s)"},
        {"warmup", "T", "what the summary leaves out at the start (default 0)"},
        {"overwrite", "F", "the share of requests that write, in [0, 1] (default 0)"},
        budget,
        {"allow-fallback", "", "run in the engine's fallback budget when no cgroup can be made"},
        {"device-latency", "T", "added to every device read, e.g. 100us (default 0)"},
        reserve, seed, overhead, progress}},
      {"overhead", "--db DIR --memory SIZE",
       "Measures Symbiosis's cost in Stable: once Symbiosis is Stable, slices of --slice\n"
       "alternate between Symbiosis reporting and Symbiosis suspended (the static path\n"
       "at the same M_a). Prints a pair line per pair and an overhead_summary line.\n",
       {db, memory,
        {"workload", "SPEC", "as for run (default uniform)"},
        threads,
        {"warmup", "T", "time to wait for Stable before the pairs (default 30s)"},
        {"slice", "T", "one half of a pair, at least 50ms (default 250ms)"},
        {"pairs", "N", "pairs to measure, 1..1000000 (default 400)"},
        budget,
        reserve,
        {"no-cgroup", "", "run outside a memory cgroup (the page cache holds the whole DB)"},
        {"control", "", "both halves report (an A/A run: the method's own spread)"},
        seed, overhead, progress}},
      {"limits", "",
       "Prints the engine's limits as one JSON line: its budgets, the smallest --memory\n"
       "run accepts, the key length and the largest --value-size.\n",
       {}},
  };
}

int Limits(const BenchEngine& engine) {
  std::string budgets;
  for (const std::string& b : engine.budgets()) budgets += (budgets.empty() ? "" : ", ") + JsonString(b);
  std::printf("{\"engine\": %s, \"budgets\": [%s], \"min_memory_bytes\": %llu, "
              "\"key_bytes\": %u, \"max_value_bytes\": %llu}\n",
              JsonString(engine.name()).c_str(), budgets.c_str(),
              static_cast<unsigned long long>(engine.min_memory_bytes()), kKeyBytes,
              static_cast<unsigned long long>(kMaxValueBytes));
  return 0;
}

}  // namespace

int DriverMain(BenchEngine& engine, int argc, char** argv) {
  program = engine.name() + "_bench";
  const std::vector<CommandSpec> commands = Commands(engine.budgets());
  std::string usage;
  for (const CommandSpec& c : commands) {
    usage += (usage.empty() ? "usage: " : "       ") + program + " " + c.name +
             (c.synopsis.empty() ? "" : " " + c.synopsis) + " [flags]\n";
  }
  usage += "'" + program + " COMMAND --help' lists a command's flags.\n";
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::fputs(usage.c_str(), argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string name = argv[1];
  const auto command = std::find_if(commands.begin(), commands.end(),
                                    [&](const CommandSpec& c) { return c.name == name; });
  if (command == commands.end()) {
    Fail(2, "unknown command '" + name + "'; use load, run, overhead or limits (see " + program +
                " --help)");
  }
  const Flags flags = ParseFlags(argc, argv, *command);
  try {
    if (name == "load") return Load(engine, flags);
    if (name == "run") return Run(engine, flags);
    if (name == "limits") return Limits(engine);
    return Overhead(engine, flags);
  } catch (const InputError& e) {
    Fail(2, e.what());
  } catch (const std::exception& e) {
    Fail(1, e.what());
  }
}

}  // namespace symbiosis::bench
