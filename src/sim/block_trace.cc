#include "symbiosis/block_trace.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_set>

#include "symbiosis/error.h"
#include "symbiosis/workload.h"

namespace symbiosis {

namespace {

// A study keeps 12 bytes per access (ordinal and stack distance): 2^29
// accesses are 6 GiB.
constexpr uint64_t kMaxAccesses = uint64_t{1} << 29;

[[noreturn]] void RefuseAccesses(const std::string& what) {
  throw InputError(what + " more than the " + std::to_string(kMaxAccesses) +
                   " accesses a study holds in memory (12 bytes each); give fewer");
}

void AppendRequest(const DataLayout& layout, uint64_t num_keys,
                   const KeyRequest& request, std::vector<uint32_t>* out) {
  if (out->size() >= kMaxAccesses) RefuseAccesses("the workload asks for");
  const uint64_t first = std::min(request.first_key, num_keys - 1);
  const uint64_t last =
      std::min(first + std::max<uint32_t>(request.count, 1) - 1, num_keys - 1);
  for (uint64_t b = layout.BlockOfKey(first); b <= layout.BlockOfKey(last); b++) {
    out->push_back(static_cast<uint32_t>(b));
  }
}

}  // namespace

BlockTrace TraceFromWorkload(const DataLayout& layout,
                             std::string_view workload, uint64_t accesses,
                             uint64_t seed) {
  if (accesses == 0) {
    throw InputError("the number of accesses is 0; give a positive count, e.g. 10M");
  }
  if (accesses > kMaxAccesses) RefuseAccesses("--accesses " + std::to_string(accesses) + " is");
  if (layout.num_blocks() > UINT32_MAX) {
    throw InputError("the data set has more than 2^32 blocks; use a smaller --data-size or larger blocks");
  }
  const bool phased = workload.find('@') != std::string_view::npos ||
                      workload.find(';') != std::string_view::npos;
  std::vector<Phase> phases =
      phased ? ParsePhases(workload) : std::vector<Phase>{Phase{std::string(workload), 0, 0}};

  BlockTrace trace;
  trace.description = std::string(workload);
  const uint32_t entry_bytes = layout.options().entry_bytes;
  for (size_t p = 0; p < phases.size(); p++) {
    const Phase& phase = phases[p];
    uint64_t num_keys = layout.num_keys();
    if (phase.data_bytes != 0) {
      if (phase.data_bytes > layout.memory_bytes()) {
        throw InputError("phase " + std::to_string(p + 1) + " ('" + phase.spec +
                         "') asks for more data than --data-size holds; raise --data-size to the largest phase");
      }
      // Whole blocks of the layout, so that no key falls past its end.
      num_keys = std::clamp<uint64_t>(
          phase.data_bytes / layout.options().block_bytes * layout.entries_per_block(), 1,
          layout.num_keys());
    }
    std::unique_ptr<Workload> generator =
        MakeWorkload(phase.spec, num_keys, entry_bytes, seed + p);
    if (phase.requests != 0) {
      // Each request reads at least one block: refuse at once what cannot fit.
      if (phase.requests > kMaxAccesses - std::min(kMaxAccesses, trace.accesses.size())) {
        RefuseAccesses("phase " + std::to_string(p + 1) + " asks for");
      }
      for (uint64_t r = 0; r < phase.requests; r++) {
        AppendRequest(layout, num_keys, generator->Next(), &trace.accesses);
      }
    } else {
      const uint64_t target = accesses * (p + 1) / phases.size();
      while (trace.accesses.size() < target) {
        AppendRequest(layout, num_keys, generator->Next(), &trace.accesses);
      }
    }
  }
  trace.blocks.reserve(layout.num_blocks());
  for (uint64_t b = 0; b < layout.num_blocks(); b++) {
    trace.blocks.push_back(layout.block(b));
  }
  trace.data_bytes = layout.memory_bytes();
  trace.disk_bytes = layout.stored_bytes();
  return trace;
}

BlockTrace TraceFromRecords(const std::vector<TraceRecord>& records,
                            const TraceLayoutOptions& options) {
  if (records.empty()) throw InputError("the trace has no records");
  if (options.block_bytes > kMaxBlockBytes) {
    throw InputError("--block-size " + std::to_string(options.block_bytes) +
                     " is larger than 64 MiB, the largest block a study simulates");
  }
  if (!(options.alpha > 0 && options.alpha <= 1)) {
    throw InputError("--alpha must be in (0, 1]; it is the compressed/uncompressed size ratio, e.g. 0.5");
  }
  // Distinct keys in key order: neighbouring keys become neighbouring blocks.
  std::vector<uint64_t> keys;
  keys.reserve(records.size());
  for (const TraceRecord& r : records) keys.push_back(r.key);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  if (keys.size() > UINT32_MAX) {
    throw InputError("the trace has more than 2^32 distinct keys; cut it with --max-records");
  }

  BlockTrace trace;
  trace.accesses.reserve(records.size());
  std::vector<uint32_t> mem_size(keys.size(), options.block_bytes);
  for (size_t i = 0; i < records.size(); i++) {
    const uint32_t ordinal = static_cast<uint32_t>(
        std::lower_bound(keys.begin(), keys.end(), records[i].key) - keys.begin());
    trace.accesses.push_back(ordinal);
    if (options.block_bytes == 0) {
      if (records[i].size == 0) {
        throw InputError("trace record " + std::to_string(i + 1) +
                         " has no size; give --block-size to use a fixed block size");
      }
      if (records[i].size > kMaxBlockBytes) {
        throw InputError("trace record " + std::to_string(i + 1) + " has an object of " +
                         std::to_string(records[i].size) + " bytes; --block-size trace takes "
                         "objects of up to 64 MiB as blocks: give a fixed --block-size");
      }
      // A key's block is the largest size it was read with.
      mem_size[ordinal] = std::max(mem_size[ordinal], records[i].size);
    }
  }

  trace.blocks.resize(keys.size());
  uint64_t file_id = 0, offset = 0;
  for (size_t b = 0; b < keys.size(); b++) {
    const uint32_t mem = std::max<uint32_t>(mem_size[b], 1);
    const uint32_t disk = std::max<uint32_t>(
        1, static_cast<uint32_t>(std::llround(options.alpha * mem)));
    const uint64_t footprint =
        options.aligned ? (disk + kPageSize - 1) / kPageSize * kPageSize : disk;
    if (offset > 0 && offset + footprint > options.file_bytes) {
      file_id++;
      offset = 0;
    }
    trace.blocks[b] = Block{file_id, offset, disk, mem};
    offset += footprint;
    trace.data_bytes += mem;
    trace.disk_bytes += disk;
  }
  trace.description = "trace";
  return trace;
}

void CheckBlockTrace(const BlockTrace& trace) {
  if (trace.accesses.empty() || trace.blocks.empty()) {
    throw InputError("the trace is empty; give a workload with accesses or a non-empty trace file");
  }
  for (uint32_t b : trace.accesses) {
    if (b >= trace.blocks.size()) {
      throw InputError("an access names block " + std::to_string(b) + " of " +
                       std::to_string(trace.blocks.size()) + "; the trace is corrupt");
    }
  }
  constexpr uint64_t kMaxFiles = uint64_t{1} << 24;
  constexpr uint64_t kMaxOffset = uint64_t{1} << 52;  // 4 PiB
  std::unordered_set<uint64_t> files;
  for (const Block& b : trace.blocks) {
    if (b.disk_size == 0 || b.mem_size == 0) {
      throw InputError("a block of file " + std::to_string(b.file_id) +
                       " has size 0; every block needs a size");
    }
    if (b.offset >= kMaxOffset - b.disk_size) {
      throw InputError("a block of file " + std::to_string(b.file_id) +
                       " lies beyond 4 PiB; use a smaller --file-size");
    }
    if (files.insert(b.file_id).second && files.size() > kMaxFiles) {
      throw InputError("the layout has more than 2^24 files; raise --file-size");
    }
  }
}

void CheckWarmup(double warmup) {
  if (!(warmup >= 0 && warmup < 1)) {
    throw InputError("--warmup must be a fraction in [0, 1), e.g. 0.25");
  }
}

void CheckMissCosts(const MissCosts& costs) {
  if (!(costs.app_miss >= 0) || !(costs.second_tier_miss >= 0) || !std::isfinite(costs.app_miss) ||
      !std::isfinite(costs.second_tier_miss)) {
    throw InputError("miss costs --ca and --ck must be finite and >= 0, e.g. --ca 3 --ck 16");
  }
}

void CheckMaxReadahead(uint32_t pages) {
  if (pages == 0) {
    throw InputError("--max-readahead must be at least 1 page (the Linux default is 32)");
  }
}

}  // namespace symbiosis
