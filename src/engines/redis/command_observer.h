// CommandObserver: what the Redis module (module.cc) keeps of the commands
// a server runs: KRR's miss-ratio curves of its reads for several K
// (maxmemory-samples), in the server's own bytes, from a spatial sample of
// the keys. Free of Redis's headers, so that it is tested without a server.
//
// Reads are the requests: GET, MGET, GETEX, GETDEL, and GETSET (its old
// value). Writes give a key its size: SET, SETNX, SETEX, PSETEX, GETSET,
// MSET, MSETNX. Every other command is counted and left alone. A key's
// size is what it costs the server's used_memory (redis_cache.h's
// RedisKeyBytes of its name and value), so a curve's sizes are maxmemory
// less the server's own use. A read of a sampled key whose write was not
// seen (it was loaded or written before the module) weighs the mean size
// of the sampled keys whose writes were; before any write, its name and a
// value of 64 bytes.
//
// Cost of a command whose key is not sampled: a length check and a few
// byte compares for its name, a hash of the key, a second hash and a
// compare. A sampled read costs the KRR stacks of every K (hundreds
// of steps at K = 16); with `background` (the module's way) it is queued
// instead to a thread of the observer's own, which updates the stacks, so
// the command's thread pays a ring slot; when the ring is full the access
// is dropped and counted, never waited for.
//
// The stacks cost about 7 us a sampled read (four K): at 400,000 GETs a
// second sampled at 6%, 15% of a CPU. With `background`, the thread keeps
// to `cpu_budget` of one CPU by lowering the rate: a server that serves
// more reads gets a sparser sample, not a slower module.
//
// Observe, Curves, Stats and Reset are for one thread (Redis runs commands
// and filters on its main thread); the background thread is internal.

#ifndef SYMBIOSIS_ENGINES_REDIS_COMMAND_OBSERVER_H_
#define SYMBIOSIS_ENGINES_REDIS_COMMAND_OBSERVER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/spsc_ring.h"
#include "symbiosis/krr.h"

namespace symbiosis {

struct CommandObserverOptions {
  double rate = 0.01;         // the sample's rate R
  uint64_t min_keys = 4096;   // a floor on its keys (krr.h)
  std::vector<uint32_t> ks = {1, 5, 8, 16};  // 0: exact LRU's curve too (krr.h)
  uint64_t seed = 1;
  bool background = false;    // the stacks on a thread of their own
  // With `background`: the share of one CPU the thread may take. Over it
  // in a second, it halves the sample's rate (below `rate` if need be;
  // never back up: SYMBIOSIS.RESET starts over). 0: no limit.
  double cpu_budget = 0.01;
};

struct ObserverStats {
  uint64_t commands = 0;     // seen
  uint64_t reads = 0;        // keys read (the requests)
  uint64_t writes = 0;       // keys written
  uint64_t sampled_reads = 0;  // of them, the ones the curves took
  uint64_t dropped_reads = 0;  // sampled, and dropped: the ring was full
  uint64_t rate_lowered = 0;   // halvings of the rate for the CPU budget
  double rate = 1;           // the sample's now
  uint64_t sized_keys = 0;   // sampled keys whose size is known
  size_t memory_bytes = 0;   // the curves' and the sizes'
};

class CommandObserver {
 public:
  // Throws InputError for a rate outside (0, 1], no K, or a K above 64.
  explicit CommandObserver(const CommandObserverOptions& options);
  ~CommandObserver();
  CommandObserver(const CommandObserver&) = delete;
  CommandObserver& operator=(const CommandObserver&) = delete;

  // One command: argv[0] its name (any case), then its arguments.
  void Observe(const std::vector<std::string_view>& argv) {
    Observe(argv.size(), [&argv](size_t i) { return argv[i]; });
  }
  // The same, each argument fetched only if needed: arg(i) is argument i's
  // std::string_view, i < argc (a server's filter reads only the key and
  // the value of the commands it keeps).
  template <typename Arg>
  void Observe(size_t argc, const Arg& arg);

