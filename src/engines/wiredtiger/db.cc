
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "budget/heap_release.h"
#include "budget/page_cache_room.h"
#include "engines/common/engine_kit.h"
#include "engines/wiredtiger/adapter.h"
#include "engines/wiredtiger/file_system.h"
#include "symbiosis/cgroup.h"
#include "budget/device_read_cost.h"
#include "symbiosis/error.h"
#include "symbiosis/memory_budget.h"
#include "budget/residency.h"
#include "symbiosis/wiredtiger.h"

namespace symbiosis::wiredtiger {
namespace {

using engine_kit::MiB;

Status Invalid(const std::string& message) { return Status{EINVAL, message}; }

// The file system the extension entry below installs: set by Open around
// wiredtiger_open, which calls the entry on the same thread.
thread_local FileSystem* pending_file_system = nullptr;

// WiredTiger's messages: the last error goes into Open's Status; later
// ones are printed as one line each.
struct EventHandler {
  WT_EVENT_HANDLER wt{};  // first: WiredTiger's pointer is this object's
  std::mutex mu;
  std::string last_error;

  EventHandler() { wt.handle_error = HandleError; }

  static int HandleError(WT_EVENT_HANDLER* handler, WT_SESSION*, int error, const char* message) {
    auto* self = reinterpret_cast<EventHandler*>(handler);
    std::lock_guard<std::mutex> lock(self->mu);
    self->last_error = message != nullptr ? message : wiredtiger_strerror(error);
    std::fprintf(stderr, "wiredtiger: %s\n", self->last_error.c_str());
    return 0;
  }
  std::string TakeLastError() {
    std::lock_guard<std::mutex> lock(mu);
    return std::exchange(last_error, std::string());
  }
};

// The data files (*.wt) in `home` and their sizes.
std::vector<std::pair<std::string, uint64_t>> DataFiles(const std::string& home) {
  std::error_code error;
  std::vector<std::pair<std::string, uint64_t>> files;
  for (const auto& entry : std::filesystem::directory_iterator(home, error)) {
    if (entry.path().extension() != ".wt") continue;
    const uintmax_t size = entry.file_size(error);
    if (!error) files.emplace_back(entry.path().filename().string(), size);
  }
  return files;
}

// The costs of a device read, from reads of the largest table with
// O_DIRECT (device_read_cost.h): C_k its latency, C_k_cpu the CPU it
// costs the reading thread. Unchanged when nothing can be measured.
void SetDeviceReadCost(const std::string& home,
                       const std::vector<std::pair<std::string, uint64_t>>& files,
                       MissCosts* costs) {
  // About a 32 KiB leaf page (leaf_page_max) compressed at alpha 0.25.
  constexpr uint32_t kReadBytes = 8192;
  constexpr int kReads = 32;
  const std::pair<std::string, uint64_t>* largest = nullptr;
  for (const auto& file : files) {
    if (file.first.rfind("WiredTiger", 0) == 0) continue;
    if (largest == nullptr || file.second > largest->second) largest = &file;
  }
  if (largest == nullptr) return;
  const std::optional<DeviceReadCost> cost =
      MeasureDeviceRead(home + "/" + largest->first, kReadBytes, kReads);
  if (!cost) return;
  costs->second_tier_miss = cost->wall_us;
  costs->second_tier_miss_cpu = std::min(cost->cpu_us, cost->wall_us);
}

// The data file behind a URI: "table:NAME" (a simple table) -> NAME.wt,
// "file:NAME.wt" -> NAME.wt.
uint64_t UriFileId(std::string_view uri) {
  if (uri.rfind("table:", 0) == 0) return DataFileId(uri.substr(6), ".wt");
  if (uri.rfind("file:", 0) == 0) return DataFileId(uri.substr(5));
  return DataFileId(uri);
}

// Sets cache_size; after a shrink, gives the freed heap back to the
// system, or the page cache never gets it (budget/heap_release.h: glibc
// keeps freed memory mapped, jemalloc as dirty pages).
class CacheResizer final : public Resizer {
 public:
  CacheResizer(WT_CONNECTION* connection, uint64_t capacity)
      : connection_(connection), capacity_(capacity) {}

