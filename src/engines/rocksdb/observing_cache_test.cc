#include "engines/rocksdb/observing_cache.h"

#include <gtest/gtest.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/secondary_cache.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "engines/rocksdb/observing_secondary_cache.h"
#include "symbiosis/sched_times.h"
#include "testing/rocksdb_string_values.h"

namespace symbiosis::rocksdb {
namespace {

using ::rocksdb::Cache;
using ::rocksdb::Slice;
using ::rocksdb::Status;

constexpr size_t kValueBytes = 1000;
constexpr std::chrono::milliseconds kInsertPause(20);

// RocksDB's compressed secondary cache with a pause before each insert: the
// pause stands for a slow compression, so a test can tell whether a time
// covers the inserts into the secondary.
class SlowInsertSecondaryCache final : public ::rocksdb::SecondaryCache {
 public:
  SlowInsertSecondaryCache(std::shared_ptr<::rocksdb::SecondaryCache> target,
                           std::chrono::milliseconds pause)
      : target_(std::move(target)), pause_(pause) {}

  const char* Name() const override { return "SlowInsertSecondaryCache"; }
  Status Insert(const Slice& key, void* value, const Cache::CacheItemHelper* helper) override {
    std::this_thread::sleep_for(pause_);
    return target_->Insert(key, value, helper);
  }
  std::unique_ptr<::rocksdb::SecondaryCacheResultHandle> Lookup(
      const Slice& key, const Cache::CreateCallback& create_cb, bool wait, bool advise_erase,
      bool& is_in_sec_cache) override {
    return target_->Lookup(key, create_cb, wait, advise_erase, is_in_sec_cache);
  }
  bool SupportForceErase() const override { return target_->SupportForceErase(); }
  void Erase(const Slice& key) override { target_->Erase(key); }
  void WaitAll(std::vector<::rocksdb::SecondaryCacheResultHandle*> handles) override {
    target_->WaitAll(std::move(handles));
  }

 private:
  const std::shared_ptr<::rocksdb::SecondaryCache> target_;
  const std::chrono::milliseconds pause_;
};

// Values are std::strings of kValueBytes.
using ::symbiosis::testing::kStringHelper;

Status Create(const void* buf, size_t size, void** out, size_t* charge) {
  *out = new std::string(static_cast<const char*>(buf), size);
  *charge = size;
  return Status::OK();
}

std::string Key(char c) { return std::string(16, c); }

class ObservingCacheTest : public ::testing::Test {
 protected:
  // A primary that holds one value, above a compressed secondary that
  // pauses kInsertPause per insert.
  ObservingCacheTest() {
    ::rocksdb::CompressedSecondaryCacheOptions secondary_options;
    secondary_options.capacity = 1 << 20;
    secondary_options.num_shard_bits = 0;
    auto slow = std::make_shared<SlowInsertSecondaryCache>(
        ::rocksdb::NewCompressedSecondaryCache(secondary_options), kInsertPause);
    ::rocksdb::LRUCacheOptions primary_options(3 * kValueBytes / 2, /*num_shard_bits=*/0,
                                               /*strict_capacity_limit=*/false,
                                               /*high_pri_pool_ratio=*/0.0);
    primary_options.secondary_cache = std::make_shared<ObservingSecondaryCache>(slow, &adapter_);
    cache_ = std::make_unique<ObservingCache>(::rocksdb::NewLRUCache(primary_options), &adapter_);
  }

  void Insert(char c) {
    ASSERT_TRUE(cache_->Insert(Key(c), new std::string(kValueBytes, c), &kStringHelper, kValueBytes)
                    .ok());
  }

  // Evicts a and b into the secondary twice each, b last: the secondary
  // stores a (its second eviction) and holds a dummy for b; b is in the
  // primary.
  void EvictEachTwice() {
    for (int i = 0; i < 2; ++i) {
      Insert('a');
      Insert('b');
    }
  }

  static uint64_t PauseNs() {
    return static_cast<uint64_t>(std::chrono::nanoseconds(kInsertPause).count());
  }

