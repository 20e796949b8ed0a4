#include "symbiosis/workload.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "symbiosis/error.h"

namespace symbiosis {
namespace {

constexpr uint32_t kEntryBytes = 128;

std::vector<KeyRequest> Draw(std::string_view spec, uint64_t num_keys,
                             size_t n, uint64_t seed = 1) {
  std::unique_ptr<Workload> w = MakeWorkload(spec, num_keys, kEntryBytes, seed);
  std::vector<KeyRequest> out(n);
  for (KeyRequest& r : out) r = w->Next();
  return out;
}

// Requests per key.
std::vector<uint64_t> Histogram(const std::vector<KeyRequest>& requests,
                                uint64_t num_keys) {
  std::vector<uint64_t> counts(num_keys);
  for (const KeyRequest& r : requests) counts.at(r.first_key)++;
  return counts;
}

bool SameStream(const std::vector<KeyRequest>& a,
                const std::vector<KeyRequest>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const KeyRequest& x, const KeyRequest& y) {
                      return x.first_key == y.first_key && x.count == y.count;
                    });
}

template <typename F>
std::string ErrorOf(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const char* const kSpecs[] = {
    "uniform",     "zipfian",      "zipfian:theta=0.8", "hotspot20",
    "hotspot10-T", "hotspot:hot_keys=0.07,hot_requests=0.5,tail=1",
    "readscan",    "readscan:scans=0.5,scan_bytes=8KiB,base=zipfian:theta=0.9",
    "mixgraph",    "strided",      "strided:stride=7"};

TEST(Workload, DeterministicPerSeed) {
  for (const char* spec : kSpecs) {
    auto a = Draw(spec, 100000, 2000, 7);
    EXPECT_TRUE(SameStream(a, Draw(spec, 100000, 2000, 7))) << spec;
    if (std::string_view(spec).starts_with("strided")) continue;  // no RNG
    EXPECT_FALSE(SameStream(a, Draw(spec, 100000, 2000, 8))) << spec;
  }
}

TEST(Workload, DescribeRebuildsTheSameStream) {
  for (const char* spec : kSpecs) {
    auto w = MakeWorkload(spec, 100000, kEntryBytes, 3);
    std::string described = w->Describe();
    EXPECT_TRUE(SameStream(Draw(spec, 100000, 2000, 3),
                           Draw(described, 100000, 2000, 3)))
        << spec << " -> " << described;
  }
  EXPECT_EQ(MakeWorkload("HotSpot20-t", 10, 1, 1)->Describe(), "hotspot20-T");
  EXPECT_EQ(MakeWorkload("zipfian", 10, 1, 1)->Describe(), "zipfian:theta=0.99");
  EXPECT_EQ(MakeWorkload("readscan", 10, 1, 1)->Describe(),
            "readscan:scans=0.1,scan_bytes=102400,base=hotspot20");
}

TEST(Workload, KeysInRange) {
  for (const char* spec : kSpecs) {
    for (uint64_t num_keys : {1, 2, 31, 1000}) {
      if (std::string_view(spec) == "mixgraph" && num_keys < 30) continue;
      for (const KeyRequest& r : Draw(spec, num_keys, 3000)) {
        ASSERT_LT(r.first_key, num_keys) << spec;
        ASSERT_GE(r.count, 1u) << spec;
        ASSERT_LE(r.first_key + r.count, num_keys) << spec;
      }
    }
  }
}

TEST(Uniform, ChiSquare) {
  constexpr uint64_t kKeys = 100;
  constexpr size_t kDraws = 100000;
  auto counts = Histogram(Draw("uniform", kKeys, kDraws), kKeys);
  double expected = static_cast<double>(kDraws) / kKeys, chi2 = 0;
  for (uint64_t c : counts) chi2 += (c - expected) * (c - expected) / expected;
  // 99 degrees of freedom: mean 99, sd 14; 160 is beyond p = 0.0001.
  EXPECT_LT(chi2, 160);
  EXPECT_GT(chi2, 50);
}

TEST(Hotspot, PaperShapes) {
  constexpr uint64_t kKeys = 10000;
  constexpr size_t kDraws = 100000;
  struct Case {
    const char* spec;
    double hot_keys, hot_requests;
    bool tail;
  };
  for (const Case& c : {Case{"hotspot10", 0.1, 0.9, false},
                        Case{"hotspot20", 0.2, 0.8, false},
                        Case{"hotspot30", 0.3, 0.7, false},
                        Case{"hotspot20-T", 0.2, 0.8, true}}) {
    const uint64_t hot = static_cast<uint64_t>(c.hot_keys * kKeys);
    size_t in_hot = 0;
    for (const KeyRequest& r : Draw(c.spec, kKeys, kDraws)) {
      in_hot += c.tail ? r.first_key >= kKeys - hot : r.first_key < hot;
    }
    EXPECT_NEAR(static_cast<double>(in_hot) / kDraws, c.hot_requests, 0.01)
        << c.spec;
  }
}

TEST(Hotspot, HotSetOfOneKeyAndFullHotSet) {
  for (const KeyRequest& r : Draw("hotspot:hot_keys=0.01,hot_requests=1", 10, 100)) {
    EXPECT_EQ(r.first_key, 0u);
  }
  // With one key the hot set is the whole key space.
  for (const KeyRequest& r : Draw("hotspot20", 1, 100)) EXPECT_EQ(r.first_key, 0u);
}

TEST(Zipfian, HottestKeyMatchesYcsbAndHotKeysAreScattered) {
  constexpr uint64_t kKeys = 100000;
  constexpr size_t kDraws = 300000;
  auto counts = Histogram(Draw("zipfian", kKeys, kDraws), kKeys);
  std::vector<uint64_t> order(kKeys);
  for (uint64_t k = 0; k < kKeys; k++) order[k] = k;
  std::partial_sort(order.begin(), order.begin() + 10, order.end(),
                    [&](uint64_t a, uint64_t b) { return counts[a] > counts[b]; });
  // Rank 0 has probability 1 / zeta(10^10, 0.99) = 1 / 26.469; rank 1 that
  // times 2^-0.99; other ranks add about 1 / kKeys.
  EXPECT_NEAR(static_cast<double>(counts[order[0]]) / kDraws, 1 / 26.469, 0.002);
  EXPECT_NEAR(static_cast<double>(counts[order[1]]) / kDraws,
              std::pow(0.5, 0.99) / 26.469, 0.002);
  // The ten hottest keys are spread over the key space, not a run.
  std::sort(order.begin(), order.begin() + 10);
  EXPECT_GT(order[9] - order[0], kKeys / 2);
  for (int i = 1; i < 10; i++) EXPECT_GT(order[i] - order[i - 1], 1u);
}

TEST(Zipfian, ThetaControlsSkew) {
  constexpr uint64_t kKeys = 100000;
  auto top_share = [&](const char* spec) {
    auto counts = Histogram(Draw(spec, kKeys, 100000), kKeys);
    std::sort(counts.rbegin(), counts.rend());
    uint64_t top = 0;
    for (int i = 0; i < 100; i++) top += counts[i];
    return top / 100000.0;
  };
  EXPECT_GT(top_share("zipfian:theta=0.99"), top_share("zipfian:theta=0.6") + 0.1);
}

TEST(ReadScan, ScanFractionAndLengths) {
  constexpr uint64_t kKeys = 1000000;
  constexpr size_t kDraws = 100000;
  const uint32_t max_keys = 102400 / kEntryBytes;  // 800
  size_t scans = 0;
  uint64_t longest = 0, total_length = 0;
  for (const KeyRequest& r : Draw("readscan:scans=0.1,base=uniform", kKeys, kDraws)) {
    if (r.count > 1) {
      scans++;
      total_length += r.count;
    }
    longest = std::max<uint64_t>(longest, r.count);
  }
  // A scan of length 1 looks like a read: 1/800 of scans.
  EXPECT_NEAR(static_cast<double>(scans) / kDraws, 0.1, 0.005);
  EXPECT_LE(longest, max_keys);
  EXPECT_GT(longest, max_keys * 0.99);
  EXPECT_NEAR(static_cast<double>(total_length) / scans, (max_keys + 2) / 2.0,
              15);
}

TEST(ReadScan, ScansStopAtTheLastKey) {
  for (const KeyRequest& r :
       Draw("readscan:scans=1,base=hotspot:hot_keys=0.01,hot_requests=1,tail=1",
            1000, 1000)) {
    EXPECT_LE(r.first_key + r.count, 1000u);
  }
}

TEST(MixGraph, RangeHotnessFollowsTheTwoTermExponential) {
  constexpr uint64_t kRanges = 30, kKeys = kRanges * 10000;
  constexpr size_t kDraws = 300000;
  std::vector<double> observed(kRanges);
  for (const KeyRequest& r : Draw("mixgraph", kKeys, kDraws)) {
    observed[r.first_key / (kKeys / kRanges)] += 1.0 / kDraws;
  }
  // db_bench's quantized shares, hottest first.
  std::vector<double> expected;
  double amplify = std::floor(1 / (14.18 * std::exp(-2.917 * 30) +
                                   0.0164 * std::exp(-0.08082 * 30))) + 1;
  double total = 0;
  for (int x = 1; x <= 30; x++) {
    expected.push_back(std::floor(
        amplify * (14.18 * std::exp(-2.917 * x) + 0.0164 * std::exp(-0.08082 * x))));
    total += expected.back();
  }
  for (double& e : expected) e /= total;
  std::sort(observed.rbegin(), observed.rend());
  for (size_t i = 0; i < kRanges; i++) {
    EXPECT_NEAR(observed[i], expected[i], 0.004) << "range rank " << i;
  }
  EXPECT_GT(observed[0], 0.6);
}

TEST(MixGraph, SkewedInsideRangesAndRangesShuffled) {
  constexpr uint64_t kKeys = 300000;
  constexpr size_t kDraws = 200000;
  auto requests = Draw("mixgraph", kKeys, kDraws);
  auto counts = Histogram(requests, kKeys);
  std::vector<uint64_t> sorted = counts;
  std::sort(sorted.rbegin(), sorted.rend());
  uint64_t top = 0;
  for (int i = 0; i < 3000; i++) top += sorted[i];
  EXPECT_GT(static_cast<double>(top) / kDraws, 0.3) << "1% of keys";
  // The hottest range is not simply the first one in key space.
  std::vector<uint64_t> per_range(30);
  for (const KeyRequest& r : requests) per_range[r.first_key / 10000]++;
  auto hottest = std::max_element(per_range.begin(), per_range.end());
  EXPECT_NE(hottest - per_range.begin(), 0);
}

TEST(Strided, SweepsWithStride) {
  std::vector<uint64_t> keys;
  for (const KeyRequest& r : Draw("strided:stride=3", 7, 10)) keys.push_back(r.first_key);
  EXPECT_EQ(keys, (std::vector<uint64_t>{0, 3, 6, 1, 4, 2, 5, 0, 3, 6}));
  EXPECT_EQ(MakeWorkload("strided", 100, 128, 1)->Describe(), "strided:stride=32");
  keys.clear();
  for (const KeyRequest& r : Draw("strided:stride=10", 3, 4)) keys.push_back(r.first_key);
  EXPECT_EQ(keys, (std::vector<uint64_t>{0, 1, 2, 0}));
}

TEST(Workload, BadSpecsThrow) {
  struct Case {
    const char* spec;
    const char* message;
  };
  for (const Case& c : {
           Case{"foo", "unknown workload 'foo'; valid: hotspot10"},
           Case{"", "unknown workload"},
           Case{"hotspot0", "unknown workload"},
           Case{"hotspot100", "unknown workload"},
           Case{"hotspot20x", "unknown workload"},
           Case{"hotspot20:tail=1", "takes no parameters"},
           Case{"uniform:x=1", "unknown parameter 'x'; uniform takes no"},
           Case{"zipfian:theta=1", "theta=1 must be in (0, 1)"},
           Case{"zipfian:theta=abc", "theta='abc' is not a number"},
           Case{"zipfian:theta=nan", "is not a number"},
           Case{"zipfian:theta=0.5,theta=0.6", "given twice"},
           Case{"zipfian:theta", "is not name=value"},
           Case{"zipfian:teta=0.5", "unknown parameter 'teta'; zipfian takes theta"},
           Case{"hotspot:hot_keys=0", "hot_keys=0 must be in (0, 1)"},
           Case{"hotspot:hot_requests=1.5", "hot_requests=1.5"},
           Case{"hotspot:tail=2", "tail='2' is not 0 or 1"},
           Case{"readscan:scans=2", "scans=2 must be in [0, 1]"},
           Case{"readscan:scan_bytes=-1", "scan_bytes: '-1' is not a size"},
           Case{"readscan:scan_bytes=0", "is zero"},
           Case{"readscan:base=nope", "unknown workload 'nope'"},
           Case{"readscan:base=readscan", "not readscan"},
           Case{"mixgraph:keyrange_num=0", "keyrange_num=0"},
           Case{"mixgraph:keyrange_num=2000", "between 1 and the number of keys"},
           Case{"mixgraph:keyrange_dist_a=0,keyrange_dist_c=0", "no key range"},
           Case{"mixgraph:keyrange_dist_a=1e300,keyrange_dist_b=1", "no key range"},
           Case{"mixgraph:key_dist_b=-1", "key_dist_a and key_dist_b"},
           Case{"strided:stride=0", "stride=0"},
           Case{"strided:stride=x", "stride: 'x' is not a count"},
       }) {
    std::string error = ErrorOf([&] { MakeWorkload(c.spec, 1000, kEntryBytes, 1); });
    EXPECT_NE(error.find(c.message), std::string::npos)
        << c.spec << ": '" << error << "'";
    EXPECT_EQ(error.find('\n'), std::string::npos) << c.spec;
  }
  EXPECT_NE(ErrorOf([] { MakeWorkload("uniform", 0, 128, 1); }).find("no keys"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { MakeWorkload("uniform", 10, 0, 1); }).find("entry size"),
            std::string::npos);
}

TEST(WorkloadNames, ListsEveryKind) {
  std::vector<std::string> names = WorkloadNames();
  for (const char* name : {"uniform", "zipfian", "hotspot20", "hotspot20-T",
                           "hotspot", "readscan", "mixgraph", "strided"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
    EXPECT_NO_THROW(MakeWorkload(name, 1000, kEntryBytes, 1)) << name;
  }
}

TEST(ParsePhases, Grammar) {
  std::vector<Phase> phases =
      ParsePhases("hotspot20@1GiB*5M; readscan:scans=0.2,base=zipfian@512MiB;uniform*200k;mixgraph");
  ASSERT_EQ(phases.size(), 4u);
  EXPECT_EQ(phases[0].spec, "hotspot20");
  EXPECT_EQ(phases[0].data_bytes, uint64_t{1} << 30);
  EXPECT_EQ(phases[0].requests, 5000000u);
  EXPECT_EQ(phases[1].spec, "readscan:scans=0.2,base=zipfian");
  EXPECT_EQ(phases[1].data_bytes, uint64_t{512} << 20);
  EXPECT_EQ(phases[1].requests, 0u);
  EXPECT_EQ(phases[2].spec, "uniform");
  EXPECT_EQ(phases[2].data_bytes, 0u);
  EXPECT_EQ(phases[2].requests, 200000u);
  EXPECT_EQ(phases[3].spec, "mixgraph");
}

TEST(ParsePhases, Errors) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : {
           Case{"", "no phases"},
           Case{"uniform;;uniform", "phase 2 has no workload"},
           Case{"uniform;", "phase 2 has no workload"},
           Case{"uniform@1G;bogus@1G", "phase 2: unknown workload 'bogus'"},
           Case{"uniform@-1G", "phase 1 size: '-1G' is not a size"},
           Case{"uniform@0", "phase 1 size: '0' is zero"},
           Case{"uniform*abc", "phase 1 requests: 'abc' is not a count"},
           Case{"uniform*0", "phase 1: 0 requests"},
           Case{"@1G*5M", "phase 1 has no workload"},
       }) {
    std::string error = ErrorOf([&] { ParsePhases(c.text); });
    EXPECT_NE(error.find(c.message), std::string::npos)
        << c.text << ": '" << error << "'";
  }
}

