#include "engines/wiredtiger/leaf_page_index.h"

#include <iterator>
#include <utility>

namespace symbiosis::wiredtiger {

// Invariants: intervals are disjoint and each first <= its last; every
// page (by offset) has at most one interval, and by_offset_ names it.

void LeafPageIndex::Erase(Map::iterator it) {
  by_offset_.erase(it->second.page.offset);
  key_bytes_ -= it->first.size() + it->second.last.size();
  by_first_.erase(it);
}

void LeafPageIndex::Insert(std::string first, std::string last, const LeafPage& page) {
  key_bytes_ += first.size() + last.size();
  by_offset_[page.offset] = first;
  by_first_.emplace(std::move(first), Interval{std::move(last), page});
}

void LeafPageIndex::Learn(std::string_view key, const LeafPage& page) {
  auto next = by_first_.upper_bound(key);  // first interval starting above key
  if (next != by_first_.begin()) {
    auto prev = std::prev(next);
    if (key <= std::string_view(prev->second.last)) {  // inside a learned interval
      if (prev->second.page == page) return;
      Erase(prev);  // the range moved to another page
      next = by_first_.upper_bound(key);
    }
  }
  // The key lies in a gap. The page's old interval is kept and widened only
  // if it is the neighbour on either side (nothing learned in between);
  // anywhere else it is stale.
  std::string first(key), last(key);
  if (const auto old = by_offset_.find(page.offset); old != by_offset_.end()) {
    auto it = by_first_.find(old->second);
    const bool below = next != by_first_.begin() && std::prev(next) == it;
    const bool above = next == it;
    if (it->second.page == page && below) first = it->first;
    if (it->second.page == page && above) last = it->second.last;
    Erase(it);
  }
  Insert(std::move(first), std::move(last), page);
}

std::optional<LeafPageMatch> LeafPageIndex::Find(std::string_view key) const {
  auto next = by_first_.upper_bound(key);
  if (next == by_first_.begin()) {
    if (next == by_first_.end()) return std::nullopt;
    return LeafPageMatch{next->second.page, false};  // below everything learned
  }
  const auto prev = std::prev(next);
  return LeafPageMatch{prev->second.page, key <= std::string_view(prev->second.last)};
}

}  // namespace symbiosis::wiredtiger
