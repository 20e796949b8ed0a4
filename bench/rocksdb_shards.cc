// rocksdb_shards: how much sharding RocksDB 7.8's caches cost their hit
// ratios when the data about fits in the compressed cache, and whether
// RocksDbCacheModel, sharded as RocksDB shards, predicts it.
//
//   build/native/rocksdb_shards BLOCKS SHARD_BITS   (built with the project)
//
// RocksDB's own caches (testing::RealTiers): an LRUCache of 8 MiB
// (high_pri_pool_ratio 0.5) above a CompressedSecondaryCache of 56 MiB,
// both with SHARD_BITS shard bits (-1: RocksDB's default, shards of at
// least 512 KiB: 16 and 64 of them here), over BLOCKS blocks of 4 KiB
// (2 KiB in the secondary, stored uncompressed) read uniformly at random,
// 3M reads. Then the model, given the same capacities and shard counts,
// fed the same reads. Prints the hit ratios of the second half of each:
// H_a, and H_k, the share of block-cache misses the secondary served (1 if
// there were none).

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "engines/rocksdb/entry_metadata.h"
#include "model/rocksdb_cache_model.h"
#include "testing/rocksdb_real_tiers.h"

int main(int argc, char** argv) {
  using symbiosis::testing::ModelTiers;
  using symbiosis::testing::RealTiers;
  using symbiosis::testing::ReplaySecondHalf;
  using symbiosis::testing::TierRatios;
  if (argc != 3) {
    std::fprintf(stderr, "usage: rocksdb_shards BLOCKS SHARD_BITS (e.g. 27500 -1)\n");
    return 2;
  }
  char* blocks_end = nullptr;
  char* bits_end = nullptr;
  const uint64_t blocks = std::strtoull(argv[1], &blocks_end, 10);
  const long bits = std::strtol(argv[2], &bits_end, 10);
  if (*argv[1] == '\0' || *blocks_end != '\0' || *argv[2] == '\0' || *bits_end != '\0' ||
      blocks == 0 || blocks > (uint64_t{1} << 32) || bits < -1 || bits > 10) {
    std::fprintf(stderr,
                 "rocksdb_shards: BLOCKS must be a whole number in [1, 2^32] and SHARD_BITS one "
                 "in [-1, 10], not '%s' '%s'\n",
                 argv[1], argv[2]);
    return 2;
  }
  std::mt19937_64 rng(1);
  std::vector<uint64_t> stream(3'000'000);
  for (uint64_t& b : stream) b = rng() % blocks;
  const uint64_t primary_bytes = uint64_t{8} << 20;
  const uint64_t secondary_bytes = uint64_t{56} << 20;
  RealTiers real(primary_bytes, secondary_bytes, static_cast<int>(bits), static_cast<int>(bits));
  const TierRatios r = ReplaySecondHalf(real, stream);

  symbiosis::RocksDbCacheModelOptions o;
  o.primary_bytes = primary_bytes;
  o.secondary_bytes = secondary_bytes;
  o.entry_metadata_bytes = symbiosis::rocksdb::EntryMetadataBytes();
  o.primary_shard_bits =
      bits >= 0 ? static_cast<int>(bits) : symbiosis::RocksDbDefaultShardBits(primary_bytes);
  o.secondary_shard_bits =
      bits >= 0 ? static_cast<int>(bits) : symbiosis::RocksDbDefaultShardBits(secondary_bytes);
  ModelTiers model(o);
  const TierRatios m = ReplaySecondHalf(model, stream);

  std::printf(
      "blocks %llu (%.1f MiB at 2 KiB), shard bits %ld (%d and %d): RocksDB H_a %.4f H_k %.4f; "
      "model H_a %.4f H_k %.4f\n",
      static_cast<unsigned long long>(blocks), blocks * double(RealTiers::kDiskBytes) / (1 << 20),
      bits, o.primary_shard_bits, o.secondary_shard_bits, r.primary, r.secondary, m.primary,
      m.secondary);
  return 0;
}
