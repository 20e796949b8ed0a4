#include "symbiosis/workload.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <utility>

#include "symbiosis/error.h"
#include "base/hash.h"

namespace symbiosis {

namespace {

// SplitMix64 (Steele et al.): a tiny generator whose output is fixed by
// the seed on every platform, unlike the std:: distributions. The seed is
// mixed first so that neighbouring seeds give unrelated streams.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(Mix64(seed ^ 0x2545f4914f6cdd1dULL)) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double NextDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n), unbiased (Lemire's multiply-and-reject).
  // REQUIRES: n > 0
  uint64_t Uniform(uint64_t n) {
    unsigned __int128 m = static_cast<unsigned __int128>(Next()) * n;
    if (static_cast<uint64_t>(m) < n) {
      const uint64_t threshold = -n % n;
      while (static_cast<uint64_t>(m) < threshold) {
        m = static_cast<unsigned __int128>(Next()) * n;
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

 private:
  uint64_t state_;
};

// Shortest text that parses back to the same double, so that Describe()
// rebuilds the same workload.
std::string FormatDouble(double value) {
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, end);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) {
    s.remove_prefix(1);
  }
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) {
    s.remove_suffix(1);
  }
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(c));
  return out;
}

std::string JoinedNames() {
  std::string out;
  for (const std::string& name : WorkloadNames()) {
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

// The name=value parameters of one spec. Every parameter must be read
// exactly once; Finish() rejects the ones nobody asked for, so a typo
// never silently falls back to a default.
class Params {
 public:
  // `base` takes the rest of the text, so that it may hold a whole spec.
  Params(std::string_view spec, std::string_view name, std::string_view text)
      : spec_(spec), name_(name) {
    while (!text.empty()) {
      size_t eq = text.find('=');
      size_t comma = text.find(',');
      if (eq == std::string_view::npos || eq > comma) {
        Fail("'" + std::string(Trim(text.substr(0, comma))) +
             "' is not name=value");
      }
      std::string key = Lower(Trim(text.substr(0, eq)));
      text.remove_prefix(eq + 1);
      size_t end = key == "base" ? text.size() : text.find(',');
      std::string_view value = Trim(text.substr(0, end));
      if (!values_.emplace(key, value).second) {
        Fail("parameter '" + key + "' is given twice");
      }
      text.remove_prefix(end < text.size() ? end + 1 : text.size());
    }
  }

  double Double(const std::string& key, double fallback) {
    auto it = values_.find(key);
    if (it == values_.end()) return fallback;
    std::string text = std::move(it->second);
    values_.erase(it);
    double value;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(),
                                     value);
    if (ec != std::errc() || end != text.data() + text.size() ||
        !std::isfinite(value)) {
      Fail(key + "='" + text + "' is not a number");
    }
    return value;
  }
  uint64_t Count(const std::string& key, uint64_t fallback) {
    std::string text = Take(key);
    return text.empty() ? fallback : ParseCount(text, Where(key));
  }
  uint64_t Bytes(const std::string& key, uint64_t fallback) {
    std::string text = Take(key);
    return text.empty() ? fallback : ParseBytes(text, Where(key));
  }
  bool Bool(const std::string& key, bool fallback) {
    std::string text = Lower(Take(key));
    if (text.empty()) return fallback;
    if (text == "1" || text == "true" || text == "yes") return true;
    if (text == "0" || text == "false" || text == "no") return false;
    Fail(key + "='" + text + "' is not 0 or 1");
  }
  std::string String(const std::string& key, std::string fallback) {
    std::string text = Take(key);
    return text.empty() ? fallback : text;
  }

  // REQUIRES: every parameter the workload knows has been read.
  void Finish(std::string_view known) {
    if (values_.empty()) return;
    Fail("unknown parameter '" + values_.begin()->first + "'; " + name_ +
         (known.empty() ? " takes no parameters"
                        : " takes " + std::string(known)));
  }
  [[noreturn]] void Fail(const std::string& reason) const {
    throw InputError("workload '" + spec_ + "': " + reason);
  }

 private:
  std::string Take(const std::string& key) {
    auto it = values_.find(key);
    if (it == values_.end()) return "";
    std::string text = std::move(it->second);
    values_.erase(it);
    if (text.empty()) Fail(key + "= has no value");
    return text;
  }
  std::string Where(const std::string& key) const {
    return "workload '" + spec_ + "': " + key;
  }

  std::string spec_;
  std::string name_;
  std::map<std::string, std::string> values_;
};

// What MakeWorkload was given. Every workload below keeps one invariant:
// each request has count >= 1 and first_key + count <= num_keys.
struct Context {
  uint64_t num_keys;
  uint32_t entry_bytes;
  uint64_t seed;
};

// Uniform: every key equally likely; the baseline with no locality.
class UniformWorkload : public Workload {
 public:
  static std::unique_ptr<Workload> Make(Params& params, const Context& ctx) {
    params.Finish("");
    return std::make_unique<UniformWorkload>(ctx.num_keys, ctx.seed);
  }
  UniformWorkload(uint64_t num_keys, uint64_t seed)
      : num_keys_(num_keys), random_(seed) {}

  KeyRequest Next() override { return {random_.Uniform(num_keys_), 1}; }
  std::string Describe() const override { return "uniform"; }

 private:
  const uint64_t num_keys_;
  Random random_;
};

// YCSB's ScrambledZipfianGenerator, done faithfully: a zipfian rank is
// drawn over YCSB's fixed item space of 10^10 + 1 items with Gray et al.'s
// method ("Quickly Generating Billion-Record Synthetic Databases", as in
// YCSB's ZipfianGenerator), then key = fnvhash64(rank) mod num_keys. The
// hash scatters hot keys over the key space, so popularity has no spatial
// locality. Because 10^10 ranks fold onto num_keys keys, the hottest key
// has probability about 1/zeta(10^10, theta) (3.8% at theta 0.99), not
// 1/zeta(num_keys, theta). zeta(10^10, 0.99) is YCSB's constant; for other
// thetas it is computed by Euler-Maclaurin summation (error < 1e-12).
class ScrambledZipfianWorkload : public Workload {
 public:
  static std::unique_ptr<Workload> Make(Params& params, const Context& ctx) {
    double theta = params.Double("theta", kYcsbTheta);
    params.Finish("theta");
    if (!(theta > 0 && theta < 1)) {
      params.Fail("theta=" + FormatDouble(theta) + " must be in (0, 1)");
    }
    return std::make_unique<ScrambledZipfianWorkload>(ctx.num_keys, theta,
                                                      ctx.seed);
  }

  ScrambledZipfianWorkload(uint64_t num_keys, double theta, uint64_t seed)
      : num_keys_(num_keys),
        theta_(theta),
        zetan_(theta == kYcsbTheta ? kYcsbZetan : Zeta(kItems, theta)),
        alpha_(1 / (1 - theta)),
        eta_((1 - std::pow(2.0 / kItems, 1 - theta)) /
             (1 - (1 + std::pow(0.5, theta)) / zetan_)),
        random_(seed) {}

  KeyRequest Next() override {
    return {FnvHash64(NextRank()) % num_keys_, 1};
  }
  std::string Describe() const override {
    return "zipfian:theta=" + FormatDouble(theta_);
  }

  // sum_{i=1..n} i^-theta.
  static double Zeta(double n, double theta) {
    constexpr int kDirect = 1000;
    double sum = 0;
    for (int i = 1; i < kDirect; i++) sum += std::pow(i, -theta);
    const double m = kDirect;
    return sum + (std::pow(n, 1 - theta) - std::pow(m, 1 - theta)) / (1 - theta) +
           (std::pow(m, -theta) + std::pow(n, -theta)) / 2 +
           theta * (std::pow(m, -theta - 1) - std::pow(n, -theta - 1)) / 12;
  }

  // YCSB Utils.fnvhash64: FNV-1a over the 8 bytes of the value, low byte
  // first, then Math.abs.
  static uint64_t FnvHash64(uint64_t value) {
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (int i = 0; i < 8; i++) {
      hash ^= value & 0xff;
      value >>= 8;
      hash *= 1099511628211ULL;
    }
    return static_cast<int64_t>(hash) < 0 ? -hash : hash;
  }

  static constexpr double kYcsbTheta = 0.99;

 private:
  static constexpr double kItems = 10000000001.0;  // ZipfianGenerator(0, 1e10)
  static constexpr double kYcsbZetan = 26.46902820178302;

  uint64_t NextRank() {
    double u = random_.NextDouble();
    double uz = u * zetan_;
    if (uz < 1) return 0;
    if (uz < 1 + std::pow(0.5, theta_)) return 1;
    return static_cast<uint64_t>(kItems *
                                 std::pow(eta_ * u - eta_ + 1, alpha_));
  }

  const uint64_t num_keys_;
  const double theta_;
  const double zetan_;
  const double alpha_;
  const double eta_;
  Random random_;
};

// YCSB's HotspotIntegerGenerator: a fraction hot_requests of requests goes
// uniformly to a contiguous hot set of hot_keys * num_keys keys (at least
// one), the rest uniformly to the other keys. The paper's hotspotN sends
// (100-N)% of requests to the first N% of keys; tail=1 (the "-T" names)
// puts the hot set at the end of the key space instead.
class HotspotWorkload : public Workload {
 public:
  static std::unique_ptr<Workload> Make(Params& params, const Context& ctx) {
    double hot_keys = params.Double("hot_keys", 0.2);
    double hot_requests = params.Double("hot_requests", 0.8);
    bool tail = params.Bool("tail", false);
    params.Finish("hot_keys, hot_requests, tail");
    if (!(hot_keys > 0 && hot_keys < 1)) {
      params.Fail("hot_keys=" + FormatDouble(hot_keys) + " must be in (0, 1)");
    }
    if (!(hot_requests >= 0 && hot_requests <= 1)) {
      params.Fail("hot_requests=" + FormatDouble(hot_requests) +
                  " must be in [0, 1]");
    }
    return std::make_unique<HotspotWorkload>(ctx.num_keys, hot_keys,
                                             hot_requests, tail, ctx.seed);
  }

  HotspotWorkload(uint64_t num_keys, double hot_keys, double hot_requests,
                  bool tail, uint64_t seed)
      : num_keys_(num_keys),
        hot_keys_(hot_keys),
        hot_requests_(hot_requests),
        tail_(tail),
        hot_count_(std::clamp<uint64_t>(std::llround(hot_keys * num_keys), 1,
                                        num_keys)),
        hot_first_(tail ? num_keys - hot_count_ : 0),
        cold_first_(tail ? 0 : hot_count_),
        random_(seed) {}

  KeyRequest Next() override {
    const uint64_t cold_count = num_keys_ - hot_count_;
    if (cold_count == 0 || random_.NextDouble() < hot_requests_) {
      return {hot_first_ + random_.Uniform(hot_count_), 1};
    }
    return {cold_first_ + random_.Uniform(cold_count), 1};
  }

  // The paper's name when the parameters are one of its hotspots.
  std::string Describe() const override {
    const double percent = hot_keys_ * 100;
    if (percent == std::round(percent) && hot_requests_ == 1 - hot_keys_) {
      return "hotspot" + std::to_string(std::lround(percent)) +
             (tail_ ? "-T" : "");
    }
    return "hotspot:hot_keys=" + FormatDouble(hot_keys_) +
           ",hot_requests=" + FormatDouble(hot_requests_) +
           ",tail=" + (tail_ ? "1" : "0");
  }

 private:
  const uint64_t num_keys_;
  const double hot_keys_;
  const double hot_requests_;
  const bool tail_;
  const uint64_t hot_count_;
  const uint64_t hot_first_;
  const uint64_t cold_first_;
  Random random_;
};

// Point reads mixed with range scans, as in YCSB workload E: a fraction
// `scans` of requests is a scan whose length is uniform in
// [1, scan_bytes / entry_bytes] keys, starting at a key drawn from `base`;
// the rest are `base`'s point reads. A scan that would run past the last
// key stops there, as an iterator does.
class ReadScanWorkload : public Workload {
 public:
  static std::unique_ptr<Workload> Make(Params& params, const Context& ctx);

  ReadScanWorkload(std::unique_ptr<Workload> base, uint64_t num_keys,
                   double scans, uint64_t scan_bytes, uint32_t entry_bytes,
                   uint64_t seed)
      : base_(std::move(base)),
        num_keys_(num_keys),
        scans_(scans),
        scan_bytes_(scan_bytes),
        max_scan_keys_(std::max<uint64_t>(1, scan_bytes / entry_bytes)),
        random_(seed) {}

  KeyRequest Next() override {
    KeyRequest request = base_->Next();
    if (random_.NextDouble() < scans_) {
      uint64_t length = 1 + random_.Uniform(max_scan_keys_);
      request.count = static_cast<uint32_t>(
          std::min(length, num_keys_ - request.first_key));
    }
    return request;
  }
  std::string Describe() const override {
    return "readscan:scans=" + FormatDouble(scans_) +
           ",scan_bytes=" + std::to_string(scan_bytes_) +
           ",base=" + base_->Describe();
  }

 private:
  const std::unique_ptr<Workload> base_;
  const uint64_t num_keys_;
  const double scans_;
  const uint64_t scan_bytes_;
  const uint64_t max_scan_keys_;
  Random random_;
};

// RocksDB db_bench's mix_graph key-space model (GenerateTwoTermExpKeys),
// fitted to Meta's production traces (Cao et al., FAST'20). The keys are cut
// into keyrange_num ranges of num_keys / keyrange_num keys (a remainder
// stays unused, as in db_bench). Range x = 1..keyrange_num gets weight
// f(x) = a*exp(b*x) + c*exp(d*x), quantized as db_bench does: weights below
// 1e-16 are 0, amplify = floor(1 / f(keyrange_num)) + 1 and a range gets
// floor(amplify * f(x)) of keyrange_rand_max tickets. The ranges are then
// placed in key space by db_bench's own shuffle (std::mt19937_64 seeded
// with keyrange_rand_max, so placement depends on the parameters only).
// Inside a range, u = Uniform(range size) / range size and the key seed is
// ceil((u / key_dist_a)^(1 / key_dist_b)), the inverse CDF of the power
// law key_dist_a * x^key_dist_b; the seed is then scattered over the range.
// Two differences from db_bench, both to keep draws independent and fast:
// the range and u come from two random numbers (db_bench reuses one), and
// the scatter is Mix64(seed) % size (db_bench seeds a fresh mt19937_64).
// key_dist_a or key_dist_b = 0 means uniform keys inside a range.
class MixGraphWorkload : public Workload {
 public:
  struct Shape {
    double keyrange_dist_a = 14.18;
    double keyrange_dist_b = -2.917;
    double keyrange_dist_c = 0.0164;
    double keyrange_dist_d = -0.08082;
    uint64_t keyrange_num = 30;
    double key_dist_a = 0.002312;
    double key_dist_b = 0.3467;
  };

  static std::unique_ptr<Workload> Make(Params& params, const Context& ctx) {
    Shape s;
    s.keyrange_dist_a = params.Double("keyrange_dist_a", s.keyrange_dist_a);
    s.keyrange_dist_b = params.Double("keyrange_dist_b", s.keyrange_dist_b);
    s.keyrange_dist_c = params.Double("keyrange_dist_c", s.keyrange_dist_c);
    s.keyrange_dist_d = params.Double("keyrange_dist_d", s.keyrange_dist_d);
    s.keyrange_num = params.Count("keyrange_num", s.keyrange_num);
    s.key_dist_a = params.Double("key_dist_a", s.key_dist_a);
    s.key_dist_b = params.Double("key_dist_b", s.key_dist_b);
    params.Finish(
        "keyrange_dist_a, keyrange_dist_b, keyrange_dist_c, keyrange_dist_d, "
        "keyrange_num, key_dist_a, key_dist_b");
    if (s.keyrange_num == 0 || s.keyrange_num > ctx.num_keys) {
      params.Fail("keyrange_num=" + std::to_string(s.keyrange_num) +
                  " must be between 1 and the number of keys (" +
                  std::to_string(ctx.num_keys) + ")");
    }
    if (s.key_dist_a < 0 || s.key_dist_b < 0) {
      params.Fail("key_dist_a and key_dist_b must be >= 0");
    }
    std::vector<uint64_t> tickets = Tickets(s);
    if (tickets.empty()) {
      params.Fail("no key range has a positive share of requests, or the "
                  "shares span too wide a range; check keyrange_dist_a..d");
    }
    return std::make_unique<MixGraphWorkload>(ctx.num_keys, s,
                                              std::move(tickets), ctx.seed);
  }

  // Tickets of each range in key-space order (after the shuffle); empty if
  // no range has any, or the quantization would overflow.
  static std::vector<uint64_t> Tickets(const Shape& s) {
    std::vector<uint64_t> tickets;
    double amplify = 0, total = 0;
    for (uint64_t x = s.keyrange_num; x >= 1; x--) {
      double share = s.keyrange_dist_a * std::exp(s.keyrange_dist_b * x) +
                     s.keyrange_dist_c * std::exp(s.keyrange_dist_d * x);
      if (!(share >= 1e-16)) share = 0;  // NaN too
      if (amplify == 0 && share > 0) amplify = std::floor(1 / share) + 1;
      double count = std::floor(amplify * share);
      total += count;
      if (!(total < 0x1.0p62)) return {};
      tickets.push_back(static_cast<uint64_t>(count));
    }
    if (total == 0) return {};
    std::mt19937_64 shuffle(static_cast<uint64_t>(total));
    for (uint64_t i = 0; i < s.keyrange_num; i++) {
      std::swap(tickets[i], tickets[shuffle() % s.keyrange_num]);
    }
    return tickets;
  }

  MixGraphWorkload(uint64_t num_keys, const Shape& shape,
                   std::vector<uint64_t> tickets, uint64_t seed)
      : shape_(shape),
        range_keys_(num_keys / shape.keyrange_num),
        random_(seed) {
    uint64_t first = 0;
    for (uint64_t t : tickets) {
      first_ticket_.push_back(first);
      first += t;
    }
    total_tickets_ = first;
  }

  KeyRequest Next() override {
    uint64_t ticket = random_.Uniform(total_tickets_);
    uint64_t range = static_cast<uint64_t>(
        std::upper_bound(first_ticket_.begin(), first_ticket_.end(), ticket) -
        first_ticket_.begin() - 1);
    uint64_t offset = random_.Uniform(range_keys_);
    if (shape_.key_dist_a != 0 && shape_.key_dist_b != 0) {
      double u = static_cast<double>(offset) / range_keys_;
      double key_seed = std::ceil(
          std::pow(u / shape_.key_dist_a, 1 / shape_.key_dist_b));
      offset = Mix64(static_cast<uint64_t>(std::min(key_seed, 0x1.0p62))) %
               range_keys_;
    }
    return {range * range_keys_ + offset, 1};
  }

  std::string Describe() const override {
    return "mixgraph:keyrange_dist_a=" + FormatDouble(shape_.keyrange_dist_a) +
           ",keyrange_dist_b=" + FormatDouble(shape_.keyrange_dist_b) +
           ",keyrange_dist_c=" + FormatDouble(shape_.keyrange_dist_c) +
           ",keyrange_dist_d=" + FormatDouble(shape_.keyrange_dist_d) +
           ",keyrange_num=" + std::to_string(shape_.keyrange_num) +
           ",key_dist_a=" + FormatDouble(shape_.key_dist_a) +
           ",key_dist_b=" + FormatDouble(shape_.key_dist_b);
  }

 private:
  const Shape shape_;
  const uint64_t range_keys_;
  std::vector<uint64_t> first_ticket_;  // per range, in key-space order
  uint64_t total_tickets_ = 0;
  Random random_;
};

// A sequential pattern that Linux read-ahead rewards: keys 0, K, 2K, ...
// up to the end of the key space, then 1, K+1, 2K+1, ..., and so on, so
// every key is read once per K sweeps. The default K = 4096 / entry_bytes
// is one key per 4 KiB of uncompressed data, i.e. one key per default-size
// block: consecutive requests read consecutive blocks and pages.
class StridedWorkload : public Workload {
 public:
  static std::unique_ptr<Workload> Make(Params& params, const Context& ctx) {
    uint64_t stride = params.Count(
        "stride", std::max<uint64_t>(1, 4096 / ctx.entry_bytes));
    params.Finish("stride");
    if (stride == 0) params.Fail("stride=0; use a stride of 1 key or more");
    return std::make_unique<StridedWorkload>(ctx.num_keys, stride);
  }

  StridedWorkload(uint64_t num_keys, uint64_t stride)
      : num_keys_(num_keys), stride_(stride) {}

  KeyRequest Next() override {
    uint64_t key = next_;
    if (stride_ < num_keys_ - key) {
      next_ += stride_;
    } else {
      sweep_ = sweep_ + 1 < std::min(stride_, num_keys_) ? sweep_ + 1 : 0;
      next_ = sweep_;
    }
    return {key, 1};
  }
  std::string Describe() const override {
    return "strided:stride=" + std::to_string(stride_);
  }

 private:
  const uint64_t num_keys_;
  const uint64_t stride_;
  uint64_t sweep_ = 0;  // first key of the current sweep
  uint64_t next_ = 0;
};

struct WorkloadKind {
  std::string_view name;
  std::unique_ptr<Workload> (*make)(Params&, const Context&);
};

// Every workload MakeWorkload knows, by name. hotspotN[-T] are shorthands
// for hotspot, resolved in MakeWorkload.
constexpr WorkloadKind kKinds[] = {
    {"uniform", UniformWorkload::Make},
    {"zipfian", ScrambledZipfianWorkload::Make},
    {"hotspot", HotspotWorkload::Make},
    {"readscan", ReadScanWorkload::Make},
    {"mixgraph", MixGraphWorkload::Make},
    {"strided", StridedWorkload::Make},
};

std::unique_ptr<Workload> ReadScanWorkload::Make(Params& params,
                                                 const Context& ctx) {
  double scans = params.Double("scans", 0.1);
  uint64_t scan_bytes = params.Bytes("scan_bytes", 100 * 1024);
  std::string base_spec = params.String("base", "hotspot20");
  params.Finish("scans, scan_bytes, base (last: it takes the rest)");
  if (!(scans >= 0 && scans <= 1)) {
    params.Fail("scans=" + FormatDouble(scans) + " must be in [0, 1]");
  }
  if (scan_bytes / ctx.entry_bytes > UINT32_MAX) {
    params.Fail("scan_bytes=" + std::to_string(scan_bytes) +
                " is more than 2^32 keys; use a shorter scan");
  }
  if (Lower(base_spec).rfind("readscan", 0) == 0) {
    params.Fail("base must be a point-read workload, not readscan");
  }
  // The base draws from its own stream, independent of the scan draws.
  return std::make_unique<ReadScanWorkload>(
      MakeWorkload(base_spec, ctx.num_keys, ctx.entry_bytes,
                   Hash64(ctx.seed, 1)),
      ctx.num_keys, scans, scan_bytes, ctx.entry_bytes, ctx.seed);
}

// Parses "hotspotN" or "hotspotN-T" (1 <= N <= 99) into the parameters of
// the generic hotspot; false if `name` is not of that form.
bool ParseHotspotShorthand(std::string_view name, std::string* params) {
  constexpr std::string_view kPrefix = "hotspot";
  if (name.substr(0, kPrefix.size()) != kPrefix) return false;
  name.remove_prefix(kPrefix.size());
  bool tail = name.size() > 2 && name.substr(name.size() - 2) == "-t";
  if (tail) name.remove_suffix(2);
  unsigned percent = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(),
                                   percent);
  if (name.empty() || ec != std::errc() || end != name.data() + name.size() ||
      percent < 1 || percent > 99) {
    return false;
  }
  *params = "hot_keys=" + FormatDouble(percent / 100.0) +
            ",hot_requests=" + FormatDouble(1 - percent / 100.0) +
            ",tail=" + (tail ? "1" : "0");
  return true;
}

