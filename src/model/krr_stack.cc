#include "model/krr_stack.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "model/slot_index.h"
#include "symbiosis/error.h"
#include "base/hash.h"

namespace symbiosis {

namespace {

constexpr uint32_t kNoKey = UINT32_MAX;

// Draws u = r^(1/K') for r uniform in (0, 1]: the fraction of the way down
// from the top to where the next displaced key comes from, as a 32-bit
// fixed-point number. A draw is on every move, and pow() costs about 20 ns
// where a move costs a few, so u is read from a table of 4,096 entries
// indexed by r's top 12 bits and interpolated in integers on the next 16:
// off by at most 2e-6 for r >= 1/64; the 1.6% of draws below are computed.
class JumpDraw {
 public:
  JumpDraw(double k_prime, uint64_t seed) : inv_k_(1 / k_prime), state_(seed) {
    for (size_t t = 0; t <= kTable; t++) {
      table_[t] = Fixed(std::pow(static_cast<double>(t) / kTable, inv_k_));
    }
  }

  // u * 2^32, at most 2^32 - 1.
  uint64_t Next() {
    const uint64_t z = SplitMix64(&state_);
    if ((z >> 58) == 0) {  // r < 1/64
      const double r = static_cast<double>((z >> 11) + 1) * 0x1.0p-53;
      return Fixed(std::pow(r, inv_k_));
    }
    const uint64_t t = z >> 52;
    const uint64_t fraction = (z >> 36) & 0xffff;
    return table_[t] + (((table_[t + 1] - table_[t]) * fraction) >> 16);
  }

 private:
  static uint64_t Fixed(double u) {
    return std::min<uint64_t>(static_cast<uint64_t>(u * 0x1.0p32), 0xffffffffULL);
  }

  static constexpr size_t kTable = 4096;
  const double inv_k_;
  uint64_t state_;
  std::array<uint64_t, kTable + 1> table_;
};

}  // namespace

// Invariants (positions are 1-based; n = stack_.size()):
//  - stack_[p - 1] is the id of the key at position p; pos_[id] is its
//    position; index_ maps Mix64(key) to the id; keys_[id] is the key;
//    ids not in the stack are on free_.
//  - bytes mode: size_[id] is the key's last size; total_ = the sum of
//    sizes in the stack; marks_[j] = {q_j, bytes at positions 1..q_j}
//    for every mark q_j <= n, q_0 = 1, q_(j+1) = max(q_j + 1,
//    floor(q_j * size_base)); next_mark_ is the first mark beyond n.
//  - tracked() <= 1.5 capacity_ between calls.
class KrrStack::Rep {
 public:
  explicit Rep(const KrrStackOptions& o)
      : options_(o),
        bytes_mode_(o.unit == CacheUnit::kBytes),
        capacity_(o.capacity),
        draw_(std::pow(static_cast<double>(o.k), o.k_exponent), o.seed) {}

  uint64_t Access(uint64_t key, uint32_t size) {
    const uint64_t mixed = Mix64(key);
    const auto* bucket = index_.Find(mixed, HashOf{keys_});
    uint32_t id;
    uint64_t from;  // the accessed key's position; n + 1 when new
    uint64_t distance = kColdMiss;
    if (bucket != nullptr) {
      id = bucket->slot;
      from = pos_[id];
      distance = bytes_mode_ ? static_cast<uint64_t>(std::ceil(BytesThrough(from))) : from;
    } else {
      id = NewId(key);
      index_.Insert(mixed, id);
      stack_.push_back(kNoKey);
      from = stack_.size();
    }
    // The backward update: the keys on the chain from `from` to the top
    // each move down to the previous chain position.
    chain_.clear();
    // x = ceil(u (i - 1)) = floor(u (i - 1)) + 1 (u (i - 1) is an integer
    // with probability ~0), in fixed point: the chain of positions is the
    // loop's critical path, and an integer multiply is a third of the
    // latency of a floating-point multiply and round (1.3x faster here).
    for (uint64_t i = from; i > 1;) {
      const uint64_t x = (((i - 1) * draw_.Next()) >> 32) + 1;
      const uint32_t moved = stack_[x - 1];
      if (bytes_mode_) chain_.push_back({x, size_[moved]});
      stack_[i - 1] = moved;
      pos_[moved] = static_cast<uint32_t>(i);
      i = x;
    }
    stack_[0] = id;
    pos_[id] = 1;
    if (bytes_mode_) UpdateBytes(id, from, size);
    if (static_cast<double>(tracked()) > 1.5 * static_cast<double>(capacity_)) Trim();
    return distance;
  }

