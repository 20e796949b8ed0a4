// Tracker: the Controller's state machine (paper §4.1.1), single-threaded
// and deterministic. It is fed cumulative event counts and decides when
// windows, rounds and resize steps begin and end, and what a round's
// predictions and a trial's measures decide. Its parts: the
// ChangeDetector (Stable's reference and its changes), the RoundRunner (a
// round's candidates and stages on a RoundSimulator, GhostSim in
// production, and their predictions), the TrialSequence (a trial's or a
// verification's measures in turn, each by a TrialMeasurer) and the
// CostEstimator (the miss costs and the CPU load).
// The states and policies are described in symbiosis/controller.h.
//
// Time is the number of application-cache accesses. An event is handled
// at the first Advance() at or after its deadline, so a window lasts at
// least window_accesses (the Controller calls Advance about every
// thousand accesses).

#ifndef SYMBIOSIS_ONLINE_TRACKER_H_
#define SYMBIOSIS_ONLINE_TRACKER_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "online/change_detector.h"
#include "online/cost_estimator.h"
#include "online/event_totals.h"
#include "online/round_runner.h"
#include "online/round_simulator.h"
#include "online/trial_measurer.h"
#include "online/trial_sequence.h"
#include "symbiosis/controller.h"

namespace symbiosis {

class Tracker {
 public:
  // REQUIRES: ValidateControllerConfig(config) passed; memory_bytes > 0
  // and >= config.default_ma_bytes; `simulator` outlives the Tracker.
  Tracker(const ControllerConfig& config, uint64_t memory_bytes, RoundSimulator* simulator);
  Tracker(const Tracker&) = delete;  // its parts call back into it
  Tracker& operator=(const Tracker&) = delete;

  // Handles whatever came due by totals.accesses, and by `now_ns` of the
  // steady clock (0: no clock; resize steps then come by accesses alone).
  // Returns true if the applied M_a changed (read it from ma_bytes()).
  bool Advance(const EventTotals& totals, uint64_t now_ns = 0);

  // The access count at which Advance next has work.
  uint64_t next_deadline() const;
  // Whether the totals at `accesses`, taken at `wall_ns` of the steady
  // clock, end a window (only window ends use the process times of
  // EventTotals, wall_ns among them).
  bool window_due(uint64_t accesses, uint64_t wall_ns) const {
    return accesses >= window_end_ || WindowTimedOut(wall_ns);
  }
  // Whether sampled accesses should be fed to the simulator now.
  bool simulating() const { return state_ == ControllerState::kAdapting; }
  // Whether they should be fed to the working-set probe: where M_a may be
  // 0, after a round, through its trials and the settle, and in Stable with
  // no application cache. The probe is cleared whenever probe_stretch()
  // changes, by the caller after the Advance that changed it.
  bool probing() const { return probing_; }
  uint64_t probe_stretch() const { return probe_stretch_; }
  uint64_t ma_bytes() const { return applied_; }
  // The most M_a moves in one resize step.
  uint64_t step_bytes() const { return step_bytes_; }
  uint64_t target_ma_bytes() const { return target_; }
  ControllerState state() const { return state_; }
  const MissCosts& costs() const { return estimator_.costs(); }

  // Everything but the Controller's own fields (ghost memory, ignored
  // events).
  ControllerStats Stats() const;

 private:
  // During a trial, how often (in accesses) a window's time is checked:
  // window_accesses / kClockChecks; during a move's walk, the step's time,
  // resize_step_accesses / kClockChecks.
  static constexpr uint64_t kClockChecks = 16;
  // Device reads per access closer than this are a tie.
  static constexpr double kTrialReadsStep = 0.005;
  // A read tie's winner predicts at most this share of the best's reads.
  static constexpr double kTieReadShare = 0.5;
  // The working-set probe counts over stretches of this many windows'
  // accesses (800,000 by default; windows that end by time are shorter),
  // resting kProbeRestWindows' accesses after each,
  // and a stretch that counts this share fewer blocks than the first one
  // starts a round.
  static constexpr uint32_t kProbeWindows = 8;
  static constexpr uint32_t kProbeRestWindows = 24;
  static constexpr double kProbeShrink = 0.25;

