#include "symbiosis/trace_partition.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "base/hash.h"
#include "gtest/gtest.h"
#include "mrc/mrc_test_support.h"
#include "symbiosis/error.h"
#include "symbiosis/exact_lru_mrc.h"

namespace symbiosis {
namespace {

using mrc_testing::MeanAbsoluteError;
using mrc_testing::WorkloadRecords;

// A trace's curve computed in `partitions` parts, as the distributed mode
// does on its workers: a working-set pass for the simulators, then each
// part at its share of the sizes, merged.
MissRatioCurve Partitioned(const std::vector<TraceRecord>& records, const TraceMrcOptions& o,
                           uint32_t partitions, const std::vector<uint64_t>& sizes) {
  std::vector<std::vector<TraceRecord>> parts(partitions);
  for (const TraceRecord& r : records) parts[TracePartitionOf(r.key, partitions)].push_back(r);
  std::vector<double> working_sets;
  double total = 0;
  for (const auto& part : parts) {
    PartitionMrc count(o, {});
    count.Feed(part.data(), part.size());
    working_sets.push_back(static_cast<double>(count.WorkingSet()));
    total += working_sets.back();
  }
  std::vector<PartitionCurve> curves;
  for (uint32_t p = 0; p < partitions; p++) {
    PartitionCurve c;
    c.share = working_sets[p] / total;
    const std::vector<uint64_t> own = PartitionSizes(sizes, c.share);
    PartitionMrc part(o, own);
    part.Feed(parts[p].data(), parts[p].size());
    c.curve = part.Curve(own);
    c.requests = part.requests();
    c.requested_bytes = part.requested_bytes();
    curves.push_back(c);
  }
  return MergePartitionCurves(sizes, curves);
}

TEST(TracePartition, KeysSplitEvenlyAndApartFromTheSamplers) {
  std::vector<uint64_t> counts(8);
  uint64_t both = 0;
  for (uint64_t key = 0; key < 800'000; key++) {
    const uint32_t p = TracePartitionOf(key, 8);
    ASSERT_LT(p, 8u);
    counts[p]++;
    // SHARDS keeps a key when its seeded hash falls below R: a partition
    // must not select those keys more or less than the others.
    if (p == 0 && Hash64(1, key) < (UINT64_MAX >> 4)) both++;
  }
  for (const uint64_t c : counts) EXPECT_NEAR(static_cast<double>(c), 100'000, 1'500);
  EXPECT_NEAR(static_cast<double>(both), 100'000.0 / 16, 400);
  EXPECT_EQ(TracePartitionOf(12345, 1), 0u);
}

TEST(TracePartition, SizesScaleRoundAndDropRepeats) {
  EXPECT_EQ(PartitionSizes({1, 2, 3, 10, 100}, 0.25), (std::vector<uint64_t>{1, 3, 25}));
  EXPECT_EQ(PartitionSizes({4, 8}, 1.0), (std::vector<uint64_t>{4, 8}));
  EXPECT_EQ(PartitionSizes({4, 8}, 0.0), (std::vector<uint64_t>{1}));
}

// Exact LRU in four partitions against the whole trace's, in objects and
// bytes: the partitions are spatial samples of a quarter each, within
// sampling noise of the exact curve.
TEST(TracePartition, MergedExactLruMatchesTheWholeTrace) {
  const auto records = WorkloadRecords("zipfian:theta=0.9", 100'000, 1'000'000);
  for (const CacheUnit unit : {CacheUnit::kObjects, CacheUnit::kBytes}) {
    ExactLruMrc whole(unit);
    for (const TraceRecord& r : records) whole.Access(r.key, r.size);
    const std::vector<uint64_t> sizes = EvenSizes(whole.WorkingSet(), 20);
    const MissRatioCurve want = whole.Curve(sizes);
    TraceMrcOptions o;
    o.unit = unit;
    const MissRatioCurve got = Partitioned(records, o, 4, sizes);
    const double e = MeanAbsoluteError(got.miss_ratios, want.miss_ratios);
    std::printf("exact LRU in 4 partitions (%s): MAE %.4f\n",
                unit == CacheUnit::kBytes ? "bytes" : "objects", e);
    EXPECT_LT(e, 0.005);
    EXPECT_EQ(got.requests, records.size());
    if (unit == CacheUnit::kBytes) {
      EXPECT_LT(MeanAbsoluteError(got.byte_miss_ratios, want.byte_miss_ratios), 0.01);
    }
    // One partition is the whole trace.
    EXPECT_EQ(Partitioned(records, o, 1, sizes).miss_ratios, want.miss_ratios);
  }
}

// SHARDS at R = 0.05 in partitions keeps the same keys as in one process
// (the partition's hash is apart from the sample's), so the two curves
// differ by sampling noise; KRR and the K-LRU simulator likewise.
TEST(TracePartition, SampledAndSimulatedCurvesMatchOneProcess) {
  const auto records = WorkloadRecords("hotspot20", 50'000, 600'000);
  ExactLruMrc exact(CacheUnit::kObjects);
  for (const TraceRecord& r : records) exact.Access(r.key, r.size);
  const std::vector<uint64_t> sizes = EvenSizes(exact.WorkingSet(), 12);
  for (const MrcAlgorithm algorithm :
       {MrcAlgorithm::kShards, MrcAlgorithm::kKrr, MrcAlgorithm::kKLruSim}) {
    TraceMrcOptions o;
    o.algorithm = algorithm;
    o.rate = algorithm == MrcAlgorithm::kShards ? 0.05 : 1;
    std::unique_ptr<MrcBuilder> one = MakeMrcBuilder(o, sizes);
    const MissRatioCurve want = mrc_testing::Feed(*one, records, sizes);
    const MissRatioCurve got = Partitioned(records, o, 3, sizes);
    const double e = MeanAbsoluteError(got.miss_ratios, want.miss_ratios);
    std::printf("algorithm %d in 3 partitions: MAE %.4f against one process\n",
                static_cast<int>(algorithm), e);
    EXPECT_LT(e, algorithm == MrcAlgorithm::kShards ? 0.015 : 0.006);
  }
}

TEST(TracePartition, MergeRejectsCurvesAtOtherSizes) {
  PartitionCurve c;
  c.share = 0.5;
  c.requests = 10;
  c.curve.sizes = {10, 20};
  c.curve.miss_ratios = {0.5, 0.4};
  EXPECT_THROW(MergePartitionCurves({10, 20}, {c}), InputError);
  c.curve.sizes = {5, 10};
  const MissRatioCurve merged = MergePartitionCurves({10, 20}, {c});
  EXPECT_EQ(merged.miss_ratios, (std::vector<double>{0.5, 0.4}));
}

// The partitions of a range read hold the range's records, each in trace
// order, and a size 0 in a bytes curve names where it lies.
TEST(TracePartition, PartitionedReaderSplitsARangeByKey) {
  const auto records = WorkloadRecords("uniform", 1000, 5000);
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("symbiosis_partition_test_" + std::to_string(::getpid()) + ".bin"))
          .string();
  WriteOracleGeneral(path, records);
  TraceOptions first;
  first.end_byte = 24 * 2000 + 5;
  TraceOptions second;
  second.start_byte = first.end_byte;
  std::vector<std::vector<uint64_t>> keys(4);
  uint64_t read = 0;
  uint64_t bytes = 0;
  for (const TraceOptions& o : {first, second}) {
    PartitionedReader reader(path, o, 4, true);
    PartitionedRecords r;
    while (reader.Read(700, &r)) {
      EXPECT_LE(r.records, 700u);
      read += r.records;
      bytes += r.bytes;
      for (uint32_t p = 0; p < 4; p++) {
        for (const TraceRecord& t : r.partitions[p]) {
          EXPECT_EQ(TracePartitionOf(t.key, 4), p);
          keys[p].push_back(t.key);
        }
      }
    }
  }
  EXPECT_EQ(read, records.size());
  EXPECT_GE(bytes, 24 * records.size());  // a range reads its last record whole
  std::vector<std::vector<uint64_t>> want(4);
  for (const TraceRecord& r : records) want[TracePartitionOf(r.key, 4)].push_back(r.key);
  EXPECT_EQ(keys, want);
  std::vector<TraceRecord> zero = records;
  zero[3000].size = 0;
  WriteOracleGeneral(path, zero);
  try {
    PartitionedReader reader(path, second, 4, true);
    PartitionedRecords r;
    while (reader.Read(700, &r)) {
    }
    ADD_FAILURE() << "a size 0 in bytes mode was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has size 0"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace symbiosis