  void Erase(const std::function<bool(uint64_t)>& drop) {
    size_t kept = 0;
    for (const uint32_t id : stack_) {
      if (drop(keys_[id])) {
        Forget(id);
        continue;
      }
      stack_[kept++] = id;
      pos_[id] = static_cast<uint32_t>(kept);
    }
    stack_.resize(kept);
    if (!bytes_mode_) return;
    // Every mark's sum changed: recount them in one walk.
    marks_.clear();
    next_mark_ = 1;
    total_ = 0;
    for (uint64_t p = 1; p <= stack_.size(); p++) {
      total_ += size_[stack_[p - 1]];
      if (p == next_mark_) {
        marks_.push_back({p, total_});
        next_mark_ = NextMark(p);
      }
    }
  }

  void SetCapacity(uint64_t capacity) {
    capacity_ = capacity;
    if (tracked() > capacity_) Trim();
  }
  uint64_t capacity() const { return capacity_; }
  size_t entries() const { return stack_.size(); }
  uint64_t tracked() const {
    return bytes_mode_ ? static_cast<uint64_t>(total_) : stack_.size();
  }

  size_t MemoryUsage() const {
    return keys_.capacity() * sizeof(uint64_t) +
           (pos_.capacity() + size_.capacity() + stack_.capacity() + free_.capacity()) *
               sizeof(uint32_t) +
           index_.MemoryUsage() + marks_.capacity() * sizeof(Mark) +
           chain_.capacity() * sizeof(ChainStep);
  }

  std::vector<uint64_t> Keys() const {
    std::vector<uint64_t> keys;
    keys.reserve(stack_.size());
    for (const uint32_t id : stack_) keys.push_back(keys_[id]);
    return keys;
  }

 private:
  struct HashOf {
    const std::vector<uint64_t>& keys;
    uint64_t operator()(uint32_t slot) const { return Mix64(keys[slot]); }
  };
  struct Mark {
    uint64_t position;
    double bytes;  // at positions 1..position
  };
  struct ChainStep {
    uint64_t position;
    uint32_t old_size;  // of the key that was there
  };

  uint32_t NewId(uint64_t key) {
    if (!free_.empty()) {
      const uint32_t id = free_.back();
      free_.pop_back();
      keys_[id] = key;
      if (bytes_mode_) size_[id] = 0;
      return id;
    }
    keys_.push_back(key);
    pos_.push_back(0);
    if (bytes_mode_) size_.push_back(0);
    return static_cast<uint32_t>(keys_.size() - 1);
  }

  // Forgets the bottom keys until the stack holds the capacity.
  void Trim() {
    while (!stack_.empty() && tracked() > capacity_) {
      Forget(stack_.back());
      stack_.pop_back();
    }
    if (!bytes_mode_) return;
    const uint64_t n = stack_.size();
    while (!marks_.empty() && marks_.back().position > n) marks_.pop_back();
    next_mark_ = marks_.empty() ? 1 : NextMark(marks_.back().position);
    if (stack_.empty()) total_ = 0;
  }

  // Drops the key from the index and the byte total; the caller takes it
  // out of stack_.
  void Forget(uint32_t id) {
    index_.Erase(Mix64(keys_[id]), id);
    if (bytes_mode_) total_ -= size_[id];
    free_.push_back(id);
  }

  uint64_t NextMark(uint64_t q) const {
    return std::max(q + 1, static_cast<uint64_t>(static_cast<double>(q) * options_.size_base));
  }