// A number with a unit suffix, parsed exactly as an integer when it has no
// fraction or exponent, else as a double rounded to the nearest integer.
struct Quantity {
  bool ok = false;        // the syntax is valid
  bool overflow = false;  // valid but 2^64 or more
  bool whole = true;  // value * multiplier is an integer
  uint64_t value = 0;
};

// `units` maps lower-case suffixes ("" included) to multipliers.
Quantity ParseQuantity(std::string_view text,
                       const std::pair<std::string_view, uint64_t>* units,
                       size_t num_units) {
  Quantity q;
  text = Trim(text);
  size_t digits_end = 0;
  bool fractional = false;
  while (digits_end < text.size()) {
    char c = text[digits_end];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits_end++;
    } else if (c == '.' ||
               ((c == 'e' || c == 'E') && digits_end > 0 &&
                digits_end + 1 < text.size() &&
                (std::isdigit(static_cast<unsigned char>(text[digits_end + 1])) ||
                 text[digits_end + 1] == '-' || text[digits_end + 1] == '+'))) {
      fractional = true;
      digits_end += (c == '.') ? 1 : 2;
    } else {
      break;
    }
  }
  std::string_view number = text.substr(0, digits_end);
  std::string unit = Lower(Trim(text.substr(digits_end)));
  const std::pair<std::string_view, uint64_t>* match = nullptr;
  for (size_t i = 0; i < num_units; i++) {
    if (units[i].first == unit) match = &units[i];
  }
  if (number.empty() || match == nullptr) return q;
  const uint64_t multiplier = match->second;
  if (!fractional) {
    uint64_t n = 0;
    auto [end, ec] = std::from_chars(number.data(),
                                     number.data() + number.size(), n);
    if (ec == std::errc::result_out_of_range ||
        (ec == std::errc() && n > UINT64_MAX / multiplier)) {
      q.ok = q.overflow = true;
      return q;
    }
    q.ok = ec == std::errc() && end == number.data() + number.size();
    q.value = n * multiplier;
    return q;
  }
  double d;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), d);
  if (ec == std::errc::result_out_of_range) {
    q.ok = q.overflow = true;
    return q;
  }
  if (ec != std::errc() || end != number.data() + number.size()) return q;
  double product = d * static_cast<double>(multiplier);
  q.ok = true;
  if (!(product < 0x1.0p64)) {
    q.overflow = true;
    return q;
  }
  q.whole = product == std::floor(product);
  q.value = static_cast<uint64_t>(std::round(product));
  return q;
}

