#include "symbiosis/kernel_cache.h"

#include "symbiosis/error.h"
#include "symbiosis/page_cache_model.h"

namespace symbiosis {

KernelModelKind ParseKernelModelKind(std::string_view name) {
  if (name == "linux") return KernelModelKind::kLinux;
  if (name == "lru") return KernelModelKind::kPageLru;
  if (name == "block-lru") return KernelModelKind::kBlockLru;
  throw InputError("unknown kernel model '" + std::string(name) +
                   "'; valid names: linux, lru, block-lru");
}

std::string KernelModelName(KernelModelKind kind) {
  switch (kind) {
    case KernelModelKind::kLinux:
      return "linux";
    case KernelModelKind::kPageLru:
      return "lru";
    case KernelModelKind::kBlockLru:
      return "block-lru";
  }
  return "unknown";
}

std::unique_ptr<KernelCache> NewKernelCache(KernelModelKind kind,
                                            uint64_t capacity_bytes) {
  PageCacheOptions options;
  options.capacity_bytes = capacity_bytes;
  switch (kind) {
    case KernelModelKind::kLinux:
      return std::make_unique<PageCacheModel>(options);
    case KernelModelKind::kPageLru:
      options.two_queue = false;
      options.refault_activation = false;
      options.readahead = false;
      return std::make_unique<PageCacheModel>(options);
    case KernelModelKind::kBlockLru:
      return NewBlockLru(capacity_bytes);
  }
  return nullptr;
}

}  // namespace symbiosis
