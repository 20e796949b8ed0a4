#include "symbiosis/block.h"

#include "symbiosis/hash.h"

namespace symbiosis {

uint64_t Block::key() const { return Hash64(file_id, offset); }

}  // namespace symbiosis