constexpr std::pair<std::string_view, uint64_t> kByteUnits[] = {
    {"", 1},
    {"b", 1},
    {"k", uint64_t{1} << 10}, {"kb", uint64_t{1} << 10}, {"kib", uint64_t{1} << 10},
    {"m", uint64_t{1} << 20}, {"mb", uint64_t{1} << 20}, {"mib", uint64_t{1} << 20},
    {"g", uint64_t{1} << 30}, {"gb", uint64_t{1} << 30}, {"gib", uint64_t{1} << 30},
    {"t", uint64_t{1} << 40}, {"tb", uint64_t{1} << 40}, {"tib", uint64_t{1} << 40},
};

constexpr std::pair<std::string_view, uint64_t> kCountUnits[] = {
    {"", 1},
    {"k", 1000},
    {"m", 1000000},
    {"g", 1000000000},
    {"t", 1000000000000},
};

}  // namespace

std::unique_ptr<Workload> MakeWorkload(std::string_view spec,
                                       uint64_t num_keys, uint32_t entry_bytes,
                                       uint64_t seed) {
  spec = Trim(spec);
  if (num_keys == 0) {
    throw InputError("workload '" + std::string(spec) +
                     "': the data set has no keys; give a larger data size");
  }
  if (entry_bytes == 0) {
    throw InputError("workload '" + std::string(spec) +
                     "': entry size is 0; give a positive entry size");
  }
  size_t colon = spec.find(':');
  std::string name = Lower(Trim(spec.substr(0, colon)));
  std::string params_text(
      colon == std::string_view::npos ? "" : spec.substr(colon + 1));
  std::string shorthand_params;
  if (ParseHotspotShorthand(name, &shorthand_params)) {
    if (!params_text.empty()) {
      throw InputError("workload '" + std::string(spec) + "': " + name +
                       " takes no parameters; use hotspot:hot_keys=..,"
                       "hot_requests=..,tail=.. instead");
    }
    name = "hotspot";
    params_text = shorthand_params;
  }
  for (const WorkloadKind& kind : kKinds) {
    if (kind.name == name) {
      Params params(spec, name, params_text);
      return kind.make(params, Context{num_keys, entry_bytes, seed});
    }
  }
  throw InputError("unknown workload '" + std::string(spec) +
                   "'; valid: " + JoinedNames());
}

