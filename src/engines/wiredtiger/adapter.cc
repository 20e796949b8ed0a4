#include "engines/wiredtiger/adapter.h"

#include <mutex>

#include "symbiosis/block.h"

namespace symbiosis::wiredtiger {
namespace {

// The calling thread's running operation. The key is the caller's; it
// outlives the operation (AccessScope holds it).
struct Operation {
  const Adapter* owner = nullptr;  // null: none running
  uint64_t file_id = 0;
  std::string_view key;
  bool leaf_read = false;
  uint64_t leaf_file_id = 0;
  LeafPage leaf;
  bool second_tier_hit = false;
  uint64_t start_ns = 0;
  std::optional<SchedTimes> sched_start;
};

thread_local Operation op;

}  // namespace

Block Adapter::ToBlock(uint64_t file_id, const LeafPage& page) const {
  return Block{file_id, page.offset, page.disk_size,
               static_cast<uint32_t>(page.mem_size / fill_)};
}

void Adapter::BeginAccess(uint64_t file_id, std::string_view key) {
  op = Operation{};
  op.owner = this;
  op.file_id = file_id;
  op.key = key;
}

void Adapter::EndAccess() {
  if (op.owner != this) return;
  op.owner = nullptr;
  if (op.leaf_read) {
    ReportMiss(op.leaf_file_id, op.key);
  } else {
    ReportHit(op.file_id, op.key);
  }
}

void Adapter::ReportMiss(uint64_t file_id, std::string_view key) {
  const uint64_t miss_ns = SteadyNowNs() - op.start_ns;
  std::optional<LeafPageMatch> before;
  {
    std::unique_lock lock(index_mu_);
    LeafPageIndex& index = index_[file_id];
    before = index.Find(key);
    index.Learn(key, op.leaf);
  }
  auto mine = counts_.Mine();
  if (before) {
    const bool wrong = before->page.offset != op.leaf.offset;
    mine.Add(&Counters::index_answers, 1);
    mine.Add(&Counters::index_wrong, wrong);
    mine.Add(&Counters::index_guesses, !before->certain);
    mine.Add(&Counters::index_guesses_wrong, wrong && !before->certain);
  }
  mine.Add(&Counters::lookups, 1);
  mine.Add(&Counters::reads, 1);
  mine.Add(&Counters::second_tier_hits, op.second_tier_hit);
  mine.Add(&Counters::miss_ns, miss_ns);
  if (Controller* controller = link_.accesses(); controller != nullptr) {
    const Block block = ToBlock(file_id, op.leaf);
    const std::optional<SchedTimes> sched = ThisThreadSchedTimesSince(op.sched_start);
    controller->RecordAppAccess(block, false);
    controller->RecordRead(block, op.second_tier_hit, miss_ns, sched);
  }
}

void Adapter::ReportHit(uint64_t file_id, std::string_view key) {
  auto mine = counts_.Mine();
  mine.Add(&Counters::lookups, 1);
  mine.Add(&Counters::hits, 1);
  Controller* controller = link_.accesses();
  if (controller == nullptr) return;
  if (!controller->simulating()) {
    controller->RecordAppAccessUnidentified(true);
    return;
  }
  std::optional<LeafPageMatch> match;
  {
    std::shared_lock lock(index_mu_);
    const auto it = index_.find(file_id);
    if (it != index_.end()) match = it->second.Find(key);
  }
  if (!match) {
    mine.Add(&Counters::unidentified_hits, 1);
    controller->RecordAppAccessUnidentified(true);
    return;
  }
  if (!match->certain) mine.Add(&Counters::guessed_hits, 1);
  controller->RecordAppAccess(ToBlock(file_id, match->page), true);
}

void Adapter::OnRead(uint64_t file_id, uint64_t offset, uint32_t length, const PageHeader& header,
                     bool second_tier_hit, uint64_t start_ns, std::optional<SchedTimes> sched_start) {
  auto mine = counts_.Mine();
  if (op.owner != this) {
    mine.Add(&Counters::other_reads, 1);
    return;
  }
  if (header.type != PageType::kRowLeaf && header.type != PageType::kColumnVariable &&
      header.type != PageType::kColumnFixed) {
    mine.Add(&Counters::internal_reads, 1);
    return;
  }
  // The last leaf read of the operation is the page that holds the key
  // (WiredTiger reads top-down and stops at the leaf).
  op.leaf_read = true;
  op.leaf_file_id = file_id;
  op.leaf = LeafPage{offset, length, header.mem_size > 0 ? header.mem_size : length};
  op.second_tier_hit = second_tier_hit;
  op.start_ns = start_ns;
  op.sched_start = sched_start;
}

void Adapter::OnFileOpened(uint64_t file_id, uint64_t bytes) {
  if (Controller* controller = link_.files(); controller != nullptr) {
    controller->RecordFileSize(file_id, bytes);
  }
}

void Adapter::OnFileDeleted(uint64_t file_id) {
  {
    std::unique_lock lock(index_mu_);
    index_.erase(file_id);
  }
  if (Controller* controller = link_.files(); controller != nullptr) {
    controller->RecordFileDeleted(file_id);
  }
}

AccessCounts Adapter::Counts() const {
  AccessCounts c;
  counts_.ForEach([&c](const Counters& slot) {
    c.lookups += slot.lookups.Load();
    c.hits += slot.hits.Load();
    c.unidentified_hits += slot.unidentified_hits.Load();
    c.guessed_hits += slot.guessed_hits.Load();
    c.reads += slot.reads.Load();
    c.second_tier_hits += slot.second_tier_hits.Load();
    c.internal_reads += slot.internal_reads.Load();
    c.other_reads += slot.other_reads.Load();
    c.miss_ns += slot.miss_ns.Load();
    c.index_answers += slot.index_answers.Load();
    c.index_wrong += slot.index_wrong.Load();
    c.index_guesses += slot.index_guesses.Load();
    c.index_guesses_wrong += slot.index_guesses_wrong.Load();
  });
  return c;
}

size_t Adapter::IndexedPages() const {
  std::shared_lock lock(index_mu_);
  size_t pages = 0;
  for (const auto& [file, index] : index_) pages += index.pages();
  return pages;
}

}  // namespace symbiosis::wiredtiger
