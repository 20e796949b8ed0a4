// pagecache_validate: how well PageCacheModel predicts the real Linux page
// cache.
//
//   pagecache_validate [--memory 64MiB] [--file-size 256MiB]
//       [--pattern uniform|zipfian|hotspot|scan|all] [--accesses 200000]
//       [--warmup N] [--read-pages 1] [--scan-region BYTES] [--seed 1]
//       [--dir /var/tmp] [--fadvise normal|random] [--json out.json]
//
// For each pattern one page access sequence is replayed twice:
//  1. Kernel: a child process inside a fresh child memory cgroup limited to
//     --memory reads the pages of a data file with pread. Before each read
//     it asks ResidencyProbe (cachestat) whether the pages are resident:
//     the kernel's hits, exactly, without disturbing the cache.
//  2. Model: PageCacheModel, given the same effective capacity, over the
//     identical sequence; also the page-LRU and no-read-ahead variants.
// The first --warmup accesses fill the caches and are not counted. A hit
// is an access whose --read-pages pages were all resident.
//
// Effective capacity. The cgroup limit also pays for the child's own
// memory: stack and heap pages it dirties after the move, page tables, and
// kernel objects of the page cache (xarray nodes, kept alive by shadow
// entries). Memory the child already shared with the parent at fork stays
// charged to the parent, so the access sequence and the result array are
// built and touched before the fork. The parent samples the cgroup's
// memory.stat every 20 ms during the measured phase; the model's capacity
// is the mean page-cache size (v1 total_cache, v2 file) over the samples
// taken while the cgroup was full (usage within min(1 MiB, limit/16) of
// the limit): a skewed pattern may still be filling the cache after the
// warm-up, and those samples would understate it. The kernel reclaims in
// batches, so even a full cache breathes by a few hundred KiB; minimum and
// maximum are reported too. If the cgroup never filled, the capacity is
// the limit minus the largest non-file charge seen.
//
// The data file is created unlinked (O_TMPFILE) on the disk-backed file
// system of --dir, so nothing is left behind even on a crash. tmpfs is
// refused: its pages are shared memory, not page cache.
//
// Exit status: 0 on success, 1 on bad flags or I/O errors, 2 when no child
// memory cgroup can be created, 128 + signal when interrupted (the child
// cgroup is removed all the same).

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "symbiosis/block.h"
#include "symbiosis/cgroup.h"
#include "symbiosis/error.h"
#include "base/hash.h"
#include "model/page_cache_model.h"
#include "budget/residency.h"
#include "symbiosis/workload.h"