  // How a candidate (`t`: its busy and wall time against the current
  // split's at its time, and their noise) gained `share`: by busy time
  // beyond its noise, where `wall_ok` (its wall time is not trial_gain
  // slower than the caller's reference); else by wall time beyond its
  // noise, the busy time no more than trial_gain above
  // (docs/decisions/trial-metrics.md).
  enum class Gain { kNone, kBusy, kWall };
  Gain GainOf(const TrialStats& t, double share, bool wall_ok) const;
  // Whether `m` gained `share` on `than`, the wall time checked against
  // `than`'s.
  bool Gained(const TrialMeasure& m, const TrialMeasure& than, double share) const;
  // Whether m gained trial_gain on `than` by busy or wall time, but within
  // its noise.
  bool GainWithinNoise(const TrialMeasure& m, const TrialMeasure& than) const;
  // Whether wall time per access `x` (or a ratio of two) is slower than
  // `than` by more than trial_gain (docs/decisions/trial-metrics.md).
  bool WallSlower(double x, double than) const;
  double Latency(const WindowRatios& m) const;
  // What candidates are ranked by: A where the CPU load is measured,
  // else L_e (symbiosis/cost_model.h).
  double Score(const CandidateStats& c) const;
  // Whether m's L_e differs from the reference's beyond the change
  // threshold and the change floor (controller_config.h, change_floor).
  bool Changed(const WindowRatios& m, const WindowRatios& reference) const;
  void SetTarget(uint64_t bytes);
  bool StepDue() const;
  bool StepResize();
  void EndWindow(const EventTotals& totals);
  // A trial's bound on a window's time, in seconds; 0: none.
  double TrialWindowSeconds() const;
  bool WindowTimedOut(uint64_t wall_ns) const;
  void OnStableWindow(const WindowRatios& m);
  void UpdateProbe(const EventTotals& window);
  void StartProbeStretch();
  void OnRoundWindow(const WindowRatios& m);
  // `reset`: the reset policy applies (L_e rose in Stable or in a round).
  void StartRound(const std::string& trigger, bool reset);
  void FinishRound();
  // `rose`: L_e rose beyond the change threshold (the restart resets).
  void AbandonRound(const std::string& reason, bool rose);
  bool RoseAboveReference(const WindowRatios& m) const;
  void CloseRound();
  void EnterSettling();
  // Predicted device reads per access, and in steps of kTrialReadsStep.
  static double DeviceReads(const CandidateStats& c);
  static int64_t ReadsStep(const CandidateStats& c);
  // The candidate that wins best's tie (config_.read_tie_margin).
  size_t WinnerOfTie(size_t best) const;
  // What to try after a round that kept M_a, in order, `first` first.
  std::vector<uint64_t> TrialCandidates(const CandidateStats& current,
                                        std::optional<uint64_t> first) const;
  void StartTrial(std::vector<uint64_t> candidates);
  void MoveToNextTrial();
  void OnTrialWindow(const EventTotals& w, uint64_t window_begin);
  void AdvanceTrial();
  void MoveBackFromTrials();
  // `again`: the current M_a's measure after the trials, if they all ran.
  void EndTrials(const std::optional<TrialMeasure>& again);
  // Verifying (ControllerConfig::verify_moves). After a round's decision:
  // verifies its move if it needs it, else settles. `round_measure`: the
  // current M_a's busy time over the round, where the engine ran it.
  void AfterDecision(const std::optional<TrialMeasure>& round_measure);
  void StartVerification(const TrialMeasure& before_move);
  // `again`: the new split's second measure, when both were measured in
  // turn; none when the first measure passed, or the old split measured
  // trusted_gain faster at once.
  void EndVerification(const std::optional<TrialMeasure>& again);
  // After a move from `from` to `to` that measured faster (a verified
  // move that gained trial_gain, or a trial's keep): starts the trial of
  // its direction's end (ControllerConfig::try_direction_end) and returns
  // true, or returns false if there is none to try. `to_measure`: `to`'s
  // measure where it was just taken; else `to` is measured once settled.
  bool TryDirectionEnd(uint64_t from, uint64_t to, const std::optional<TrialMeasure>& to_measure);
  // The round's valid candidate farthest beyond `to` in the direction
  // from `from`, not rejected and not yet tried in the round.
  std::optional<uint64_t> DirectionEnd(uint64_t from, uint64_t to) const;
  // Busy thread time of the windows summed in `sum`, as a measure.
  std::optional<TrialMeasure> MeasureOf(const EventTotals& sum, uint64_t at) const;
  // Whether `c` is a split a verification undid or a far-end trial
  // refused (rejected_ma_).
  bool Rejected(const CandidateStats& c) const {
    return rejected_ma_ && c.ma_bytes == *rejected_ma_ && !c.current;
  }
  void NoteBusyWindow(const EventTotals& w, uint64_t window_begin);
  // Compares the first frozen reference after a round with what the round
  // measured at the M_a it left; returns whether that started a round.
  bool CheckAfterRound();

