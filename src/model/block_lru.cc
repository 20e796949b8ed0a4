// NewBlockLru: an LRU of whole blocks, each charged its on-disk size.
//
// The simplest kernel model: a block is cached or not, as a unit. It cannot
// see that two misaligned blocks share a page, nor read-ahead, nor the
// kernel's two lists; it is the baseline the page-level model is compared
// against, and what the reference implementation's online ghost used.

#include <unordered_map>
#include <vector>

#include "symbiosis/kernel_cache.h"

namespace symbiosis {
namespace {

// Invariants: every cached block has one node, on the recency list (head
// node 0; head.next is the most recent), and one entry in index_; free
// nodes are chained through `next`. used_ is the sum of cached charges and
// is <= capacity_ between calls.
class BlockLru final : public KernelCache {
 public:
  explicit BlockLru(uint64_t capacity_bytes) : capacity_(capacity_bytes) {
    nodes_.push_back(Node{0, 0, 0, 0, 0});
  }

  bool Read(const Block& block) override {
    const auto it = index_.find(block.key());
    if (it == index_.end()) {
      Add(block);
      return false;
    }
    Unlink(it->second);
    PushMru(it->second);
    return true;
  }

  // An inserted block is the most recent: an exclusive hierarchy inserts a
  // block just evicted from the application cache, which was just used.
  void Insert(const Block& block) override {
    if (index_.find(block.key()) == index_.end()) Add(block);
  }

  void Drop(const Block& block) override {
    const auto it = index_.find(block.key());
    if (it != index_.end()) Remove(it->second);
  }

  // Scans all nodes: files are deleted rarely, and a per-file list would
  // cost every node two more links.
  void DropFile(uint64_t file_id) override {
    for (uint32_t node = 1; node < nodes_.size(); ++node) {
      if (nodes_[node].charge != 0 && nodes_[node].file_id == file_id) {
        Remove(node);
      }
    }
  }

  void SetCapacity(uint64_t bytes) override {
    capacity_ = bytes;
    EvictTo(capacity_);
  }
  uint64_t capacity() const override { return capacity_; }
  uint64_t used_bytes() const override { return used_; }
  // The index estimate counts one bucket pointer per bucket and one
  // heap node (key, value, next, cached hash) per element.
  size_t MemoryUsage() const override {
    return nodes_.capacity() * sizeof(Node) +
           index_.bucket_count() * sizeof(void*) +
           index_.size() * (sizeof(std::pair<const uint64_t, uint32_t>) + 2 * sizeof(void*));
  }

 private:
  struct Node {
    uint64_t key;
    uint64_t file_id;
    uint32_t charge;  // disk size; 0 marks a free node
    uint32_t prev;
    uint32_t next;
  };

  // A block larger than the whole cache is not admitted: caching it would
  // evict everything, itself included.
  void Add(const Block& block) {
    if (block.disk_size == 0 || block.disk_size > capacity_) return;
    EvictTo(capacity_ - block.disk_size);
    uint32_t node = free_;
    if (node != 0) {
      free_ = nodes_[node].next;
    } else {
      node = static_cast<uint32_t>(nodes_.size());
      nodes_.emplace_back();
    }
    nodes_[node] = Node{block.key(), block.file_id, block.disk_size, 0, 0};
    index_.emplace(block.key(), node);
    used_ += block.disk_size;
    PushMru(node);
  }

  void EvictTo(uint64_t target) {
    while (used_ > target) Remove(nodes_[0].prev);
  }

  void Remove(uint32_t node) {
    Unlink(node);
    index_.erase(nodes_[node].key);
    used_ -= nodes_[node].charge;
    nodes_[node].charge = 0;
    nodes_[node].next = free_;
    free_ = node;
  }

  void Unlink(uint32_t node) {
    nodes_[nodes_[node].prev].next = nodes_[node].next;
    nodes_[nodes_[node].next].prev = nodes_[node].prev;
  }

  void PushMru(uint32_t node) {
    nodes_[node].prev = 0;
    nodes_[node].next = nodes_[0].next;
    nodes_[nodes_[0].next].prev = node;
    nodes_[0].next = node;
  }

  uint64_t capacity_;
  uint64_t used_ = 0;
  std::vector<Node> nodes_;  // nodes_[0] is the list head
  uint32_t free_ = 0;        // first free node; 0: none
  std::unordered_map<uint64_t, uint32_t> index_;
};

}  // namespace

std::unique_ptr<KernelCache> NewBlockLru(uint64_t capacity_bytes) {
  return std::make_unique<BlockLru>(capacity_bytes);
}

}  // namespace symbiosis
