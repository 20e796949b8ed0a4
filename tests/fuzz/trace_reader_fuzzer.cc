// libFuzzer target: the trace readers, and the miss-ratio curves built from
// what they read, on arbitrary bytes. scripts/fuzz.sh builds and runs it
// under ASan + UBSan. A trace that is not valid must end in InputError;
// anything else (a crash, a sanitizer report, another exception) is a bug.
//
// The first byte picks the format and, for csv, one of a few column maps
// (0xf0 and above: twitter or msr); the rest is the file, given to the
// reader through a memfd, read whole or (by the file's length mod 3) from
// a third of it on or up to half of it, as the distributed mode's ranges.
// A file that starts with zstd's magic number is decompressed.

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "symbiosis/error.h"
#include "symbiosis/exact_lru_mrc.h"
#include "symbiosis/krr.h"
#include "symbiosis/mrc.h"
#include "symbiosis/shards.h"
#include "symbiosis/trace.h"

namespace {

const char* const kColumnMaps[] = {"key=1", "key=5,size=4,header=1", "key=2,key_type=string",
                                   "key=1,size=2,delimiter=;", "key=3,size=1,delimiter=tab"};

void ReadAndModel(const std::string& path, const symbiosis::TraceOptions& options) {
  using namespace symbiosis;
  TraceReader reader(path, options);
  ExactLruMrc lru(CacheUnit::kBytes);
  KrrOptions k;
  k.unit = CacheUnit::kBytes;
  k.k = 3;
  KrrMrc krr(k);
  ShardsOptions s;
  s.rate = 0.5;
  s.max_keys = 8;
  ShardsMrc shards(s);
  // Floors of 4 keys: the halvings run on any input with 8 keys or more.
  k.rate = 0.01;
  k.min_keys = 4;
  KrrMrc krr_floor(k);
  s.rate = 0.01;
  s.max_keys = 0;
  s.min_keys = 4;
  ShardsMrc shards_floor(s);
  TraceRecord r;
  while (reader.Next(&r)) {
    const uint32_t size = r.size == 0 ? 1 : r.size;
    lru.Access(r.key, size);
    krr.Access(r.key, size);
    shards.Access(r.key, size);
    krr_floor.Access(r.key, size);
    shards_floor.Access(r.key, size);
  }
  const std::vector<uint64_t> sizes = EvenSizes(lru.WorkingSet(), 7);
  lru.Curve(sizes);
  krr.Curve(sizes);
  shards.Curve(sizes);
  krr_floor.Curve(sizes);
  shards_floor.Curve(sizes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  symbiosis::TraceOptions options;
  const uint8_t selector = data[0];
  if (selector >= 0xf0) {
    options.format = selector & 1 ? symbiosis::TraceFormat::kMsr : symbiosis::TraceFormat::kTwitter;
    options.ops.writes = (selector & 2) == 0;
  } else {
    switch (selector % 4) {
      case 0: options.format = symbiosis::TraceFormat::kOracleGeneral; break;
      case 1: options.format = symbiosis::TraceFormat::kText; break;
      case 2: options.format = symbiosis::TraceFormat::kRocksDbBlockCache; break;
      default:
        options.format = symbiosis::TraceFormat::kCsv;
        options.csv = symbiosis::ParseCsvColumns(kColumnMaps[(selector / 4) % 5]);
    }
  }
  const size_t file_bytes = size - 1;
  if (file_bytes % 3 == 1) options.start_byte = file_bytes / 3;
  if (file_bytes % 3 == 2) options.end_byte = file_bytes / 2 + 1;
  const int fd = memfd_create("trace", 0);
  if (fd < 0) return 0;
  const ssize_t written = write(fd, data + 1, size - 1);
  if (written == static_cast<ssize_t>(size - 1)) {
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    try {
      ReadAndModel(path, options);
    } catch (const symbiosis::InputError&) {
      // The expected end of a bad trace.
    }
    // The column-map parser on the same bytes as text.
    try {
      symbiosis::ParseCsvColumns(std::string(reinterpret_cast<const char*>(data + 1), size - 1));
    } catch (const symbiosis::InputError&) {
    }
  }
  close(fd);
  return 0;
}