std::vector<std::string> WorkloadNames() {
  std::vector<std::string> names = {"hotspot10",   "hotspot20",
                                    "hotspot30",   "hotspot10-T",
                                    "hotspot20-T", "hotspot30-T"};
  for (const WorkloadKind& kind : kKinds) names.emplace_back(kind.name);
  return names;
}

std::vector<Phase> ParsePhases(std::string_view text) {
  std::vector<Phase> phases;
  if (Trim(text).empty()) {
    throw InputError("no phases given; use e.g. "
                     "hotspot20@1GiB*5M;hotspot20@2GiB*5M");
  }
  size_t number = 0;
  while (true) {
    number++;
    size_t semicolon = text.find(';');
    std::string_view item = Trim(text.substr(0, semicolon));
    const std::string where = "phase " + std::to_string(number);
    Phase phase;
    size_t star = item.rfind('*');
    if (star != std::string_view::npos) {
      phase.requests = ParseCount(item.substr(star + 1), where + " requests");
      if (phase.requests == 0) {
        throw InputError(where + ": 0 requests; give at least 1, or leave "
                         "out '*count' for the default");
      }
      item = Trim(item.substr(0, star));
    }
    size_t at = item.rfind('@');
    if (at != std::string_view::npos) {
      phase.data_bytes = ParseBytes(item.substr(at + 1), where + " size");
      item = Trim(item.substr(0, at));
    }
    if (item.empty()) {
      throw InputError(where + " has no workload; use spec[@size][*count], "
                       "phases separated by ';'");
    }
    phase.spec = std::string(item);
    try {
      MakeWorkload(phase.spec, uint64_t{1} << 40, 128, 0);
    } catch (const InputError& e) {
      throw InputError(where + ": " + e.what());
    }
    phases.push_back(std::move(phase));
    if (semicolon == std::string_view::npos) break;
    text.remove_prefix(semicolon + 1);
  }
  return phases;
}