namespace symbiosis {
namespace {

struct Flags {
  uint64_t memory = 64 << 20;
  uint64_t file_size = 256 << 20;
  std::string pattern = "all";
  uint64_t accesses = 200000;
  uint64_t warmup = 0;  // 0: accesses / 4
  uint32_t read_pages = 1;
  uint64_t scan_region = 0;  // 0: 1.5 x memory
  uint64_t seed = 1;
  std::string dir = "/var/tmp";
  bool fadvise_random = false;
  std::string json;
};

const char kUsage[] =
    "usage: pagecache_validate [--memory 64MiB] [--file-size 256MiB] "
    "[--pattern uniform|zipfian|hotspot|scan|all] [--accesses N] "
    "[--warmup N] [--read-pages K] [--scan-region BYTES] [--seed S] "
    "[--dir DIR] [--fadvise normal|random] [--json FILE]";

Flags ParseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    std::string name = argv[i];
    if (name == "--help" || name == "-h") {
      std::printf("%s\n", kUsage);
      std::exit(0);
    }
    if (i + 1 >= argc) {
      throw InputError(name + " needs a value; " + kUsage);
    }
    std::string value = argv[++i];
    if (name == "--memory") {
      flags.memory = ParseBytes(value, name);
    } else if (name == "--file-size") {
      flags.file_size = ParseBytes(value, name);
    } else if (name == "--pattern") {
      flags.pattern = value;
    } else if (name == "--accesses") {
      flags.accesses = ParseCount(value, name);
    } else if (name == "--warmup") {
      flags.warmup = ParseCount(value, name);
    } else if (name == "--read-pages") {
      flags.read_pages = static_cast<uint32_t>(ParseCount(value, name));
    } else if (name == "--scan-region") {
      flags.scan_region = ParseBytes(value, name);
    } else if (name == "--seed") {
      flags.seed = ParseCount(value, name);
    } else if (name == "--dir") {
      flags.dir = value;
    } else if (name == "--fadvise") {
      if (value != "normal" && value != "random") {
        throw InputError("--fadvise " + value + ": use normal or random");
      }
      flags.fadvise_random = value == "random";
    } else if (name == "--json") {
      flags.json = value;
    } else {
      throw InputError("unknown flag " + name + "; " + kUsage);
    }
  }
  if (flags.warmup == 0) flags.warmup = flags.accesses / 4;
  if (flags.scan_region == 0) flags.scan_region = flags.memory * 3 / 2;
  if (flags.read_pages < 1 || flags.read_pages > 255) {
    throw InputError("--read-pages must be in [1, 255]");
  }
  if (flags.memory < (4 << 20)) {
    throw InputError("--memory must be at least 4MiB; the child needs room");
  }
  if (flags.file_size <= flags.memory) {
    throw InputError("--file-size must exceed --memory, or nothing is evicted");
  }
  if (flags.warmup >= flags.accesses) {
    throw InputError("--warmup must be smaller than --accesses");
  }
  flags.scan_region = std::min(flags.scan_region, flags.file_size);
  return flags;
}

// Access patterns. Each yields the first page of a read of `read_pages`
// pages; reads are aligned to read_pages so a request is one "block".

// YCSB's zipfian over ranks [0, n) (Gray et al.), scrambled by a hash so
// the hot blocks are scattered over the file.
class ScrambledZipfian {
 public:
  ScrambledZipfian(uint64_t n, double theta) : n_(n), theta_(theta) {
    for (uint64_t i = 1; i <= n; ++i) zeta_n_ += 1.0 / std::pow(i, theta);
    double zeta2 = 1.0 + 1.0 / std::pow(2.0, theta);
    alpha_ = 1.0 / (1.0 - theta);
    eta_ = (1.0 - std::pow(2.0 / n, 1.0 - theta)) / (1.0 - zeta2 / zeta_n_);
  }

  uint64_t Next(std::mt19937_64& rng) {
    double u = std::uniform_real_distribution<double>(0, 1)(rng);
    double uz = u * zeta_n_;
    uint64_t rank;
    if (uz < 1.0) {
      rank = 0;
    } else if (uz < 1.0 + std::pow(0.5, theta_)) {
      rank = 1;
    } else {
      rank = static_cast<uint64_t>(n_ * std::pow(eta_ * u - eta_ + 1, alpha_));
    }
    return Mix64(std::min(rank, n_ - 1)) % n_;
  }

 private:
  const uint64_t n_;
  const double theta_;
  double zeta_n_ = 0, alpha_ = 0, eta_ = 0;
};

