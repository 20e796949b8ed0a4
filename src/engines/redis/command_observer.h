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
// of the sampled keys whose writes were.
//
// Cost of a command whose key is not sampled: a length check and a few
// byte compares for its name, a hash of the key, a distinct-key register
// and a compare. Not thread-safe: Redis runs commands and filters on its
// main thread.

#ifndef SYMBIOSIS_ENGINES_REDIS_COMMAND_OBSERVER_H_
#define SYMBIOSIS_ENGINES_REDIS_COMMAND_OBSERVER_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "symbiosis/krr.h"

namespace symbiosis {

struct CommandObserverOptions {
  double rate = 0.01;         // the sample's rate R
  uint64_t min_keys = 4096;   // a floor on its keys (krr.h)
  std::vector<uint32_t> ks = {1, 5, 8, 16};
  uint64_t seed = 1;
};

struct ObserverStats {
  uint64_t commands = 0;     // seen
  uint64_t reads = 0;        // keys read (the requests)
  uint64_t writes = 0;       // keys written
  uint64_t sampled_reads = 0;
  double rate = 1;           // the sample's now
  uint64_t sized_keys = 0;   // sampled keys whose size is known
  size_t memory_bytes = 0;   // the curves' and the sizes'
};

class CommandObserver {
 public:
  // Throws InputError for a rate outside (0, 1], no K, or a K of 0.
  explicit CommandObserver(const CommandObserverOptions& options);

  // One command: argv[0] its name (any case), then its arguments.
  void Observe(const std::vector<std::string_view>& argv);

  // One curve per K (options.ks order) at `points` sizes spread over the
  // working set; none before the first read. REQUIRES: points > 0.
  std::vector<MissRatioCurve> Curves(size_t points) const;
  const std::vector<uint32_t>& ks() const { return options_.ks; }
  uint64_t WorkingSet() const { return curves_->WorkingSet(); }
  ObserverStats Stats() const;

  // Forgets every command seen.
  void Reset();

 private:
  void Read(std::string_view key);
  void Write(std::string_view key, std::string_view value);

  CommandObserverOptions options_;
  std::unique_ptr<KrrCurves> curves_;
  std::unordered_map<uint64_t, uint32_t> bytes_;  // sampled keys' costs
  uint64_t known_bytes_ = 0;                       // their sum
  size_t pruned_at_ = 0;                           // bytes_'s size after the last prune
  ObserverStats stats_;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_ENGINES_REDIS_COMMAND_OBSERVER_H_