uint64_t ParseBytes(std::string_view text, std::string_view what) {
  Quantity q = ParseQuantity(text, kByteUnits, std::size(kByteUnits));
  const std::string prefix = std::string(what) + ": '" + std::string(text) + "' ";
  if (!q.ok) {
    throw InputError(prefix + "is not a size; use e.g. 512MiB or 2GiB");
  }
  if (q.overflow) {
    throw InputError(prefix + "is too large; sizes must be below 16 EiB");
  }
  if (q.value == 0) {
    throw InputError(prefix + "is zero; a size must be positive, e.g. 512MiB");
  }
  return q.value;
}

uint64_t ParseCount(std::string_view text, std::string_view what) {
  Quantity q = ParseQuantity(text, kCountUnits, std::size(kCountUnits));
  const std::string prefix = std::string(what) + ": '" + std::string(text) + "' ";
  if (!q.ok) {
    throw InputError(prefix + "is not a count; use e.g. 5M, 200k or 1e6");
  }
  if (q.overflow) {
    throw InputError(prefix + "is too large; counts must be below 1.8e19");
  }
  if (!q.whole) {
    throw InputError(prefix + "is not a whole number; use e.g. 5M, 200k or 1e6");
  }
  return q.value;
}

double ParseSeconds(std::string_view text, std::string_view what) {
  const std::string copy(text);  // strtod needs the terminator
  char* end = nullptr;
  const double number = std::strtod(copy.c_str(), &end);
  const std::string unit = end == nullptr ? "" : std::string(end);
  double scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  else if (unit == "ms") scale = 1e-3;
  else if (unit == "us") scale = 1e-6;
  else if (unit == "m" || unit == "min") scale = 60;
  if (scale == 0 || !(number >= 0) || end == copy.c_str()) {
    throw InputError(std::string(what) + ": '" + copy +
                     "' is not a duration; use e.g. 30s, 500ms or 2m");
  }
  return number * scale;
}

}  // namespace symbiosis
