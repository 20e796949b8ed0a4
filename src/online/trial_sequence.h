// TrialSequence: the measures of a trial or a verification, in the order
// that lets a drift cancel: the split in place (`from`), each candidate in
// turn after its move and settle, then `from` again (A B ... A;
// docs/decisions/trial-measure.md). A TrialMeasurer takes each measure; a
// move to a candidate, or a verification's to `from`, is cut short when it
// runs far slower than the measure of the split it left.
// What the measures decide (a candidate kept at once, a verification
// passed at its first measure, which candidate stays) is the Tracker's:
// it is told each measure as it completes and asks for each move.
// Single-threaded.

#ifndef SYMBIOSIS_ONLINE_TRIAL_SEQUENCE_H_
#define SYMBIOSIS_ONLINE_TRIAL_SEQUENCE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "online/event_totals.h"
#include "online/trial_measurer.h"

namespace symbiosis {

class TrialSequence {
 public:
  // Which measure a window completed.
  enum class Measured { kNone, kFrom, kCandidate, kFromAgain };

  // The TrialMeasurer's settle, windows and least seconds per measure.
  TrialSequence(uint64_t settle_accesses, uint32_t windows, double min_seconds);

  // A trial of `candidates` from `from`, the split in place, measured from
  // access `now` without a settle.
  void Start(uint64_t now, uint64_t from, std::vector<uint64_t> candidates);
  // A verification: M_a is moving to `from`, measured once it arrives and
  // settles; then `candidates` (the split it left: `left`, if measured).
  void StartMoved(uint64_t from, std::vector<uint64_t> candidates,
                  const std::optional<TrialMeasure>& left);
  // A trial from `from` whose first measure, `from_measure`, was just
  // taken (a verified split's, or a candidate's kept at once): the caller
  // moves to the first candidate at once.
  void Continue(uint64_t now, uint64_t from, std::vector<uint64_t> candidates,
                const TrialMeasure& from_measure);

  // The split reached its target at access `now`: the settle starts.
  void Arrived(uint64_t now) { measurer_.Arrived(now); }
  // A move is arriving or settling, or a split is measured: windows end by
  // time too, at most this long (TrialMeasurer::window_seconds). 0: idle.
  double window_seconds() const { return measurer_.busy() ? measurer_.window_seconds() : 0; }
  // The M_a to move to: the current candidate, or `from` after the last.
  uint64_t MoveToNext();
  uint64_t MoveBack();
  // After a candidate's measure: moves on to the next candidate, if any.
  bool Advance() { return ++next_ < candidates_.size(); }
  // After a candidate's measure: measures it on for as long again
  // (TrialMeasurer::Extend); its measure completes anew.
  // REQUIRES: AddWindow just returned kCandidate with a measure neither
  // cut short nor extended.
  void ExtendCandidate();

  // The window [window_begin, now) with its busy thread time; `*measure`
  // is set when a measure completes.
  Measured AddWindow(const EventTotals& w, double busy_us, uint64_t window_begin, uint64_t now,
                     TrialMeasure* measure);

  uint64_t from() const { return from_; }
  const std::vector<uint64_t>& candidates() const { return candidates_; }
  const TrialMeasure& from_measure() const { return from_measure_; }
  // The candidates measured so far, in order.
  const std::vector<TrialMeasure>& measures() const { return measures_; }

 private:
  void Reset(uint64_t from, std::vector<uint64_t> candidates);

  TrialMeasurer measurer_;  // the split in place, once settled
  uint64_t from_ = 0;
  std::vector<uint64_t> candidates_;
  size_t next_ = 0;  // the candidate being tried
  TrialMeasure from_measure_;
  bool from_taken_ = false;
  std::vector<TrialMeasure> measures_;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_ONLINE_TRIAL_SEQUENCE_H_