std::vector<uint64_t> MakeSequence(const std::string& pattern,
                                   const Flags& flags) {
  const uint64_t k = flags.read_pages;
  const uint64_t blocks = (flags.file_size >> kPageShift) / k;
  std::mt19937_64 rng(flags.seed);
  auto uniform = [&rng](uint64_t lo, uint64_t hi) {  // [lo, hi)
    return std::uniform_int_distribution<uint64_t>(lo, hi - 1)(rng);
  };
  std::vector<uint64_t> pages;
  pages.reserve(flags.accesses);
  if (pattern == "uniform") {
    while (pages.size() < flags.accesses) pages.push_back(uniform(0, blocks) * k);
  } else if (pattern == "zipfian") {
    ScrambledZipfian zipf(blocks, 0.99);
    while (pages.size() < flags.accesses) pages.push_back(zipf.Next(rng) * k);
  } else if (pattern == "hotspot") {
    // 80% of the reads go to the first 20% of the file.
    uint64_t hot = std::max<uint64_t>(1, blocks / 5);
    while (pages.size() < flags.accesses) {
      bool to_hot = std::uniform_real_distribution<double>(0, 1)(rng) < 0.8;
      pages.push_back((to_hot ? uniform(0, hot) : uniform(hot, blocks)) * k);
    }
  } else {  // scan
    uint64_t region = std::max<uint64_t>(1, (flags.scan_region >> kPageShift) / k);
    for (uint64_t i = 0; pages.size() < flags.accesses; ++i) {
      pages.push_back((i % region) * k);
    }
  }
  return pages;
}

// The data file: unlinked, on a disk-backed file system, every page
// written (a hole would be read without I/O).
int CreateDataFile(const Flags& flags) {
  struct statfs fs;
  if (statfs(flags.dir.c_str(), &fs) != 0) {
    throw InputError("--dir " + flags.dir + ": " + std::strerror(errno) +
                     "; give an existing directory");
  }
  if (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC) {
    throw InputError("--dir " + flags.dir +
                     " is on tmpfs/ramfs, whose pages are not page cache; "
                     "give a directory on a disk, e.g. /var/tmp");
  }
  int fd = open(flags.dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw InputError("cannot create a file in " + flags.dir + ": " +
                     std::strerror(errno) + "; give a writable directory");
  }
  std::vector<char> chunk(1 << 20);
  for (uint64_t done = 0; done < flags.file_size; done += chunk.size()) {
    for (size_t i = 0; i < chunk.size(); i += kPageSize) {
      std::memcpy(&chunk[i], &done, sizeof(done));  // pages differ
    }
    size_t n = std::min<uint64_t>(chunk.size(), flags.file_size - done);
    if (pwrite(fd, chunk.data(), n, static_cast<off_t>(done)) !=
        static_cast<ssize_t>(n)) {
      close(fd);
      throw InputError("cannot write the data file in " + flags.dir + ": " +
                       std::strerror(errno) + "; free some space");
    }
  }
  if (fsync(fd) != 0) {
    close(fd);
    throw InputError(std::string("fsync of the data file failed: ") +
                     std::strerror(errno));
  }
  return fd;
}

// Closes a file descriptor when it goes out of scope.
class ScopedFd {
 public:
  explicit ScopedFd(int fd) : fd_(fd) {}
  ~ScopedFd() { close(fd_); }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  int get() const { return fd_; }

 private:
  const int fd_;
};

// Drops the file from the page cache and checks that it is gone.
void DropFromPageCache(int fd, ResidencyProbe& probe, uint64_t file_size) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    if (probe.ResidentPages(0, file_size) == 0) return;
    usleep(50000);  // pages under read-ahead I/O cannot be dropped yet
  }
  throw InputError("could not drop the data file from the page cache; is "
                   "another process reading it?");
}

struct KernelRun {
  std::vector<uint8_t> resident;  // resident pages per access, before it
  uint64_t capacity = 0;  // effective page-cache capacity, bytes
  uint64_t cache_min = 0, cache_max = 0;  // page cache while full, bytes
  uint64_t nonfile_max = 0;  // usage - file, bytes
  uint64_t full_samples = 0;
  double seconds = 0;
};

