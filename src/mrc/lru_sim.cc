#include "mrc/lru_sim.h"

#include <vector>

#include "model/slot_index.h"
#include "base/hash.h"

namespace symbiosis {

// The recency list is intrusive and doubly linked through 32-bit indices
// into one flat node array, so a hit is a hash probe plus six index writes
// and never allocates; freed nodes are reused through a free list. Node 0
// is the list head: head.next is the most recent node, head.prev the least.
//
// Invariants:
//  - the nodes linked from the head are exactly the resident keys, most
//    recent first, and index_ maps the hash of each to its node;
//  - charged_ is the sum of their charges (1 each, or their sizes) and is
//    <= capacity_ between calls;
//  - free_ heads a list, linked through `next`, of the unused nodes.
class LruSim::Rep {
 public:
  Rep(uint64_t capacity, bool count_objects)
      : capacity_(capacity), count_objects_(count_objects), nodes_(1) {
    nodes_[kHead].next = nodes_[kHead].prev = kHead;
  }

  bool Access(uint64_t key, uint64_t size) {
    const uint64_t hash = Mix64(key);
    const uint64_t charge = count_objects_ ? 1 : size;
    const auto* bucket = index_.Find(hash, NodeHash{nodes_});
    const bool hit = bucket != nullptr;
    if (hit) {
      Node& node = nodes_[bucket->slot];
      charged_ += charge - node.charge;
      node.charge = charge;
      Unlink(bucket->slot);
      PushFront(bucket->slot);
    } else {
      const uint32_t slot = NewNode(hash, charge);
      index_.Insert(hash, slot);
      PushFront(slot);
      charged_ += charge;
    }
    while (charged_ > capacity_) EvictLeastRecent();
    return hit;
  }

  uint64_t capacity() const { return capacity_; }
  bool count_objects() const { return count_objects_; }
  size_t resident_objects() const { return index_.size(); }

 private:
  static constexpr uint32_t kHead = 0;
  static constexpr uint32_t kNone = 0;  // end of the free list

  struct Node {
    uint64_t hash = 0;
    uint64_t charge = 0;
    uint32_t prev = kNone;
    uint32_t next = kNone;
  };

  // The full hash of a node, for PowerOfTwoSlotIndex::Find.
  struct NodeHash {
    const std::vector<Node>& nodes;
    uint64_t operator()(uint32_t slot) const { return nodes[slot].hash; }
  };

  uint32_t NewNode(uint64_t hash, uint64_t charge) {
    uint32_t slot = free_;
    if (slot != kNone) {
      free_ = nodes_[slot].next;
    } else {
      slot = static_cast<uint32_t>(nodes_.size());
      nodes_.emplace_back();
    }
    nodes_[slot].hash = hash;
    nodes_[slot].charge = charge;
    return slot;
  }

  void Unlink(uint32_t slot) {
    Node& node = nodes_[slot];
    nodes_[node.prev].next = node.next;
    nodes_[node.next].prev = node.prev;
  }

  void PushFront(uint32_t slot) {
    Node& node = nodes_[slot];
    node.prev = kHead;
    node.next = nodes_[kHead].next;
    nodes_[node.next].prev = slot;
    nodes_[kHead].next = slot;
  }

  void EvictLeastRecent() {
    const uint32_t slot = nodes_[kHead].prev;
    Node& node = nodes_[slot];
    Unlink(slot);
    index_.Erase(node.hash, slot);
    charged_ -= node.charge;
    node.next = free_;
    free_ = slot;
  }

  const uint64_t capacity_;
  const bool count_objects_;
  std::vector<Node> nodes_;
  PowerOfTwoSlotIndex index_;
  uint32_t free_ = kNone;
  uint64_t charged_ = 0;
};

LruSim::LruSim(uint64_t capacity, bool count_objects)
    : rep_(std::make_unique<Rep>(capacity, count_objects)) {}
LruSim::~LruSim() = default;

bool LruSim::Access(uint64_t key, uint64_t size) {
  const bool hit = rep_->Access(key, size);
  requested_bytes_ += size;
  if (hit) {
    ++hits_;
  } else {
    ++misses_;
    missed_bytes_ += size;
  }
  return hit;
}

double LruSim::miss_ratio() const {
  const uint64_t accesses = hits_ + misses_;
  return accesses == 0 ? 0 : static_cast<double>(misses_) / accesses;
}

double LruSim::byte_miss_ratio() const {
  return requested_bytes_ == 0
             ? 0
             : static_cast<double>(missed_bytes_) / requested_bytes_;
}

uint64_t LruSim::capacity() const { return rep_->capacity(); }
bool LruSim::count_objects() const { return rep_->count_objects(); }
size_t LruSim::resident_objects() const { return rep_->resident_objects(); }

}  // namespace symbiosis
