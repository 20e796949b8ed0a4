#include "online/trial_sequence.h"

#include <utility>

namespace symbiosis {

TrialSequence::TrialSequence(uint64_t settle_accesses, uint32_t windows, double min_seconds)
    : measurer_(settle_accesses, windows, min_seconds) {}

void TrialSequence::Reset(uint64_t from, std::vector<uint64_t> candidates) {
  from_ = from;
  candidates_ = std::move(candidates);
  next_ = 0;
  measures_.clear();
  from_taken_ = false;
}

void TrialSequence::Start(uint64_t now, uint64_t from, std::vector<uint64_t> candidates) {
  Reset(from, std::move(candidates));
  measurer_.MeasureFrom(now);
}

void TrialSequence::StartMoved(uint64_t from, std::vector<uint64_t> candidates,
                               const std::optional<TrialMeasure>& left) {
  Reset(from, std::move(candidates));
  measurer_.Move(left);
}

void TrialSequence::Continue(uint64_t now, uint64_t from, std::vector<uint64_t> candidates,
                             const TrialMeasure& from_measure) {
  const TrialMeasure measure = from_measure;  // may be from_measure_ itself
  Start(now, from, std::move(candidates));
  from_measure_ = measure;
  from_taken_ = true;
}

uint64_t TrialSequence::MoveToNext() {
  measurer_.Move(from_taken_ ? std::optional<TrialMeasure>(from_measure_) : std::nullopt);
  return candidates_[next_];
}

uint64_t TrialSequence::MoveBack() {
  measurer_.Move();
  return from_;
}

void TrialSequence::ExtendCandidate() {
  measures_.pop_back();
  measurer_.Extend();
}

TrialSequence::Measured TrialSequence::AddWindow(const EventTotals& w, double busy_us,
                                                 uint64_t window_begin, uint64_t now,
                                                 TrialMeasure* measure) {
  const std::optional<TrialMeasure> done = measurer_.AddWindow(w, busy_us, window_begin, now);
  if (!done) return Measured::kNone;
  *measure = *done;
  if (!from_taken_) {
    from_measure_ = *done;
    from_taken_ = true;
    return Measured::kFrom;
  }
  if (next_ == candidates_.size()) return Measured::kFromAgain;
  measures_.push_back(*done);
  return Measured::kCandidate;
}

}  // namespace symbiosis
