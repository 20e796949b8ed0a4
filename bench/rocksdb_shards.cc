// rocksdb_shards: how much sharding RocksDB 7.8's compressed secondary
// cache costs its hit ratio when the data about fits in it.
//
//   build/native/rocksdb_shards BLOCKS SHARD_BITS   (built with the project)
//
// A real LRUCache of 8 MiB (one shard, high_pri_pool_ratio 0.5) above a
// real CompressedSecondaryCache of 56 MiB with SHARD_BITS shard bits (-1:
// RocksDB's default, shards of at least 512 KiB), used as the table reader
// uses them, over BLOCKS blocks of 4 KiB (2 KiB in the secondary, stored
// uncompressed) read uniformly at random, 3M reads. Prints the hit ratios
// of the second half: H_a, and H_k, the share of block-cache misses the
// secondary served. RocksDbCacheModel has one shard per tier.

#include <rocksdb/cache.h>
#include <rocksdb/secondary_cache.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

namespace {

constexpr size_t kMem = 4096;
constexpr size_t kDisk = 2048;

size_t Size(void* value) { return static_cast<std::string*>(value)->size(); }
rocksdb::Status Save(void* value, size_t offset, size_t length, void* out) {
  std::memcpy(out, static_cast<std::string*>(value)->data() + offset, length);
  return rocksdb::Status::OK();
}
void Delete(const rocksdb::Slice&, void* value) { delete static_cast<std::string*>(value); }
rocksdb::Cache::CacheItemHelper helper(Size, Save, Delete);

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: rocksdb_shards BLOCKS SHARD_BITS (e.g. 27500 -1)\n");
    return 2;
  }
  const uint64_t blocks = std::strtoull(argv[1], nullptr, 10);
  const int bits = std::atoi(argv[2]);
  if (blocks == 0 || bits < -1 || bits > 10) {
    std::fprintf(stderr, "rocksdb_shards: BLOCKS must be > 0 and SHARD_BITS in [-1, 10]\n");
    return 2;
  }
  rocksdb::CompressedSecondaryCacheOptions secondary;
  secondary.capacity = uint64_t{56} << 20;
  secondary.num_shard_bits = bits;
  secondary.compression_type = rocksdb::kNoCompression;
  rocksdb::LRUCacheOptions primary(uint64_t{8} << 20, 0, false, 0.5);
  primary.secondary_cache = rocksdb::NewCompressedSecondaryCache(secondary);
  const std::shared_ptr<rocksdb::Cache> cache = rocksdb::NewLRUCache(primary);

  std::mt19937_64 rng(1);
  const uint64_t reads = 3'000'000;
  uint64_t counted = 0, primary_hits = 0, secondary_hits = 0;
  for (uint64_t i = 0; i < reads; ++i) {
    const uint64_t block = rng() % blocks;
    char key[16] = {};
    std::memcpy(key, &block, sizeof block);
    bool created = false;
    const rocksdb::Cache::CreateCallback create = [&created](const void* buf, size_t size,
                                                             void** out, size_t* charge) {
      created = true;
      *out = new std::string(static_cast<const char*>(buf), size);
      *charge = kMem;
      return rocksdb::Status::OK();
    };
    rocksdb::Cache::Handle* h = cache->Lookup(rocksdb::Slice(key, 16), &helper, create,
                                              rocksdb::Cache::Priority::LOW, /*wait=*/true);
    const bool hit = h != nullptr;
    if (!hit) {
      cache->Insert(rocksdb::Slice(key, 16), new std::string(kDisk, 'v'), &helper, kMem, &h,
                    rocksdb::Cache::Priority::LOW);
    }
    cache->Release(h);
    if (i < reads / 2) continue;
    ++counted;
    primary_hits += hit && !created;
    secondary_hits += hit && created;
  }
  std::printf("blocks %llu (%.1f MiB at 2 KiB), shard bits %d: H_a %.4f H_k %.4f\n",
              static_cast<unsigned long long>(blocks), blocks * double(kDisk) / (1 << 20), bits,
              static_cast<double>(primary_hits) / counted,
              static_cast<double>(secondary_hits) / (counted - primary_hits));
  return 0;
}
