#include "budget/heap_release.h"

#include <dlfcn.h>
#include <malloc.h>

#include <cstddef>

namespace symbiosis {
namespace {

using Mallctl = int (*)(const char*, void*, size_t*, void*, size_t);

// jemalloc's mallctl if the process has it (linked or preloaded), else null.
Mallctl FindMallctl() {
  static const Mallctl mallctl = reinterpret_cast<Mallctl>(dlsym(RTLD_DEFAULT, "mallctl"));
  return mallctl;
}

}  // namespace

HeapRelease ReleaseFreeHeap() {
  HeapRelease released;
  malloc_trim(0);
  released.glibc = true;
  if (const Mallctl mallctl = FindMallctl()) {
    // Arena index 4096 is MALLCTL_ARENAS_ALL: every arena.
    released.jemalloc = mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0) == 0;
  }
  return released;
}

}  // namespace symbiosis
