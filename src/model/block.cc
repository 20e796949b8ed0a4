#include "symbiosis/block.h"

#include "base/hash.h"

namespace symbiosis {

uint64_t Block::key() const { return Hash64(file_id, offset); }

}  // namespace symbiosis
