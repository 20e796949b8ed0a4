#include "symbiosis/kernel_cache.h"

#include "symbiosis/error.h"
#include "model/page_cache_model.h"

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
                                            const PageCacheOptions& options) {
  switch (kind) {
    case KernelModelKind::kLinux:
      return std::make_unique<PageCacheModel>(options);
    case KernelModelKind::kPageLru: {
      PageCacheOptions lru = options;
      lru.two_queue = false;
      lru.refault_activation = false;
      lru.readahead = false;
      return std::make_unique<PageCacheModel>(lru);
    }
    case KernelModelKind::kBlockLru:
      return NewBlockLru(options.capacity_bytes);
  }
  return nullptr;
}

}  // namespace symbiosis