// What the replay child reports: memory shared with the parent, touched
// by the parent before the fork so that it stays charged to the parent's
// cgroup.
class SharedResults {
 public:
  explicit SharedResults(size_t accesses)
      : bytes_(sizeof(Layout) + accesses) {
    void* map = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
      throw InputError("cannot map the result array: " +
                       std::string(std::strerror(errno)));
    }
    std::memset(map, 0, bytes_);
    layout_ = static_cast<Layout*>(map);
  }
  ~SharedResults() { munmap(layout_, bytes_); }
  SharedResults(const SharedResults&) = delete;
  SharedResults& operator=(const SharedResults&) = delete;

  std::atomic<uint64_t>& done() { return layout_->done; }
  uint8_t* resident() { return layout_->resident; }

 private:
  struct Layout {
    std::atomic<uint64_t> done;  // accesses replayed so far
    uint8_t resident[];          // resident pages per access, before it
  };
  const size_t bytes_;
  Layout* layout_;
};

KernelRun RunKernel(const std::string& pattern,
                    const std::vector<uint64_t>& pages, const Flags& flags,
                    const MemoryCgroup& self, int data_fd) {
  // A fresh open file: fresh read-ahead state for every pattern.
  std::string path = "/proc/self/fd/" + std::to_string(data_fd);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw InputError("cannot reopen the data file: " +
                     std::string(std::strerror(errno)));
  }
  ScopedFd closer(fd);
  if (flags.fadvise_random) posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
  ResidencyProbe probe(fd);
  DropFromPageCache(fd, probe, flags.file_size);
  SharedResults shared(pages.size());

  KernelRun run;
  uint64_t cache_sum = 0, next_report = pages.size() / 10;
  const uint64_t full_usage =
      flags.memory - std::min<uint64_t>(1 << 20, flags.memory / 16);
  auto start = std::chrono::steady_clock::now();
  {
    auto cgroup = ChildCgroup::Create(
        self, "symbiosis-pagecache-" + std::to_string(getpid()) + "-" + pattern,
        flags.memory);
    auto replay = [&]() -> int {
      const size_t bytes = flags.read_pages * kPageSize;
      std::vector<char> buffer(bytes);
      for (size_t i = 0; i < pages.size(); ++i) {
        off_t offset = static_cast<off_t>(pages[i] << kPageShift);
        shared.resident()[i] =
            static_cast<uint8_t>(probe.ResidentPages(offset, bytes));
        if (pread(fd, buffer.data(), bytes, offset) !=
            static_cast<ssize_t>(bytes)) {
          std::fprintf(stderr, "pread failed: %s\n", std::strerror(errno));
          return 1;
        }
        shared.done().store(i + 1, std::memory_order_relaxed);
      }
      return 0;
    };
    auto sample = [&] {
      uint64_t done = shared.done().load(std::memory_order_relaxed);
      if (done >= next_report) {
        std::fprintf(stderr, "pagecache_validate: %s: %3.0f%%\n",
                     pattern.c_str(), 100.0 * done / pages.size());
        next_report += pages.size() / 10;
      }
      if (done < flags.warmup) return;
      CgroupMemoryUsage usage = cgroup->ReadUsage();
      // usage and memory.stat are read apart, so file may exceed usage.
      if (usage.usage > usage.file) {
        run.nonfile_max = std::max(run.nonfile_max, usage.usage - usage.file);
      }
      if (usage.usage < full_usage) return;
      cache_sum += usage.file;
      run.cache_min = run.full_samples ? std::min(run.cache_min, usage.file)
                                       : usage.file;
      run.cache_max = std::max(run.cache_max, usage.file);
      ++run.full_samples;
    };
    int status = RunInChildCgroup(*cgroup, replay, sample, /*poll_ms=*/20);
    if (status != 0) {
      throw InputError("the replay child failed with status " +
                       std::to_string(status) +
                       (status == 137 ? " (killed: out of memory? raise --memory)"
                                      : ""));
    }
    sample();  // the final state: a short run may have had no poll
    DropFromPageCache(fd, probe, flags.file_size);  // empties the cgroup
  }
  run.seconds = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - start).count();
  run.capacity = run.full_samples ? cache_sum / run.full_samples
                                  : flags.memory - run.nonfile_max;
  run.resident.assign(shared.resident(), shared.resident() + pages.size());
  return run;
}