  void SetAppCacheCapacity(uint64_t bytes) override {
    bytes = std::max(bytes, kMinCacheBytes);
    std::lock_guard<std::mutex> lock(mu_);
    const std::string config = "cache_size=" + std::to_string(bytes);
    if (const int error = connection_->reconfigure(connection_, config.c_str()); error != 0) {
      std::fprintf(stderr, "symbiosis: wiredtiger reconfigure(%s) failed: %s\n", config.c_str(),
                   wiredtiger_strerror(error));
      return;
    }
    const bool shrink = bytes < capacity_;
    capacity_ = bytes;
    if (shrink) ReleaseFreeHeap();
  }
  void SetSecondTierCapacity(uint64_t) override {}  // the kernel's
  uint64_t capacity() const {
    std::lock_guard<std::mutex> lock(mu_);
    return capacity_;
  }

 private:
  WT_CONNECTION* const connection_;
  mutable std::mutex mu_;
  uint64_t capacity_;
};

// Members in construction order; the connection is closed first.
class DbImpl final : public Db {
 public:
  explicit DbImpl(const Options& options) : options_(options) {}
  ~DbImpl() override {
    room_.reset();
    if (connection_ != nullptr) connection_->close(connection_, nullptr);
    adapter_.SetController(nullptr);
  }

  Status Init(const std::string& home, uint64_t memory);

  WT_CONNECTION* connection() const override { return connection_; }
  Stats GetStats() const override;
  void SetAppCacheCapacity(uint64_t bytes) override { resizer_->SetAppCacheCapacity(bytes); }
  void Suspend(bool suspended) override { adapter_.Suspend(suspended); }

 private:
  void BeginAccess(std::string_view uri, std::string_view key) const override {
    const_cast<Adapter&>(adapter_).BeginAccess(UriFileId(uri), key);
  }
  void EndAccess() const override { const_cast<Adapter&>(adapter_).EndAccess(); }
  // WiredTiger's connection statistics (WT_STAT_CONN_*), read through one
  // cursor; 0 for any that cannot be read.
  std::vector<uint64_t> EngineStats(std::initializer_list<int> keys) const;

