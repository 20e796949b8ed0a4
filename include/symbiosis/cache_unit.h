// CacheUnit: what a cache's capacity counts, objects or their bytes.

#ifndef SYMBIOSIS_CACHE_UNIT_H_
#define SYMBIOSIS_CACHE_UNIT_H_

namespace symbiosis {

enum class CacheUnit { kObjects, kBytes };

}  // namespace symbiosis

#endif  // SYMBIOSIS_CACHE_UNIT_H_