  const ControllerConfig config_;
  const DecisionSettings settings_;  // config_'s, unset ones resolved
  CostEstimator estimator_;  // the miss costs and the CPU load
  const uint64_t memory_bytes_;
  const uint64_t step_bytes_;
  RoundSimulator* const simulator_;

  ControllerState state_ = ControllerState::kSettling;
  uint64_t now_ = 0;
  EventTotals totals_;  // at the latest Advance

  // M_a: applied moves toward target one step per resize_step_accesses,
  // or per step_ns_ of the clock, whichever comes first.
  const uint64_t floor_bytes_;  // M * min_app_fraction, the lowest M_a
  const uint64_t step_ns_;      // 0: steps by accesses alone
  uint64_t applied_;
  uint64_t target_;
  uint64_t step_due_ = 0;
  uint64_t clock_ns_ = 0;       // the latest Advance's now_ns
  uint64_t step_taken_ns_ = 0;  // the clock at the last step (0: none seen)

  EventTotals window_start_;
  uint64_t window_end_;
  std::optional<WindowRatios> last_window_;

  // Stable.
  ChangeDetector detector_;  // Stable's reference and its changes
  uint64_t stable_since_ = 0;
  uint64_t no_round_until_ = 0;  // churn back-off
  // What the last round (or its trials) measured at the M_a it left.
  std::optional<WindowRatios> after_round_;
  // The last change_confirm_windows Stable windows at the applied M_a
  // (their process times): the split's measure should a round move it.
  std::deque<EventTotals> stable_windows_;
  // Where the round (and any round restarted after it) began: M_a, and
  // the measure from Stable's last windows there.
  uint64_t pre_round_ma_ = 0;
  std::optional<TrialMeasure> pre_round_measure_;
  // The round's windows at its configuration, once its warm-up is over.
  EventTotals round_busy_;
  uint64_t round_busy_from_ = 0;
  // A split a verification undid, or a model-off round's far end its trial
  // refused: not chosen again until Stable sees the workload change.
  std::optional<uint64_t> rejected_ma_;
  bool far_end_trial_ = false;  // the trials are a model-off round's far end
  // Verifying: the old split and its measure from before the move.
  uint64_t verify_from_ma_ = 0;
  TrialMeasure verify_from_;
  bool check_after_round_ = true;  // false for a round that check started
  // The working-set probe: on where M_a may be 0 and no round runs;
  // probing_ while a stretch counts.
  bool probe_on_ = false;
  bool probing_ = false;
  uint64_t probe_stretch_ = 0;
  uint64_t probe_accesses_ = 0;  // in the stretch or rest so far
  uint64_t probe_from_ = 0;     // the access the stretch began at
  std::optional<double> probe_reference_;  // the first stretch's count
  // Settling.
  uint64_t settle_end_ = 0;

  // Adapting.
  RoundStats round_;
  RoundRunner round_runner_;  // the round's candidates, stages and predictions
  std::optional<WindowRatios> round_baseline_;
  uint32_t round_rises_ = 0;  // windows in a row above round_baseline_
  uint32_t abandoned_in_row_ = 0;
  uint32_t unjudged_in_row_ = 0;  // rounds that could not use their predictions

  // Trying and Verifying: the split the round kept (or moved to), the
  // candidates, and their measures in turn.
  TrialSequence trials_;

  std::deque<RoundStats> history_;  // closed rounds, the most recent last
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_ONLINE_TRACKER_H_
