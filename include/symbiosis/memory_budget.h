// The memory budget M that an engine's caches split: given, or read from
// this process's memory cgroup less a reserve. The budget layer resolves
// it; the Controller takes M as an input (ControllerConfig::memory_bytes).

#ifndef SYMBIOSIS_MEMORY_BUDGET_H_
#define SYMBIOSIS_MEMORY_BUDGET_H_

#include <cstdint>
#include <string>

namespace symbiosis {

// M: `memory_bytes` if not 0, else the memory cgroup's limit (v2
// memory.max, v1 memory.limit_in_bytes, the smallest along the path)
// minus `reserve_bytes`. Throws CgroupError if there is no limit to read,
// and InputError if the reserve leaves less than `min_app_bytes` (the
// engine's own default cache).
uint64_t ResolveMemoryBudget(uint64_t memory_bytes, uint64_t reserve_bytes,
                             uint64_t min_app_bytes);

// M for an engine plugin's Open, as ResolveMemoryBudget. Also throws
// InputError "memory budget N MiB is below the minimum K MiB; give
// <engine> more memory" when M < min_bytes.
uint64_t ResolveEngineMemory(uint64_t memory_bytes, uint64_t reserve_bytes,
                             uint64_t min_app_bytes, uint64_t min_bytes,
                             const std::string& engine);

}  // namespace symbiosis

#endif  // SYMBIOSIS_MEMORY_BUDGET_H_