struct HitRatios {
  double access = 0;  // accesses whose pages were all resident
  double page = 0;    // resident pages / requested pages
};

HitRatios KernelHitRatios(const KernelRun& run, const Flags& flags) {
  uint64_t hits = 0, page_hits = 0;
  for (size_t i = flags.warmup; i < run.resident.size(); ++i) {
    hits += run.resident[i] == flags.read_pages;
    page_hits += run.resident[i];
  }
  double counted = static_cast<double>(run.resident.size() - flags.warmup);
  return {hits / counted, page_hits / (counted * flags.read_pages)};
}

HitRatios ModelHitRatios(const PageCacheOptions& options,
                         const std::vector<uint64_t>& pages,
                         const Flags& flags) {
  PageCacheModel model(options);
  model.SetFileSize(0, flags.file_size);
  uint64_t hits = 0, page_hits = 0;
  for (size_t i = 0; i < pages.size(); ++i) {
    PageAccessResult result = model.AccessPages(0, pages[i], flags.read_pages);
    if (i < flags.warmup) continue;
    hits += result.missed_pages == 0;
    page_hits += result.hit_pages;
  }
  double counted = static_cast<double>(pages.size() - flags.warmup);
  return {hits / counted, page_hits / (counted * flags.read_pages)};
}

struct PatternResult {
  std::string pattern;
  KernelRun kernel;
  HitRatios kernel_hits, linux_model, lru_model, no_readahead_model;
};

double MiB(uint64_t bytes) { return bytes / 1048576.0; }

void PrintTable(const std::vector<PatternResult>& results) {
  std::printf("%-9s %8s %8s %8s %8s %8s %10s %6s\n", "pattern", "kernel",
              "model", "|error|", "lru", "no-ra", "cache MiB", "secs");
  double error_sum = 0;
  for (const PatternResult& r : results) {
    double error = std::fabs(r.linux_model.access - r.kernel_hits.access);
    error_sum += error;
    std::printf("%-9s %8.4f %8.4f %8.4f %8.4f %8.4f %10.2f %6.1f\n",
                r.pattern.c_str(), r.kernel_hits.access, r.linux_model.access,
                error, r.lru_model.access, r.no_readahead_model.access,
                MiB(r.kernel.capacity), r.kernel.seconds);
  }
  std::printf("mean absolute hit-ratio error (model vs kernel): %.4f over %zu "
              "pattern(s)\n",
              error_sum / results.size(), results.size());
}

void WriteJson(const std::string& path, const Flags& flags,
               uint32_t readahead_pages, const std::vector<PatternResult>& results) {
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (!out) {
    throw InputError("cannot write --json " + path + ": " + std::strerror(errno));
  }
  std::fprintf(out,
               "{\"memory\": %llu, \"file_size\": %llu, \"accesses\": %llu, "
               "\"warmup\": %llu, \"read_pages\": %u, \"seed\": %llu, "
               "\"max_readahead_pages\": %u, \"fadvise\": \"%s\", "
               "\"patterns\": [",
               (unsigned long long)flags.memory,
               (unsigned long long)flags.file_size,
               (unsigned long long)flags.accesses,
               (unsigned long long)flags.warmup, flags.read_pages,
               (unsigned long long)flags.seed, readahead_pages,
               flags.fadvise_random ? "random" : "normal");
  for (size_t i = 0; i < results.size(); ++i) {
    const PatternResult& r = results[i];
    std::fprintf(
        out,
        "%s\n  {\"pattern\": \"%s\", \"kernel\": %.6f, \"kernel_page\": %.6f, "
        "\"model\": %.6f, \"model_page\": %.6f, \"lru\": %.6f, "
        "\"no_readahead\": %.6f, \"abs_error\": %.6f, \"capacity\": %llu, "
        "\"cache_min\": %llu, \"cache_max\": %llu, \"nonfile_max\": %llu, "
        "\"full_samples\": %llu, \"seconds\": %.2f}",
        i ? "," : "", r.pattern.c_str(), r.kernel_hits.access,
        r.kernel_hits.page, r.linux_model.access, r.linux_model.page,
        r.lru_model.access, r.no_readahead_model.access,
        std::fabs(r.linux_model.access - r.kernel_hits.access),
        (unsigned long long)r.kernel.capacity,
        (unsigned long long)r.kernel.cache_min,
        (unsigned long long)r.kernel.cache_max,
        (unsigned long long)r.kernel.nonfile_max,
        (unsigned long long)r.kernel.full_samples, r.kernel.seconds);
  }
  std::fprintf(out, "\n]}\n");
  std::fclose(out);
}