TEST(ParseSeconds, AcceptsUnitsAndRejectsGarbage) {
  EXPECT_DOUBLE_EQ(ParseSeconds("30s", "--x"), 30);
  EXPECT_DOUBLE_EQ(ParseSeconds("45", "--x"), 45);
  EXPECT_DOUBLE_EQ(ParseSeconds("500ms", "--x"), 0.5);
  EXPECT_DOUBLE_EQ(ParseSeconds("250us", "--x"), 250e-6);
  EXPECT_DOUBLE_EQ(ParseSeconds("2m", "--x"), 120);
  EXPECT_DOUBLE_EQ(ParseSeconds("2min", "--x"), 120);
  EXPECT_DOUBLE_EQ(ParseSeconds("0", "--x"), 0);
  EXPECT_EQ(ErrorOf([] { ParseSeconds("10x", "--warmup"); }),
            "--warmup: '10x' is not a duration; use e.g. 30s, 500ms or 2m");
  for (const char* bad : {"", "s", "-1s", "1 s", "1h", "nan"}) {
    EXPECT_NE(ErrorOf([&] { ParseSeconds(bad, "--x"); }).find("is not a duration"),
              std::string::npos) << bad;
  }
}

TEST(ParseBytes, Accepts) {
  const std::map<std::string, uint64_t> cases = {
      {"4096", 4096},
      {"64KiB", 65536},
      {"64KB", 65536},
      {"64K", 65536},
      {"64k", 65536},
      {"1.5GiB", 3ull << 29},
      {"2G", 2ull << 30},
      {"2g", 2ull << 30},
      {"512MiB", 512ull << 20},
      {"0.5GiB", 512ull << 20},
      {"100B", 100},
      {" 1 TiB ", 1ull << 40},
      {"1e3", 1000},
      {"15TiB", 15ull << 40},
      {"18446744073709551615", UINT64_MAX},
  };
  for (const auto& [text, value] : cases) {
    EXPECT_EQ(ParseBytes(text, "--x"), value) << text;
  }
}