  const Options options_;
  uint64_t memory_ = 0;
  Adapter adapter_;
  FileSystem file_system_{&adapter_};
  EventHandler events_;
  WT_CONNECTION* connection_ = nullptr;
  mutable std::mutex stats_mu_;
  WT_SESSION* stats_session_ = nullptr;
  std::unique_ptr<CacheResizer> resizer_;
  std::unique_ptr<Controller> controller_;
  std::unique_ptr<PageCacheRoomMonitor> room_;
};

Status DbImpl::Init(const std::string& home, uint64_t memory) {
  memory_ = memory;
  const uint64_t floor = static_cast<uint64_t>(options_.min_app_fraction * memory);
  const uint64_t initial = std::max(
      options_.adaptive ? std::clamp(options_.controller.initial_ma_bytes, floor, memory)
                        : (options_.static_ma_bytes ? options_.static_ma_bytes : memory / 4),
      kMinCacheBytes);
  std::string config = options_.engine_config;
  if (!config.empty()) config += ",";
  config += "cache_size=" + std::to_string(initial);
  if (config.find("statistics=") == std::string::npos) config += ",statistics=(fast)";
  // WiredTiger would persist this configuration (our extension entry and
  // cache_size among it) in WiredTiger.basecfg, and a later open without
  // Symbiosis would fail to find the entry. A base configuration that
  // exists (the database was made elsewhere) is read as usual.
  if (!std::filesystem::exists(std::filesystem::path(home) / "WiredTiger.basecfg")) {
    config += ",config_base=false";
  }
  config += ",extensions=[local={entry=symbiosis_wiredtiger_file_system,early_load=true}";
  for (const std::string& extension : options_.extensions) config += "," + extension;
  config += "]";

  pending_file_system = &file_system_;
  const int error = wiredtiger_open(home.c_str(), &events_.wt, config.c_str(), &connection_);
  pending_file_system = nullptr;
  if (error != 0) {
    connection_ = nullptr;
    std::string message = events_.TakeLastError();
    if (message.empty()) message = wiredtiger_strerror(error);
    if (error == ENOENT || message.find("No such file") != std::string::npos) {
      message += "; check the path, or create the database (engine_config \"create\")";
    }
    return Status{error, "wiredtiger_open " + home + ": " + message};
  }
  if (const int e = connection_->open_session(connection_, nullptr, nullptr, &stats_session_);
      e != 0) {
    return Status{e, std::string("open_session: ") + wiredtiger_strerror(e)};
  }
  resizer_ = std::make_unique<CacheResizer>(connection_, initial);
  if (!options_.adaptive) return Status{};

  ControllerConfig c = options_.controller;
  c.memory_bytes = memory;
  c.min_app_fraction = options_.min_app_fraction;
  c.initial_ma_bytes = initial;
  c.default_ma_bytes = std::max(c.default_ma_bytes, floor);
  c.second_tier_owned = false;
  c.app_cache_overhead = options_.kernel_app_cache_overhead;
  // At the page cache's cliff a device read costs more than A charges it,
  // H_a swings by several points between windows and the device reads by
  // two (controller_config.h, read_tie_margin, app_miss_change_floor and
  // device_read_change_floor).
  if (!c.read_tie_margin) c.read_tie_margin = 0.08;
  if (!c.change_floor_on_parts) c.change_floor_on_parts = true;
  if (!c.app_miss_change_floor) c.app_miss_change_floor = 0.10;
  if (!c.device_read_change_floor) c.device_read_change_floor = 0.02;
  const std::vector<std::pair<std::string, uint64_t>> files = DataFiles(home);
  uint64_t data_bytes = 0;  // the tables', not WiredTiger's own files
  for (const auto& [name, size] : files) {
    if (name.rfind("WiredTiger", 0) != 0) data_bytes += size;
  }
  if (options_.min_sampled_groups > 0) {
    c.sample_rate = SampleRateForTables(c, data_bytes, options_.min_sampled_groups);
  }
  if (options_.detect_readahead) {
    c.max_readahead_pages = engine_kit::DbReadaheadPages(home).value_or(c.max_readahead_pages);
  }
  if (options_.measure_device_read_cost) SetDeviceReadCost(home, files, &c.costs);
  try {
    controller_ = std::make_unique<Controller>(c, resizer_.get());
  } catch (const std::exception& e) {
    return Invalid(e.what());
  }
  for (const auto& [name, size] : files) controller_->RecordFileSize(DataFileId(name), size);
  adapter_.SetCacheFill(options_.cache_fill);
  adapter_.SetController(controller_.get());
  if (options_.memory_bytes == 0) {
    // The cache's bytes in use stay near cache_fill of cache_size, but the
    // process's memory grows with cache_size itself
    // (docs/decisions/app-cache-overhead.md): a cache counts as cache_size
    // once it is that full, so the page cache's room at the current
    // cache_size is what the cgroup shows, not 15-20% less.
    room_ = engine_kit::StartPageCacheRoomMonitor(
        memory,
        [this] {
          const double in_use = EngineStats({WT_STAT_CONN_CACHE_BYTES_INUSE})[0];
          return std::min(resizer_->capacity(),
                          static_cast<uint64_t>(in_use / options_.cache_fill));
        },
        controller_.get());
  }
  return Status{};
}

std::vector<uint64_t> DbImpl::EngineStats(std::initializer_list<int> keys) const {
  std::vector<uint64_t> values(keys.size(), 0);
  std::lock_guard<std::mutex> lock(stats_mu_);
  WT_CURSOR* cursor = nullptr;
  if (stats_session_->open_cursor(stats_session_, "statistics:", nullptr, nullptr, &cursor) != 0) {
    return values;
  }
  size_t i = 0;
  for (const int key : keys) {
    cursor->set_key(cursor, key);
    const char* description;
    const char* printable;
    int64_t v = 0;
    if (cursor->search(cursor) == 0 &&
        cursor->get_value(cursor, &description, &printable, &v) == 0 && v > 0) {
      values[i] = static_cast<uint64_t>(v);
    }
    ++i;
  }
  cursor->close(cursor);
  return values;
}

Stats DbImpl::GetStats() const {
  Stats s;
  s.adaptive = options_.adaptive;
  s.memory_bytes = memory_;
  s.ma_bytes = resizer_->capacity();
  const AccessCounts c = adapter_.Counts();
  s.lookups = c.lookups;
  s.app_hits = c.hits;
  s.reads = c.reads;
  s.second_tier_hits = c.second_tier_hits;
  s.miss_ns = c.miss_ns;
  s.internal_reads = c.internal_reads;
  s.other_reads = c.other_reads;
  s.guessed_hits = c.guessed_hits;
  s.unidentified_hits = c.unidentified_hits;
  s.indexed_pages = adapter_.IndexedPages();
  s.index_answers = c.index_answers;
  s.index_wrong = c.index_wrong;
  s.index_guesses = c.index_guesses;
  s.index_guesses_wrong = c.index_guesses_wrong;
  const std::vector<uint64_t> engine =
      EngineStats({WT_STAT_CONN_CACHE_BYTES_INUSE, WT_STAT_CONN_CACHE_PAGES_REQUESTED,
                   WT_STAT_CONN_CACHE_READ, WT_STAT_CONN_CACHE_EVICTION_ACTIVE_WORKERS});
  s.app_usage_bytes = engine[0];
  s.engine_pages_requested = engine[1];
  s.engine_pages_read = engine[2];
  s.engine_eviction_workers = engine[3];
  s.suspended = adapter_.suspended();
  if (controller_) s.controller = controller_->Stats();
  return s;
}

}  // namespace

Status Open(const Options& options, const std::string& home, std::unique_ptr<Db>* db) {
  db->reset();
  for (const char* reserved : {"cache_size", "extensions"}) {
    if (options.engine_config.find(reserved) != std::string::npos) {
      return Invalid(std::string("engine_config sets ") + reserved +
                     ", which Symbiosis sets; use memory_bytes / static_ma_bytes or "
                     "Options::extensions instead");
    }
  }
  for (const std::string& extension : options.extensions) {
    if (extension.empty() || extension.find_first_of(",[]=\"()") != std::string::npos) {
      return Invalid("extension path \"" + extension +
                     "\" is empty or holds one of , [ ] = \" ( ); give a plain library path");
    }
    if (!std::filesystem::exists(extension)) {
      return Status{ENOENT, "extension " + extension +
                                " does not exist; install libwiredtiger-dev or fix the path"};
    }
  }
  if (!(options.cache_fill > 0 && options.cache_fill <= 1)) {
    return Invalid("cache_fill must be in (0, 1], e.g. 0.8 (WiredTiger's eviction_target)");
  }
  uint64_t memory = 0;
  try {
    memory = ResolveEngineMemory(options.memory_bytes, options.controller.memory_reserve_bytes,
                                 options.controller.default_ma_bytes, kMinMemoryBytes,
                                 "WiredTiger");
    if (!options.adaptive && options.static_ma_bytes > memory) {
      return Invalid("static cache " + MiB(options.static_ma_bytes) + " exceeds the budget " +
                     MiB(memory) + "; lower static_ma_bytes");
    }
    if (!options.adaptive && options.static_ma_bytes != 0 &&
        options.static_ma_bytes < kMinCacheBytes) {
      return Invalid("static cache of " + std::to_string(options.static_ma_bytes) +
                     " bytes is below WiredTiger's minimum of 1 MiB; raise static_ma_bytes");
    }
    if (options.adaptive) {
      ControllerConfig config = options.controller;
      config.memory_bytes = memory;
      config.min_app_fraction = options.min_app_fraction;
      ValidateControllerConfig(config);
    }
  } catch (const std::exception& e) {  // InputError, CgroupError
    return Invalid(e.what());
  }
  auto impl = std::make_unique<DbImpl>(options);
  Status status = impl->Init(home, memory);
  if (!status.ok()) return status;
  *db = std::move(impl);
  return status;
}

}  // namespace symbiosis::wiredtiger

// The early-loaded extension WiredTiger finds in the executable by name
// ("local" in the extensions list); it installs the file system of the
// Open running on this thread.
extern "C" __attribute__((visibility("default"))) int symbiosis_wiredtiger_file_system(
    WT_CONNECTION* connection, WT_CONFIG_ARG*) {
  using symbiosis::wiredtiger::pending_file_system;
  if (pending_file_system == nullptr) return EINVAL;
  return connection->set_file_system(connection, pending_file_system->wt(), nullptr);
}
