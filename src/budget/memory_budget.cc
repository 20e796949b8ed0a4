#include "symbiosis/memory_budget.h"

#include <optional>

#include "symbiosis/cgroup.h"
#include "symbiosis/error.h"

namespace symbiosis {

uint64_t ResolveMemoryBudget(uint64_t memory_bytes, uint64_t reserve_bytes,
                             uint64_t min_app_bytes) {
  if (memory_bytes != 0) return memory_bytes;
  const MemoryCgroup cgroup = DetectMemoryCgroup();
  const std::optional<uint64_t> limit = ReadMemoryLimit(cgroup);
  if (!limit) {
    throw CgroupError("memory cgroup " + cgroup.dir +
                      " has no limit: give the budget M (memory_bytes) explicitly");
  }
  if (*limit <= reserve_bytes || *limit - reserve_bytes < min_app_bytes) {
    throw InputError("controller config: the cgroup limit " + std::to_string(*limit) +
                     " bytes minus memory_reserve_bytes leaves less than default_ma_bytes; "
                     "lower the reserve or raise the limit");
  }
  return *limit - reserve_bytes;
}

uint64_t ResolveEngineMemory(uint64_t memory_bytes, uint64_t reserve_bytes,
                             uint64_t min_app_bytes, uint64_t min_bytes,
                             const std::string& engine) {
  const uint64_t memory = ResolveMemoryBudget(memory_bytes, reserve_bytes, min_app_bytes);
  if (memory < min_bytes) {
    throw InputError("memory budget " + std::to_string(memory >> 20) + " MiB is below the minimum " +
                     std::to_string(min_bytes >> 20) + " MiB; give " + engine + " more memory");
  }
  return memory;
}

}  // namespace symbiosis