int Run(int argc, char** argv) {
  Flags flags = ParseFlags(argc, argv);
  const std::vector<std::string> all = {"uniform", "zipfian", "hotspot", "scan"};
  std::vector<std::string> patterns = all;
  if (flags.pattern != "all") {
    if (std::find(all.begin(), all.end(), flags.pattern) == all.end()) {
      throw InputError("unknown --pattern " + flags.pattern +
                       "; use uniform, zipfian, hotspot, scan or all");
    }
    patterns = {flags.pattern};
  }

  MemoryCgroup self = DetectMemoryCgroup();
  // Fail before writing the data file if no child cgroup can be made.
  ChildCgroup::Create(self, "symbiosis-pagecache-" + std::to_string(getpid()),
                      flags.memory);
  InterruptGuard interrupt_guard;
  const int data_fd = CreateDataFile(flags);
  ScopedFd closer(data_fd);
  uint32_t readahead_pages = DeviceReadaheadPages(flags.dir).value_or(32);
  std::fprintf(stderr,
               "pagecache_validate: cgroup %s (v%d), device read-ahead %u "
               "pages\n",
               self.dir.c_str(), self.version == CgroupVersion::kV1 ? 1 : 2,
               readahead_pages);

  std::vector<PatternResult> results;
  for (const std::string& pattern : patterns) {
    PatternResult r;
    r.pattern = pattern;
    std::vector<uint64_t> pages = MakeSequence(pattern, flags);
    r.kernel = RunKernel(pattern, pages, flags, self, data_fd);
    r.kernel_hits = KernelHitRatios(r.kernel, flags);

    // POSIX_FADV_RANDOM turns the kernel's read-ahead off for the file.
    PageCacheOptions options;
    options.capacity_bytes = r.kernel.capacity;
    options.max_readahead_pages = readahead_pages;
    options.readahead = !flags.fadvise_random;
    r.linux_model = ModelHitRatios(options, pages, flags);
    options.readahead = false;
    r.no_readahead_model = ModelHitRatios(options, pages, flags);
    options.two_queue = false;
    r.lru_model = ModelHitRatios(options, pages, flags);
    results.push_back(r);
  }

  std::printf("# memory %.0f MiB, file %.0f MiB, %llu accesses (first %llu "
              "warm-up), %u page(s) per read, read-ahead max %u pages, "
              "fadvise %s\n",
              MiB(flags.memory), MiB(flags.file_size),
              (unsigned long long)flags.accesses,
              (unsigned long long)flags.warmup, flags.read_pages,
              readahead_pages, flags.fadvise_random ? "random" : "normal");
  PrintTable(results);
  if (!flags.json.empty()) WriteJson(flags.json, flags, readahead_pages, results);
  return 0;
}

}  // namespace
}  // namespace symbiosis

int main(int argc, char** argv) {
  try {
    return symbiosis::Run(argc, argv);
  } catch (const symbiosis::CgroupError& e) {
    std::fprintf(stderr, "pagecache_validate: %s\n", e.what());
    int signal = symbiosis::InterruptGuard::received();
    return signal != 0 ? 128 + signal : 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pagecache_validate: %s\n", e.what());
    return 1;
  }
}
