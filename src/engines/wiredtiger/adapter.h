// Adapter: turns WiredTiger's reads and the application's operations into
// the Controller's block accesses.
//
// WiredTiger exposes no hook per cache lookup, so the application marks
// each operation: BeginAccess(file, key) before a cursor search, EndAccess
// after it, on the same thread (symbiosis::wiredtiger::AccessScope does
// both). Between them, the file system reports every block read of the
// thread. One operation is one access to one leaf page:
//   a leaf page read   a miss of that page (LeafPageIndex learns that the
//                      key lives there), and a read the kernel served or
//                      not;
//   no leaf read       a hit, of the page the index says holds the key.
// Every miss also checks the index: the page it would have named for the
// key, against the page read (AccessCounts::index_*), which measures its
// accuracy on the real engine as it runs.
// Internal pages are read rarely and always looked up; they are counted
// but not reported. Reads outside an operation, and operations on other
// threads, are not the workload: they are counted as background reads.
//
// The index matters only while the Controller simulates; in between, a hit
// is a count (Controller::RecordAppAccessUnidentified), so the hit path of
// a stable run stays a thread-local check and relaxed counters. Suspended
// (Db::Suspend), operations are counted and not reported at all.
//
// Thread-safe. The index takes a shared lock to find and an exclusive one
// to learn (a learn follows a read, which costs far more).

#ifndef SYMBIOSIS_ENGINES_WIREDTIGER_ADAPTER_H_
#define SYMBIOSIS_ENGINES_WIREDTIGER_ADAPTER_H_

#include <cstdint>
#include <optional>
#include <shared_mutex>
#include <string_view>
#include <unordered_map>

#include "engines/wiredtiger/file_system.h"
#include "engines/wiredtiger/leaf_page_index.h"
#include "online/controller_link.h"
#include "symbiosis/controller.h"
#include "symbiosis/sched_times.h"
#include "base/thread_counters.h"

namespace symbiosis::wiredtiger {

struct AccessCounts {
  uint64_t lookups = 0;          // marked operations that found a leaf page
  uint64_t hits = 0;             // of which served by WiredTiger's cache
  uint64_t unidentified_hits = 0;  // hits while simulating with no page known
  uint64_t guessed_hits = 0;     // hits while simulating placed by a guess
  uint64_t reads = 0;            // leaf page reads after a miss
  uint64_t second_tier_hits = 0;      // of which fully resident in the page cache
  uint64_t internal_reads = 0;   // internal pages read in operations
  uint64_t other_reads = 0;      // data-file reads outside operations
  uint64_t miss_ns = 0;          // summed time of the misses, read to op end
  // The index checked on every miss before it learns from it: the page it
  // would have named for the key against the page read.
  uint64_t index_answers = 0;        // misses the index had a page for
  uint64_t index_wrong = 0;          // of which another page than the one read
  uint64_t index_guesses = 0;        // of the answers, guesses
  uint64_t index_guesses_wrong = 0;  // of which another page
};

class Adapter {
 public:
  Adapter() = default;

  // REQUIRES: no operation is running (before WiredTiger opens or after it
  // closed); `controller` outlives its use here.
  void SetController(Controller* controller) { link_.Set(controller); }
  // See ControllerLink::Suspend.
  void Suspend(bool suspended) { link_.Suspend(suspended); }
  bool suspended() const { return link_.suspended(); }
  // The slowdown the file system gives SampledThreadSchedTimes for a read.
  uint32_t SchedSampleSlowdown() const { return link_.SchedSampleSlowdown(); }
  // Pages are reported at their in-memory size divided by `fill` (the
  // share of the cache the engine keeps filled). REQUIRES: as
  // SetController; 0 < fill <= 1.
  void SetCacheFill(double fill) { fill_ = fill; }

  // The calling thread starts an operation on `key` of data file `file_id`.
  // REQUIRES: no operation of this thread is running.
  void BeginAccess(uint64_t file_id, std::string_view key);
  // The operation ended (found the key or not).
  void EndAccess();

  // File system events.
  void OnRead(uint64_t file_id, uint64_t offset, uint32_t length, const PageHeader& header,
              bool second_tier_hit, uint64_t start_ns, std::optional<SchedTimes> sched_start);
  void OnFileOpened(uint64_t file_id, uint64_t bytes);
  void OnFileDeleted(uint64_t file_id);

  AccessCounts Counts() const;
  size_t IndexedPages() const;

 private:
  struct Counters {
    Counter lookups;
    Counter hits;
    Counter unidentified_hits;
    Counter guessed_hits;
    Counter reads;
    Counter second_tier_hits;
    Counter internal_reads;
    Counter other_reads;
    Counter miss_ns;
    Counter index_answers;
    Counter index_wrong;
    Counter index_guesses;
    Counter index_guesses_wrong;
  };

  void ReportMiss(uint64_t file_id, std::string_view key);
  void ReportHit(uint64_t file_id, std::string_view key);

  Block ToBlock(uint64_t file_id, const LeafPage& page) const;

  ControllerLink link_;
  double fill_ = 1;
  ThreadCounters<Counters> counts_;
  mutable std::shared_mutex index_mu_;
  std::unordered_map<uint64_t, LeafPageIndex> index_;  // by file id
};

}  // namespace symbiosis::wiredtiger

#endif  // SYMBIOSIS_ENGINES_WIREDTIGER_ADAPTER_H_
