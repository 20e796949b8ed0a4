// RocksDB under a 64 MiB budget that Symbiosis splits between its block
// cache and its compressed secondary cache (the engine budget): writes
// 20,000 values, reads each back and checks it, prints what the
// Controller saw. Usage: rocksdb_example DIR

#include <cstdio>
#include <memory>
#include <string>

#include "symbiosis/rocksdb.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR (a folder for the database)\n", argv[0]);
    return 2;
  }
  symbiosis::rocksdb::Options options;
  options.engine.create_if_missing = true;
  options.budget.memory_bytes = 64ull << 20;  // M
  std::unique_ptr<symbiosis::rocksdb::Db> db;
  rocksdb::Status s = symbiosis::rocksdb::Open(options, argv[1], &db);
  if (!s.ok()) {
    std::fprintf(stderr, "rocksdb_example: error: %s\n", s.ToString().c_str());
    return 1;
  }
  constexpr int kKeys = 20000;
  const std::string filler(1000, 'v');
  for (int i = 0; i < kKeys; i++) {
    s = db->db()->Put(rocksdb::WriteOptions(), "key" + std::to_string(i),
                      std::to_string(i) + filler);
    if (!s.ok()) {
      std::fprintf(stderr, "rocksdb_example: error: %s\n", s.ToString().c_str());
      return 1;
    }
  }
  s = db->db()->Flush(rocksdb::FlushOptions());  // reads then come from tables, through the caches
  if (!s.ok()) {
    std::fprintf(stderr, "rocksdb_example: error: %s\n", s.ToString().c_str());
    return 1;
  }
  std::string value;
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < kKeys; i++) {
      s = db->db()->Get(rocksdb::ReadOptions(), "key" + std::to_string(i), &value);
      if (!s.ok() || value != std::to_string(i) + filler) {
        std::fprintf(stderr, "rocksdb_example: error: key%d read back wrong\n", i);
        return 1;
      }
    }
  }
  const symbiosis::rocksdb::Stats stats = db->GetStats();
  std::printf("rocksdb: M %llu MiB, block cache %llu MiB, %llu lookups, %llu hits, state %s\n",
              static_cast<unsigned long long>(stats.memory_bytes >> 20),
              static_cast<unsigned long long>(stats.ma_bytes >> 20),
              static_cast<unsigned long long>(stats.lookups),
              static_cast<unsigned long long>(stats.app_hits),
              symbiosis::ControllerStateName(stats.controller.state));
  return 0;
}