  // Bytes at positions 1..p, interpolated between the marks around p.
  double BytesThrough(uint64_t p) const {
    const uint64_t n = stack_.size();
    if (p >= n) return total_;
    auto above = std::upper_bound(marks_.begin(), marks_.end(), p,
                                  [](uint64_t q, const Mark& m) { return q < m.position; });
    const Mark& below = *std::prev(above);  // marks_[0] is position 1 <= p
    if (below.position == p) return below.bytes;
    const Mark upper = above != marks_.end() ? *above : Mark{n, total_};
    return below.bytes + (upper.bytes - below.bytes) * static_cast<double>(p - below.position) /
                             static_cast<double>(upper.position - below.position);
  }

  // After the moves: the chain c_0 = from > c_1 > ... > c_m = 1 moved the
  // key at c_(J+1) to c_J and put the accessed key at c_m. The bytes at
  // positions 1..p change only by the chain positions <= p, and their sum
  // telescopes: for c_J <= p < c_(J-1) they change by the accessed key's
  // size less the old size at c_J; for p >= from, by its change of size
  // (a hit) or its whole size (a new key, which grew the stack).
  void UpdateBytes(uint32_t id, uint64_t from, uint32_t size) {
    const double grown = static_cast<double>(size) - size_[id];
    size_[id] = size;
    size_t j = marks_.size();
    // Marks at or beyond `from` (a hit): the key's change of size.
    while (j > 0 && marks_[j - 1].position >= from) marks_[--j].bytes += grown;
    // Marks below `from`, walking down the chain.
    size_t step = 0;
    while (j > 0) {
      const uint64_t q = marks_[--j].position;
      while (chain_[step].position > q) step++;  // chain_.back() is position 1
      marks_[j].bytes += static_cast<double>(size) - chain_[step].old_size;
    }
    total_ += grown;
    // A new key grew the stack to `from`: a mark may start there.
    if (from == next_mark_) {
      marks_.push_back({from, total_});
      next_mark_ = NextMark(from);
    }
  }

  const KrrStackOptions options_;
  const bool bytes_mode_;
  uint64_t capacity_;
  JumpDraw draw_;
  PowerOfTwoSlotIndex index_;
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> pos_;
  std::vector<uint32_t> size_;
  std::vector<uint32_t> stack_;
  std::vector<uint32_t> free_;
  std::vector<Mark> marks_;
  uint64_t next_mark_ = 1;
  double total_ = 0;
  std::vector<ChainStep> chain_;
};

KrrStack::KrrStack(const KrrStackOptions& options) {
  if (options.k == 0) throw InputError("K-LRU's K must be at least 1 (Redis's default is 5)");
  if (!(options.k_exponent > 0 && options.k_exponent <= 4)) {
    throw InputError("KRR's K exponent " + std::to_string(options.k_exponent) +
                     " is not in (0, 4]; the paper's correction is 1.4");
  }
  if (!(options.size_base > 1 && options.size_base <= 2)) {
    throw InputError("KRR's size base " + std::to_string(options.size_base) +
                     " is not in (1, 2]; use e.g. 1.2");
  }
  rep_ = std::make_unique<Rep>(options);
}

KrrStack::~KrrStack() = default;
uint64_t KrrStack::Access(uint64_t key, uint32_t size) { return rep_->Access(key, size); }
void KrrStack::Erase(const std::function<bool(uint64_t)>& drop) { rep_->Erase(drop); }
void KrrStack::SetCapacity(uint64_t capacity) { rep_->SetCapacity(capacity); }
uint64_t KrrStack::capacity() const { return rep_->capacity(); }
size_t KrrStack::entries() const { return rep_->entries(); }
uint64_t KrrStack::tracked() const { return rep_->tracked(); }
size_t KrrStack::MemoryUsage() const { return rep_->MemoryUsage(); }
std::vector<uint64_t> KrrStack::Keys() const { return rep_->Keys(); }

}  // namespace symbiosis
