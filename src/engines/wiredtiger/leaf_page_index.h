// LeafPageIndex: which leaf page of a WiredTiger B-tree file holds a key,
// learned from the reads that lookups make.
//
// WiredTiger has no hook per cached page, so a lookup that its cache
// serves leaves no trace of which page served it. A lookup that misses
// reads the leaf page (the last read of the operation, typed in the page
// header), which tells that the key lives on that page. A leaf page holds
// one contiguous key range, so every key learned for a page widens a known
// interval [first, last] of it, and a key inside an interval is on that
// page for certain. A key between the intervals of two pages lies on one
// of them (or on a page not yet read, which a hit cannot be on, since
// every page in the cache was read once): Find returns the lower one, and
// says the answer is a guess.
//
// Pages move when WiredTiger rewrites them (a reconciled page gets a new
// address, a split makes several): a key learned on another page than the
// interval holding it replaces that interval, and an address learned for
// a new range forgets its old one.
//
// Keys compare as byte strings (memcmp, shorter first on a tie): the order
// of WiredTiger's default collator on key_format S and u.
//
// Not thread-safe: one per file, under the caller's lock.

#ifndef SYMBIOSIS_ENGINES_WIREDTIGER_LEAF_PAGE_INDEX_H_
#define SYMBIOSIS_ENGINES_WIREDTIGER_LEAF_PAGE_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace symbiosis::wiredtiger {

// A leaf page's current on-disk image.
struct LeafPage {
  uint64_t offset = 0;     // in the file
  uint32_t disk_size = 0;  // bytes read
  uint32_t mem_size = 0;   // the page header's in-memory size

  friend bool operator==(const LeafPage&, const LeafPage&) = default;
};

struct LeafPageMatch {
  LeafPage page;
  bool certain = false;  // the key lies inside a learned interval
};

class LeafPageIndex {
 public:
  // A lookup of `key` read `page`.
  void Learn(std::string_view key, const LeafPage& page);

  // The page that holds `key`, or nullopt when nothing is learned at or
  // below it nor above it.
  std::optional<LeafPageMatch> Find(std::string_view key) const;

  size_t pages() const { return by_first_.size(); }
  // Bytes of keys held (the index's own memory is about this plus 100 per
  // page).
  size_t key_bytes() const { return key_bytes_; }

 private:
  struct Interval {
    std::string last;
    LeafPage page;
  };
  using Map = std::map<std::string, Interval, std::less<>>;

  void Erase(Map::iterator it);
  void Insert(std::string first, std::string last, const LeafPage& page);

  Map by_first_;                                      // disjoint intervals
  std::unordered_map<uint64_t, std::string> by_offset_;  // page -> its first key
  size_t key_bytes_ = 0;
};

}  // namespace symbiosis::wiredtiger

#endif  // SYMBIOSIS_ENGINES_WIREDTIGER_LEAF_PAGE_INDEX_H_