  // One curve per K (options.ks order) at `points` sizes spread over the
  // working set; none before the first read. REQUIRES: points > 0.
  std::vector<MissRatioCurve> Curves(size_t points) const;
  const std::vector<uint32_t>& ks() const { return options_.ks; }
  uint64_t WorkingSet() const;
  ObserverStats Stats() const;

  // Forgets every command seen.
  void Reset();

  // With `background`: waits until the queued reads are in the curves
  // (tests; the module's commands read the curves as they are).
  void Drain();

 private:
  struct SampledRead {
    uint64_t key;
    uint32_t bytes;
    uint32_t generation;  // Reset's count when queued: older ones are dropped
  };

  void Read(std::string_view key);
  void Write(std::string_view key, std::string_view value);
  void RunBackground();

  const CommandObserverOptions options_;
  std::unique_ptr<KrrCurves> curves_;  // its stacks guarded by mu_ with `background`
  std::unordered_map<uint64_t, uint32_t> bytes_;  // sampled keys' costs
  uint64_t known_bytes_ = 0;                       // their sum
  uint32_t mean_bytes_ = 0;                        // their mean, or a guess before any
  std::vector<uint32_t> guessed_bytes_;            // the guess by key length, short keys
  size_t pruned_at_ = 0;                           // bytes_'s size after the last prune
  ObserverStats stats_;

  // With `background`:
  mutable std::mutex mu_;               // held while the stacks change
  uint32_t generation_ = 0;             // guarded by mu_ (written by Reset)
  std::unique_ptr<SpscRing<SampledRead>> ring_;
  std::atomic<uint64_t> applied_{0};    // reads the thread has taken off the ring
  std::atomic<uint64_t> rate_lowered_{0};  // by the thread, for the CPU budget
  uint64_t queued_ = 0;                 // reads put on it
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// `name` equals the lower-case `command`, in any case.
inline bool CommandIs(std::string_view name, std::string_view command) {
  if (name.size() != command.size()) return false;
  for (size_t i = 0; i < name.size(); i++) {
    if ((name[i] | 0x20) != command[i]) return false;
  }
  return true;
}

template <typename Arg>
void CommandObserver::Observe(size_t argc, const Arg& arg) {
  stats_.commands++;
  if (argc < 2) return;
  const std::string_view name = arg(0);
  // By length first: most commands are none of these, and a cache's GET
  // and SET are found in one compare.
  switch (name.size()) {
    case 3:
      if (CommandIs(name, "get")) {
        Read(arg(1));
      } else if (CommandIs(name, "set") && argc >= 3) {
        Write(arg(1), arg(2));
      }
      return;
    case 4:
      if (CommandIs(name, "mget")) {
        for (size_t i = 1; i < argc; i++) Read(arg(i));
      } else if (CommandIs(name, "mset")) {
        for (size_t i = 1; i + 1 < argc; i += 2) Write(arg(i), arg(i + 1));
      }
      return;
    case 5:
      if (CommandIs(name, "getex")) {
        Read(arg(1));
      } else if (CommandIs(name, "setnx") && argc >= 3) {
        Write(arg(1), arg(2));
      } else if (CommandIs(name, "setex") && argc >= 4) {
        Write(arg(1), arg(3));
      }
      return;
    case 6:
      if (CommandIs(name, "getdel")) {
        Read(arg(1));
      } else if (CommandIs(name, "getset") && argc >= 3) {
        const std::string_view key = arg(1);
        Read(key);
        Write(key, arg(2));
      } else if (CommandIs(name, "psetex") && argc >= 4) {
        Write(arg(1), arg(3));
      } else if (CommandIs(name, "msetnx")) {
        for (size_t i = 1; i + 1 < argc; i += 2) Write(arg(i), arg(i + 1));
      }
      return;
    default:
      return;
  }
}

}  // namespace symbiosis

#endif  // SYMBIOSIS_ENGINES_REDIS_COMMAND_OBSERVER_H_
