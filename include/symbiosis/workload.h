// Workload generators: seeded, deterministic streams of key requests.
//
// A request reads `count` consecutive keys starting at `first_key` (a point
// read has count 1, a scan more). Workloads are named by a spec string,
// "name" or "name:key=value,key=value" (names are case-insensitive):
//
//   uniform                 every key equally likely
//   zipfian[:theta=0.99]    YCSB scrambled zipfian: zipfian ranks over
//                           YCSB's 10^10 items, key = fnvhash64(rank) mod
//                           num_keys, so hot keys are scattered; 0<theta<1
//   hotspotN[-T]            N = 1..99: (100-N)% of requests go to a
//                           contiguous N% of the keys at the head of the
//                           key space (-T: at the tail, the "mirrored"
//                           variant); hotspot10, hotspot20, hotspot30 are
//                           the paper's
//   hotspot[:hot_keys=0.2,hot_requests=0.8,tail=0]
//                           the general form; 0<hot_keys<1,
//                           0<=hot_requests<=1, tail 0|1
//   readscan[:scans=0.1,scan_bytes=100KiB,base=hotspot20]
//                           every request draws a key from `base`; with
//                           probability `scans` it is a scan of a length
//                           uniform in [1, scan_bytes/entry_bytes] keys
//                           (cut at the last key), else a point read.
//                           `base` comes last and takes the rest of the
//                           spec, so it may have parameters of its own:
//                           readscan:scans=0.05,base=zipfian:theta=0.9
//   mixgraph[:keyrange_dist_a=14.18,keyrange_dist_b=-2.917,
//             keyrange_dist_c=0.0164,keyrange_dist_d=-0.08082,
//             keyrange_num=30,key_dist_a=0.002312,key_dist_b=0.3467]
//                           RocksDB db_bench's mix_graph key-space model:
//                           keyrange_num ranges with two-term exponential
//                           hotness a*exp(b*x) + c*exp(d*x), shuffled over
//                           the key space as db_bench does, and power-law
//                           keys inside a range; the defaults are the
//                           published parameters for Meta's workloads
//   strided[:stride=K]      keys 0, K, 2K, ... to the end of the key
//                           space, then 1, K+1, ..., and so on; a
//                           read-ahead-friendly sequential pattern. The
//                           default K = 4096 / entry_bytes is one key per
//                           4 KiB of uncompressed data (one per block)
//
// Numbers are decimals; sizes (scan_bytes) take ParseBytes units, counts
// (keyrange_num, stride) ParseCount suffixes. An unknown name, unknown or
// repeated parameter, or value out of range throws InputError.
// Describe() returns a normalized spec that rebuilds the same stream.
//
// Phase sequences (dynamic workloads) are phases separated by ';', each
// "spec[@size][*count]": spec a workload spec (it may contain ':', ',' and
// '='), '@' the data size of the phase (a prefix of the key space, a
// ParseBytes size), '*' the number of requests (a positive ParseCount):
// "hotspot20@1GiB*5M;hotspot20@2GiB*5M".
//
// A Workload is not thread-safe; give each thread its own.

#ifndef SYMBIOSIS_WORKLOAD_H_
#define SYMBIOSIS_WORKLOAD_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace symbiosis {

struct KeyRequest {
  uint64_t first_key = 0;
  uint32_t count = 1;
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual KeyRequest Next() = 0;
  // The spec this workload was made from, normalized (for reports).
  virtual std::string Describe() const = 0;
};

// Builds a workload over keys [0, num_keys). `entry_bytes` converts scan
// lengths in bytes to keys. The stream is a function of (spec, num_keys,
// entry_bytes, seed) only, the same on every platform. Throws InputError
// on an unknown name (listing the valid ones), a bad parameter, or
// num_keys or entry_bytes of 0.
std::unique_ptr<Workload> MakeWorkload(std::string_view spec,
                                       uint64_t num_keys, uint32_t entry_bytes,
                                       uint64_t seed);

// The names MakeWorkload accepts, for --help and errors (hotspotN[-T]
// accepts any N in 1..99; the paper's three are listed).
std::vector<std::string> WorkloadNames();

struct Phase {
  std::string spec;          // a workload spec
  uint64_t data_bytes = 0;   // 0 = the whole data set
  uint64_t requests = 0;     // 0 = the caller's default
};

// Parses "spec[@size][*count];...", see above; every spec is checked.
// Throws InputError naming the phase number.
std::vector<Phase> ParsePhases(std::string_view text);

// Parses sizes like "4096", "64KiB", "64KB", "64K", "1.5GiB", "2g":
// a decimal number (fraction and exponent allowed), optional blanks, and
// an optional case-insensitive unit B, K|KB|KiB, M|MB|MiB, G|GB|GiB,
// T|TB|TiB, all binary (KB = KiB = 1024). A fractional byte count is
// rounded to the nearest byte. Zero, negatives, garbage and values of
// 2^64 or more throw InputError naming `what`, e.g.
//   "--memory: '-1GiB' is not a size; use e.g. 512MiB or 2GiB".
uint64_t ParseBytes(std::string_view text, std::string_view what);
// Parses counts like "10000000", "5M", "200k", "1e6", "2.5k": a decimal
// number and an optional case-insensitive decimal suffix k (10^3),
// M (10^6), G (10^9), T (10^12). The result must be a whole number; zero
// is accepted (callers that need a positive count check). Throws
// InputError naming `what`.
uint64_t ParseCount(std::string_view text, std::string_view what);
// Parses durations like "30s", "500ms", "250us", "2m", "2min", "45" (a
// decimal number of seconds, no blanks). Negatives and garbage throw
// InputError naming `what`; zero is accepted.
double ParseSeconds(std::string_view text, std::string_view what);

}  // namespace symbiosis

#endif  // SYMBIOSIS_WORKLOAD_H_