  // Looks `c` up the way a block read does (waiting for the secondary).
  bool Lookup(char c) {
    Cache::Handle* handle =
        cache_->Lookup(Key(c), &kStringHelper, Create, Cache::Priority::LOW, /*wait=*/true);
    if (handle == nullptr) return false;
    EXPECT_EQ(*static_cast<std::string*>(cache_->Value(handle)), std::string(kValueBytes, c));
    cache_->Release(handle);
    return true;
  }

  Adapter adapter_;
  std::unique_ptr<ObservingCache> cache_;
};

// A secondary hit's time is the whole miss but for the store into the
// secondary it causes: the block's promotion into the primary evicts the
// other block, which the secondary stores (compressed, pausing), and the
// store is reported on its own.
TEST_F(ObservingCacheTest, ASecondaryHitIsTimedWithoutTheStoreItCauses) {
  EvictEachTwice();
  const AccessCounts before = adapter_.Counts();
  ASSERT_TRUE(Lookup('a')) << "a was evicted into the secondary twice";
  const AccessCounts after = adapter_.Counts();
  ASSERT_EQ(after.second_tier_hits - before.second_tier_hits, 1u) << "served by the secondary";
  ASSERT_EQ(after.second_tier_stores - before.second_tier_stores, 1u)
      << "b, evicted for the second time, is stored";
  EXPECT_GE(after.store_ns - before.store_ns, PauseNs());
  EXPECT_LT(after.miss_ns - before.miss_ns, PauseNs()) << "the store is not part of the hit";
}

// So is a device read's: its block's insert evicts b.
TEST_F(ObservingCacheTest, ADeviceReadIsTimedWithoutTheStoreItCauses) {
  EvictEachTwice();
  const AccessCounts before = adapter_.Counts();
  ASSERT_FALSE(Lookup('c'));
  adapter_.OnRead(/*file_id=*/1, /*offset=*/0, kValueBytes + 5, /*second_tier_hit=*/false,
                  SteadyNowNs(), std::nullopt);
  Insert('c');
  const AccessCounts after = adapter_.Counts();
  ASSERT_EQ(after.reads - before.reads, 1u);
  ASSERT_EQ(after.second_tier_stores - before.second_tier_stores, 1u) << "b is stored";
  EXPECT_GE(after.store_ns - before.store_ns, PauseNs());
  EXPECT_LT(after.miss_ns - before.miss_ns, PauseNs()) << "the store is not part of the read";
}

// A thread whose perf level does not count still has its stores told from
// dummies, and finds its perf context as it left it.
TEST_F(ObservingCacheTest, StoresAreCountedWithPerfCountingOffAndLeaveNoTrace) {
  const ::rocksdb::PerfLevel level = ::rocksdb::GetPerfLevel();
  ::rocksdb::SetPerfLevel(::rocksdb::PerfLevel::kDisable);
  ::rocksdb::get_perf_context()->Reset();
  EvictEachTwice();
  const uint64_t real = ::rocksdb::get_perf_context()->compressed_sec_cache_insert_real_count;
  const uint64_t dummy = ::rocksdb::get_perf_context()->compressed_sec_cache_insert_dummy_count;
  const ::rocksdb::PerfLevel after = ::rocksdb::GetPerfLevel();
  ::rocksdb::SetPerfLevel(level);
  EXPECT_EQ(after, ::rocksdb::PerfLevel::kDisable);
  EXPECT_EQ(real, 0u);
  EXPECT_EQ(dummy, 0u);
  EXPECT_EQ(adapter_.Counts().second_tier_stores, 1u) << "a, at its second eviction; the first evictions left dummies";
}

TEST_F(ObservingCacheTest, APrimaryHitIsNotTimed) {
  Insert('a');
  const AccessCounts before = adapter_.Counts();
  ASSERT_TRUE(Lookup('a'));
  const AccessCounts after = adapter_.Counts();
  EXPECT_EQ(after.hits - before.hits, 1u);
  EXPECT_EQ(after.reads, before.reads);
  EXPECT_EQ(after.miss_ns, before.miss_ns);
}

}  // namespace
}  // namespace symbiosis::rocksdb