TEST(ParseBytes, Rejects) {
  EXPECT_EQ(ErrorOf([] { ParseBytes("-1GiB", "--memory"); }),
            "--memory: '-1GiB' is not a size; use e.g. 512MiB or 2GiB");
  for (const char* bad : {"", "abc", "1.2.3G", "1GiBs", "1 2", "0x10", "inf",
                          "nan", "1e", "G", "+5", "5 XB"}) {
    EXPECT_NE(ErrorOf([&] { ParseBytes(bad, "--memory"); }).find("is not a size"),
              std::string::npos)
        << bad;
  }
  for (const char* zero : {"0", "0GiB", "0.0001"}) {
    EXPECT_NE(ErrorOf([&] { ParseBytes(zero, "--memory"); }).find("is zero"),
              std::string::npos)
        << zero;
  }
  for (const char* big : {"16777216TiB", "18446744073709551616", "1e30",
                          "99999999999999999999999"}) {
    EXPECT_NE(ErrorOf([&] { ParseBytes(big, "--memory"); }).find("too large"),
              std::string::npos)
        << big;
  }
}

TEST(ParseCount, AcceptsAndRejects) {
  EXPECT_EQ(ParseCount("5M", "--n"), 5000000u);
  EXPECT_EQ(ParseCount("200k", "--n"), 200000u);
  EXPECT_EQ(ParseCount("1e6", "--n"), 1000000u);
  EXPECT_EQ(ParseCount("10000000", "--n"), 10000000u);
  EXPECT_EQ(ParseCount("2.5k", "--n"), 2500u);
  EXPECT_EQ(ParseCount("0", "--n"), 0u);
  EXPECT_EQ(ErrorOf([] { ParseCount("abc", "--requests"); }),
            "--requests: 'abc' is not a count; use e.g. 5M, 200k or 1e6");
  EXPECT_NE(ErrorOf([] { ParseCount("-5", "--n"); }).find("is not a count"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { ParseCount("1.5", "--n"); }).find("whole number"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { ParseCount("5KiB", "--n"); }).find("is not a count"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { ParseCount("1e20", "--n"); }).find("too large"),
            std::string::npos);
}

// What an error quotes of the input stays on one whole line: a newline
// would split it, a NUL would cut what() short.
TEST(InputError, WritesControlBytesOfTheInputAsEscapes) {
  try {
    MakeWorkload(std::string("uni\nform\0x", 10), 100, 100, 1);
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'uni\\x0aform\\x00x'"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
    EXPECT_NE(message.find("valid:"), std::string::npos) << "cut short: " << message;
  }
}

}  // namespace
}  // namespace symbiosis
