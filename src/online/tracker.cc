#include "online/tracker.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace symbiosis {
namespace {

constexpr size_t kHistory = 64;  // rounds kept for Stats()

std::string Format(const char* format, double a, double b = 0, double c = 0) {
  char text[160];
  std::snprintf(text, sizeof text, format, a, b, c);
  return text;
}

std::string MiB(uint64_t bytes) { return Format("%.1f MiB", bytes / 1048576.0); }

// A candidate's measure `m` against the current split's `than`: busy and
// wall time per access and the noise of each difference.
TrialStats Compared(const TrialMeasure& m, const TrialMeasure& than) {
  TrialStats t;
  t.before = than.busy_us;
  t.after = m.busy_us;
  t.before_wall_us = than.wall_us;
  t.after_wall_us = m.wall_us;
  t.noise_us = BusyNoiseUs(m, than);
  t.wall_noise_us = WallNoiseUs(m, than);
  t.cut_short = m.cut_short;
  t.extended = m.extended;
  return t;
}

void Append(uint64_t ma_bytes, std::vector<uint64_t>* trials) {
  if (std::find(trials->begin(), trials->end(), ma_bytes) == trials->end()) {
    trials->push_back(ma_bytes);
  }
}

// An unset tie margin is none; an unset part floor is change_floor.
DecisionSettings Resolve(const ControllerConfig& c) {
  DecisionSettings s;
  s.min_app_fraction = c.min_app_fraction;
  s.read_tie_margin = c.read_tie_margin.value_or(0);
  s.change_floor_on_parts = c.change_floor_on_parts.value_or(false);
  s.change_floor = c.change_floor;
  s.app_miss_change_floor = c.app_miss_change_floor.value_or(c.change_floor);
  s.device_read_change_floor = c.device_read_change_floor.value_or(c.change_floor);
  return s;
}

// A resize step's bound in time: a walk across the whole budget arrives
// within trial_min_seconds, the least a move's settle block lasts
// (docs/decisions/resize-step-time.md).
uint64_t StepNs(const ControllerConfig& config, uint64_t memory_bytes, uint64_t step_bytes) {
  const double steps = std::ceil(static_cast<double>(memory_bytes) /
                                 static_cast<double>(std::max<uint64_t>(step_bytes, 1)));
  return static_cast<uint64_t>(config.trial_min_seconds * 1e9 / std::max(steps, 1.0));
}

}  // namespace

Tracker::Tracker(const ControllerConfig& config, uint64_t memory_bytes,
                 RoundSimulator* simulator)
    : config_(config),
      settings_(Resolve(config)),
      estimator_(config),
      memory_bytes_(memory_bytes),
      step_bytes_(config.resize_step_bytes ? config.resize_step_bytes
                                           : std::max<uint64_t>(memory_bytes / 16, 1)),
      simulator_(simulator),
      floor_bytes_(static_cast<uint64_t>(config.min_app_fraction * memory_bytes)),
      step_ns_(StepNs(config, memory_bytes, step_bytes_)),
      applied_(std::clamp(config.initial_ma_bytes, floor_bytes_, memory_bytes)),
      target_(applied_),
      window_end_(config.window_accesses),
      detector_(config.change_base_windows, config.change_confirm_windows,
                [this](const WindowRatios& m) { return Latency(m); },
                [this](const WindowRatios& m, const WindowRatios& reference) {
                  return Changed(m, reference);
                }),
      round_runner_(config_, simulator, &estimator_),
      trials_(config.settle_accesses, config.trial_windows, config.trial_min_seconds) {
  if (config.start_with_round) {
    StartRound("start", false);
  } else {
    EnterSettling();
  }
}

double Tracker::Latency(const WindowRatios& m) const {
  return ExpectedLatency(m.hit_app, m.hit_second_tier, costs(), m.stores);
}

double Tracker::Score(const CandidateStats& c) const {
  return estimator_.cpu_load_measured() ? c.predicted_access_time : c.predicted_latency;
}

// The floor is a share of C_a + C_k, or, with change_floor_on_parts, on
// L_e's two parts: the application misses and the device reads per
// access, a change below the floor in both being noise. The two agree
// where both parts move, but with every read a page-cache hit and device
// reads measured at 120 us the share took H_a from 0.20 to 0.38 at 8 MiB
// for noise, a layout 1.6x faster (LevelDB's hotspot20 2M -> M;
// docs/decisions/change-floor.md). At a page-cache cliff the device reads
// swing by half a point from window to window, and stay noise. Each part
// may have a floor of its own (app_miss_change_floor,
// device_read_change_floor): WiredTiger's H_a swings by 7-10 points, and
// under glibc's heap its device reads by two at the cliff.
bool Tracker::Changed(const WindowRatios& m, const WindowRatios& reference) const {
  const double at = Latency(reference);
  const double delta = std::fabs(Latency(m) - at);
  if (delta <= config_.change_threshold * at) return false;
  if (!settings_.change_floor_on_parts) {
    return delta > config_.change_floor * (costs().app_miss + costs().second_tier_miss);
  }
  const double app = std::fabs(m.hit_app - reference.hit_app);
  const double device = std::fabs(DeviceReadsPerAccess(m.hit_app, m.hit_second_tier) -
                                  DeviceReadsPerAccess(reference.hit_app, reference.hit_second_tier));
  return app > settings_.app_miss_change_floor || device > settings_.device_read_change_floor;
}

// While a trial or a verification runs, a window also ends by time: its
// settle blocks and measures are bounded in time, and where a split serves
// a few thousand accesses a second a window of window_accesses lasts 15 s
// or more, so a block or a measure of whole windows did too
// (docs/decisions/trial-settle.md, trial-measure.md).
double Tracker::TrialWindowSeconds() const {
  if (state_ != ControllerState::kTrying && state_ != ControllerState::kVerifying) return 0;
  return trials_.window_seconds();
}

bool Tracker::WindowTimedOut(uint64_t wall_ns) const {
  const double seconds = TrialWindowSeconds();
  return seconds > 0 && wall_ns > 0 && window_start_.wall_ns > 0 &&
         wall_ns >= window_start_.wall_ns + static_cast<uint64_t>(seconds * 1e9);
}

uint64_t Tracker::next_deadline() const {
  uint64_t t = window_end_;
  if (TrialWindowSeconds() > 0) {
    t = std::min(t, now_ + std::max<uint64_t>(config_.window_accesses / kClockChecks, 1));
  }
  if (applied_ != target_) {
    t = std::min(t, step_due_);
    // The clock is looked at as a window's is during a trial.
    if (step_ns_ > 0 && step_taken_ns_ > 0) {
      t = std::min(t, now_ + std::max<uint64_t>(config_.resize_step_accesses / kClockChecks, 1));
    }
  }
  if (state_ == ControllerState::kSettling) t = std::min(t, settle_end_);
  if (state_ == ControllerState::kAdapting) t = std::min(t, round_runner_.stage_end());
  if (state_ == ControllerState::kStable && config_.resimulate_accesses > 0) {
    t = std::min(t, std::max(stable_since_ + config_.resimulate_accesses, no_round_until_));
  }
  return t;
}


bool Tracker::Advance(const EventTotals& totals, uint64_t now_ns) {
  now_ = std::max(now_, totals.accesses);
  totals_ = totals;
  clock_ns_ = std::max(clock_ns_, now_ns);
  bool changed = false;
  if (applied_ != target_ && StepDue()) changed = StepResize();
  if (now_ >= window_end_ || WindowTimedOut(totals.wall_ns)) EndWindow(totals);
  switch (state_) {
    case ControllerState::kSettling:
      if (now_ >= settle_end_ && applied_ == target_) {
        state_ = ControllerState::kStable;
        detector_.Reset();
        stable_since_ = now_;
      }
      break;
    case ControllerState::kAdapting:
      if (now_ >= round_runner_.stage_end() &&
          round_runner_.EndStage(now_, totals_,
                                 applied_ != target_ ? std::optional<uint64_t>(step_due_)
                                                     : std::nullopt,
                                 &round_)) {
        FinishRound();
      }
      break;
    case ControllerState::kTrying:
    case ControllerState::kVerifying:
      AdvanceTrial();
      break;
    case ControllerState::kStable:
      if (config_.resimulate_accesses > 0 && now_ >= no_round_until_ &&
          now_ >= stable_since_ + config_.resimulate_accesses) {
        StartRound(Format("periodic re-simulation after %.0f stable accesses",
                          static_cast<double>(config_.resimulate_accesses)),
                   false);
      }
      break;
  }
  // A round or a decision may have set a new target: its first step is now.
  if (applied_ != target_ && StepDue()) changed = StepResize() || changed;
  return changed;
}

void Tracker::SetTarget(uint64_t bytes) {
  if (bytes != target_ && applied_ == target_) step_due_ = now_;
  if (bytes != target_) stable_windows_.clear();
  target_ = bytes;
}

bool Tracker::StepDue() const {
  return now_ >= step_due_ || (step_ns_ > 0 && step_taken_ns_ > 0 &&
                               clock_ns_ >= step_taken_ns_ + step_ns_);
}

// Moves M_a one step toward the target, so that a shrink never drops the
// whole cache at once (the reference implementation flushed it).
bool Tracker::StepResize() {
  if (applied_ < target_) {
    applied_ = target_ - applied_ > step_bytes_ ? applied_ + step_bytes_ : target_;
  } else {
    applied_ = applied_ - target_ > step_bytes_ ? applied_ - step_bytes_ : target_;
  }
  step_due_ = now_ + config_.resize_step_accesses;
  step_taken_ns_ = clock_ns_;
  if (applied_ == target_ && state_ == ControllerState::kSettling) {
    settle_end_ = std::max(settle_end_, now_ + config_.settle_accesses);
  }
  return true;
}

void Tracker::EndWindow(const EventTotals& totals) {
  const EventTotals w = Since(window_start_, totals);
  const uint64_t window_begin = window_start_.accesses;
  window_start_ = totals;
  window_end_ = now_ + config_.window_accesses;
  if (w.accesses == 0) return;

  estimator_.AddWindow(w);
  NoteBusyWindow(w, window_begin);
  const WindowRatios m = RatiosOf(w);
  last_window_ = m;
  if (state_ == ControllerState::kStable) OnStableWindow(m);
  else if (state_ == ControllerState::kAdapting) OnRoundWindow(m);
  else if (state_ == ControllerState::kTrying || state_ == ControllerState::kVerifying) {
    OnTrialWindow(w, window_begin);
  }
  UpdateProbe(w);
}


// What a move is judged against: the busy thread time per access at the
// split it left. In Stable, the last change_confirm_windows windows at the
// applied M_a (those that saw a change, when one starts the round); in a
// round, its windows at the configuration it runs, once the warm-up is
// over.
void Tracker::NoteBusyWindow(const EventTotals& w, uint64_t window_begin) {
  if (w.wall_ns == 0 || applied_ != target_) return;
  if (state_ == ControllerState::kStable) {
    stable_windows_.push_back(w);
    while (stable_windows_.size() > config_.change_confirm_windows) stable_windows_.pop_front();
  } else if (state_ == ControllerState::kAdapting && round_runner_.warmed_up()) {
    if (round_busy_.accesses == 0) round_busy_from_ = window_begin;
    Accumulate(&round_busy_, w);
  }
}

std::optional<TrialMeasure> Tracker::MeasureOf(const EventTotals& sum,
                                                        uint64_t at) const {
  if (sum.accesses == 0 || sum.wall_ns == 0) return std::nullopt;
  TrialMeasure m;
  m.busy_us = estimator_.BusyThreadUs(sum) / sum.accesses;
  m.wall_us = sum.wall_ns / 1e3 / sum.accesses;
  m.at = at;
  m.ratios = RatiosOf(sum);
  return m;
}

// Busy thread time leaves out threads asleep: on a lock, on the engine's
// own eviction, on a device read beyond its measured mean. Where they
// sleep more at one split than another, the wall clock shows it and busy
// time does not: in WiredTiger's hotspot10 with sixteen readers, 16.5 MiB
// measured 13% less busy time per access than 30 MiB and served 25-35%
// fewer operations per second (7-8 of the 16 threads busy). So a change
// of split must also not make the wall time per access, the inverse of
// the throughput, worse by more than trial_gain. Where the load is offered
// from outside, the wall time per access follows it alike at every split,
// and busy time decides alone (docs/decisions/trial-metrics.md).
bool Tracker::WallSlower(double x, double than) const {
  return x > 0 && than > 0 && x > (1 + config_.trial_gain) * than;
}

Tracker::Gain Tracker::GainOf(const TrialStats& t, double share, bool wall_ok) const {
  const double busy = t.before - t.after;
  const double wall = t.before_wall_us - t.after_wall_us;
  if (wall_ok && busy >= share * t.before && busy > t.noise_us) return Gain::kBusy;
  if (t.before_wall_us > 0 && t.after_wall_us > 0 && wall >= share * t.before_wall_us &&
      wall > t.wall_noise_us && t.after <= (1 + config_.trial_gain) * t.before) {
    return Gain::kWall;
  }
  return Gain::kNone;
}

bool Tracker::Gained(const TrialMeasure& m, const TrialMeasure& than, double share) const {
  return GainOf(Compared(m, than), share, !WallSlower(m.wall_us, than.wall_us)) != Gain::kNone;
}

// A gain of trial_gain that its windows' noise hides is undecided, not
// refused: the candidate is measured for as long again, which shrinks the
// noise by about a third, and judged on the whole. The wait is spent at a
// split that measured faster (docs/decisions/trial-extension.md).
bool Tracker::GainWithinNoise(const TrialMeasure& m, const TrialMeasure& than) const {
  const TrialStats t = Compared(m, than);
  const bool wall_ok = !WallSlower(m.wall_us, than.wall_us);
  TrialStats noiseless = t;
  noiseless.noise_us = 0;
  noiseless.wall_noise_us = 0;
  return GainOf(t, config_.trial_gain, wall_ok) == Gain::kNone &&
         GainOf(noiseless, config_.trial_gain, wall_ok) != Gain::kNone;
}

// Stable's windows go to the change detector (change_detector.h); a change
// starts a round, with the reset policy if L_e rose.
void Tracker::OnStableWindow(const WindowRatios& m) {
  switch (detector_.Add(m)) {
    case ChangeDetector::Verdict::kNone:
      return;
    case ChangeDetector::Verdict::kFrozen:
      CheckAfterRound();
      return;
    case ChangeDetector::Verdict::kChanged:
      break;
  }
  if (now_ < no_round_until_) {  // backing off after churn: just re-anchor
    detector_.Reanchor(m);
    return;
  }
  const double latency = Latency(m);
  const double reference = Latency(*detector_.reference());
  const bool rose = latency > reference;
  rejected_ma_.reset();  // the workload changed: an undone split may be right now
  StartRound(std::string("L_e ") + (rose ? "rose" : "fell") +
                 Format(" from %.3g to %.3g", reference, latency),
             rose);
}

// A change that comes during a round or its trials is in neither what they
// measured nor the reference frozen after them, which follows L_e from the
// first window after the resize. In LevelDB's hotspot20 the data set shrank
// from 2M to M while the trials ran; they kept 16 MiB, measured at H_a 0.38,
// Stable froze its reference at H_a 0.68 and started no round, where M_a = M
// ran 2x faster (docs/decisions/change-detection.md). So the first reference
// after a round that measured the M_a it left is compared with that measure,
// and a change beyond the threshold starts a round. Once: that round's own
// measures are not checked, so caches still warming cannot chain rounds.
// Its round keeps the current split, even on a rise: the measure compared
// was taken at a split the round or its trials measured against the one
// they left, in caches still filling after the move, so the difference
// mixes their warm-up with a change, and a reset would undo a measured
// move on it (docs/decisions/change-detection.md).
bool Tracker::CheckAfterRound() {
  if (!after_round_) return false;
  const WindowRatios after = *after_round_;
  after_round_.reset();
  const double measured = Latency(after);
  const WindowRatios& frozen = *detector_.reference();
  const double reference = Latency(frozen);
  if (now_ < no_round_until_ || !Changed(frozen, after)) return false;
  const bool rose = reference > measured;
  StartRound(std::string("L_e ") + (rose ? "rose" : "fell") +
                 Format(" from %.3g, measured by the last round at this M_a, to %.3g", measured,
                        reference),
             /*reset=*/false);
  check_after_round_ = false;
  return true;
}

// With no application cache and no device reads every access is a page-cache
// hit, and L_e cannot tell a working set that shrank to what M_a = M would
// hold: in LevelDB's hotspot20, 2M -> M, a run that kept 0 MiB ran its
// second phase at half of static-max's speed
// (docs/decisions/working-set-probe.md). So at M_a = 0 Stable counts the
// distinct sampled blocks accessed in stretches of kProbeWindows windows,
// and a stretch that counts kProbeShrink fewer than the first starts a
// round. A grown working set needs no probe: it grows the device reads, or
// leaves M_a = 0 right. The count does not depend on what the caches hold,
// so the probe runs from the end of a round on, through its trials and the
// settle: that run had shrunk its working set during the trials, which kept
// 0 MiB, and a first stretch taken in Stable would have been the shrunk one.
// An engine whose floor is above 0 (WiredTiger) never needs it.
//
// Counting costs a hash per access, and a bit of a 4 KiB map per sampled
// one: in uniform 0.4, where LevelDB serves 440,000 reads per second from
// the page cache, a probe that counted throughout cost 1.6%. So it counts
// one stretch, then rests for kProbeRestWindows windows: the cost falls by
// the cycle's share, and a shrink is seen at most a cycle later.
void Tracker::UpdateProbe(const EventTotals& w) {
  const bool stable = state_ == ControllerState::kStable;
  if (floor_bytes_ != 0 || state_ == ControllerState::kAdapting ||
      (stable && (applied_ != 0 || target_ != 0))) {
    probe_on_ = false;
    probing_ = false;
    return;
  }
  if (!probe_on_) {  // the first stretch counts from here
    probe_on_ = true;
    probe_reference_.reset();
    StartProbeStretch();
    return;
  }
  probe_accesses_ += w.accesses;
  if (!probing_) {
    if (probe_accesses_ >= kProbeRestWindows * config_.window_accesses) StartProbeStretch();
    return;
  }
  if (probe_accesses_ < kProbeWindows * config_.window_accesses) return;
  const double distinct = w.probe_distinct;
  const double accesses = static_cast<double>(now_ - probe_from_);
  probing_ = false;  // rests
  probe_accesses_ = 0;
  if (!probe_reference_ || now_ < no_round_until_) {
    probe_reference_ = distinct;
    return;
  }
  if (!stable || distinct >= (1 - kProbeShrink) * *probe_reference_) return;
  rejected_ma_.reset();
  StartRound(Format("the working set shrank from %.0f to %.0f sampled blocks in %.0f accesses",
                    *probe_reference_, distinct, accesses),
             false);
  probe_on_ = false;
}

// The caller clears the probe when probe_stretch() changes.
void Tracker::StartProbeStretch() {
  probing_ = true;
  probe_accesses_ = 0;
  probe_from_ = now_;
  ++probe_stretch_;
}

// During a round the engine runs one configuration, so its L_e should
// hold still; it may fall while the caches warm after a reset (the
// baseline follows it down), but a rise beyond the change threshold in
// change_confirm_windows windows in a row means the workload changed
// under the round, which makes its predictions stale. One window is not
// enough, as in Stable: the baseline is the round's lowest window, and at
// a page-cache cliff the next one read 20% above it, abandoning a round
// and resetting M_a to the floor for 25 s (WiredTiger's zipfian at 0.8;
// docs/decisions/change-detection.md).
void Tracker::OnRoundWindow(const WindowRatios& m) {
  if (!round_runner_.warmed_up()) return;
  // Every candidate measured over the accesses the engine ran: a rise at
  // the split in place is in all their counts, and the model's check of
  // that split against the engine, then the first reference after the
  // round, judge it. Abandoning threw away rounds of a million accesses
  // whose L_e rose with compactions (docs/decisions/change-detection.md).
  if (simulator_->AllCandidatesAtOnce()) return;
  const double latency = Latency(m);
  if (!round_baseline_ || latency < Latency(*round_baseline_)) {
    round_baseline_ = m;
    round_rises_ = 0;
    return;
  }
  const double baseline = Latency(*round_baseline_);
  if (!(latency > baseline && Changed(m, *round_baseline_))) {
    round_rises_ = 0;
    return;
  }
  if (++round_rises_ < config_.change_confirm_windows) return;
  AbandonRound(Format("L_e rose from %.3g to %.3g during the round", baseline, latency),
               RoseAboveReference(m));
}

// The reset policy is for a rise of L_e. A round that began on a fall, or a
// re-simulation, has its lowest window at the dip, and coming back up from it
// is no rise unless L_e also exceeds the Stable reference from before the
// round: at a page-cache cliff such returns sent M_a to the floor for 25 s
// (docs/decisions/change-detection.md). Without a reference (the first round)
// a rise is taken as one.
bool Tracker::RoseAboveReference(const WindowRatios& m) const {
  const std::optional<WindowRatios>& reference = detector_.reference();
  if (!reference) return true;
  return Latency(m) > Latency(*reference) && Changed(m, *reference);
}

void Tracker::StartRound(const std::string& trigger, bool reset) {
  if (state_ != ControllerState::kAdapting) {  // not a restart: the split it may move from
    pre_round_ma_ = target_;
    EventTotals sum;
    for (const EventTotals& w : stable_windows_) Accumulate(&sum, w);
    pre_round_measure_ = MeasureOf(sum, now_);
  }
  stable_windows_.clear();
  round_busy_ = EventTotals{};
  state_ = ControllerState::kAdapting;
  after_round_.reset();
  check_after_round_ = true;
  round_ = RoundStats{};
  round_.start_access = now_;
  round_.trigger = trigger;
  const uint64_t reset_bytes = std::max(config_.default_ma_bytes, floor_bytes_);
  if (reset && config_.reset_on_rise && target_ > reset_bytes) {
    round_.reset = true;
    SetTarget(reset_bytes);
  }
  round_runner_.Start(now_, floor_bytes_, memory_bytes_, target_, &round_);
  round_baseline_.reset();
  round_rises_ = 0;
}

// The decision (paper §4.2.4, with the reference implementation's weak
// spots fixed): predictions are compared with the ghost's own prediction
// for the current configuration, so a bias common to all cancels; and
// they are used only if that prediction agrees with the engine's measured
// L_e, which catches behaviour the model lacks (the paper's example: a
// strided scan that the kernel's read-ahead serves and a model without it
// would not).
void Tracker::FinishRound() {
  // The application ghost's counts grew over the whole round, and costs
  // may have been re-measured: score every candidate anew.
  round_runner_.PredictAll(&round_);
  // The engine ran the current M_a over exactly the accesses the ghost
  // measured it on.
  const std::optional<WindowRatios>& current_measured = round_runner_.current_measured();
  const WindowRatios measured = current_measured.value_or(WindowRatios{});
  const size_t current_index = round_runner_.current_index();
  const CandidateStats& current = round_.candidates[current_index];
  round_.measured_latency = Latency(measured);
  round_.simulated_latency = current.predicted_latency;
  round_.adopted_ma_bytes = target_;
  round_.decision = "rejected";

  const double floor = config_.change_floor * (costs().app_miss + costs().second_tier_miss);
  size_t best = current_index;
  for (size_t i = 0; i < round_.candidates.size(); i++) {
    const CandidateStats& c = round_.candidates[i];
    if (c.valid && !Rejected(c) && Score(c) < Score(round_.candidates[best])) best = i;
  }
  const size_t scored_best = best;
  best = WinnerOfTie(best);
  const CandidateStats& winner = round_.candidates[best];
  const std::string score = estimator_.cpu_load_measured() ? "A" : "L_e";
  std::vector<uint64_t> trials;
  const bool model_off = std::fabs(round_.simulated_latency - round_.measured_latency) >
                         config_.model_tolerance * std::max(round_.measured_latency, floor);
  // No prediction can be used (max_unjudged_rounds).
  const bool unjudged = !current.valid || model_off;
  if (!current.valid) {
    round_.reason = Format("too few sampled accesses for the current M_a (%.0f < %.0f): "
                           "too little of the workload falls in the sample",
                           static_cast<double>(current.samples),
                           static_cast<double>(config_.min_samples));
  } else if (model_off) {
    round_.reason = Format("the model is off for this workload: it predicts L_e %.3g for the "
                           "current M_a, the engine measured %.3g",
                           round_.simulated_latency, round_.measured_latency);
    // The model cannot rank the candidates; measurements still can. The
    // end of the range farther from the current M_a (M, or the floor) is
    // tried: the layout least like the current one, whose difference
    // shows beyond the noise soonest (docs/decisions/model-off-trial.md).
    if (estimator_.cpu_load_measured() && config_.trial_band > 0) {
      const CandidateStats& low = round_.candidates.front();
      const CandidateStats& high = round_.candidates.back();
      const CandidateStats& far =
          high.ma_bytes - current.ma_bytes >= current.ma_bytes - low.ma_bytes ? high : low;
      if (!far.current && !far.overcommits && !Rejected(far)) {
        round_.reason += "; the far end of the range, M_a " + MiB(far.ma_bytes) + ", is tried";
        trials.push_back(far.ma_bytes);
        far_end_trial_ = true;
      }
    }
  } else if (best == current_index ||
             Score(winner) > (1 - config_.gain_threshold) * Score(current)) {
    round_.reason = Format("no candidate gains %.0f%%: the best predicts ",
                           100 * config_.gain_threshold) +
                    score + Format(" %.3g against %.3g now", Score(winner), Score(current)) +
                    " (M_a " + MiB(winner.ma_bytes) + ")";
    if (estimator_.cpu_load_measured() && config_.trial_band > 0) {
      std::optional<uint64_t> first;
      if (best != current_index && Score(winner) <= (1 - config_.trial_gain) * Score(current)) {
        round_.reason += Format(", at least the trial gain %.0f%%: tried first",
                                100 * config_.trial_gain);
        first = winner.ma_bytes;
      }
      trials = TrialCandidates(current, first);
    }
  } else {
    round_.reason = "M_a " + MiB(winner.ma_bytes) + " predicts " + score +
                    Format(" %.3g, %.0f%% below the current %.3g", Score(winner),
                           100 * (1 - Score(winner) / Score(current)), Score(current));
    if (estimator_.cpu_load_measured() && config_.trial_band > 0 &&
        Score(winner) > (1 - config_.trusted_gain) * Score(current)) {
      round_.reason += Format(", under the trusted %.0f%%: tried first", 100 * config_.trusted_gain);
      trials = TrialCandidates(current, winner.ma_bytes);
    } else {
      round_.decision = "adopted";
      round_.adopted_ma_bytes = winner.ma_bytes;
      SetTarget(winner.ma_bytes);
    }
  }
  if (best != scored_best) {
    const CandidateStats& scored = round_.candidates[scored_best];
    round_.reason += " (M_a " + MiB(scored.ma_bytes) + " scores " + score +
                     Format(" %.3g, within %.0f%%, with more device reads: a tie, the fewer reads win)",
                            Score(scored), 100 * settings_.read_tie_margin);
  }
  abandoned_in_row_ = 0;
  unjudged_in_row_ = unjudged ? unjudged_in_row_ + 1 : 0;
  if (unjudged_in_row_ >= config_.max_unjudged_rounds) {
    unjudged_in_row_ = 0;
    no_round_until_ = now_ + config_.churn_backoff_accesses;
    round_.reason += Format("; %.0f rounds in a row could not judge, no round for %.0f accesses",
                            static_cast<double>(config_.max_unjudged_rounds),
                            static_cast<double>(config_.churn_backoff_accesses));
  }
  const bool stays = round_.decision != "adopted";
  const std::optional<TrialMeasure> round_measure =
      MeasureOf(round_busy_, round_busy_from_ + (now_ - round_busy_from_) / 2);
  CloseRound();
  if (trials.empty() && stays && check_after_round_ && current_measured) {
    after_round_ = current_measured;
  }
  if (!trials.empty()) {
    StartTrial(std::move(trials));
  } else {
    AfterDecision(round_measure);
  }
}

double Tracker::DeviceReads(const CandidateStats& c) {
  return DeviceReadsPerAccess(c.hit_app, c.hit_second_tier);
}

int64_t Tracker::ReadsStep(const CandidateStats& c) {
  return static_cast<int64_t>(std::floor(DeviceReads(c) / kTrialReadsStep));
}

// Scores a few percent apart do not rank a candidate that adds device
// reads above one that does not: near a cliff the model's H_k errs by
// more than that (controller_config.h, read_tie_margin). Only a cliff's: a
// candidate ties with the best if it at most halves the best's reads.
// Where every candidate reads about as much, the error is elsewhere: in
// RocksDB's hotspot10 at M/D_u 0.2, 40 MiB predicted 0.083 reads per
// access within 3% of 64 MiB's 0.094, measured 0.092 and ran 1.21x
// slower; at 0.8, 32 MiB's 0.0003 against 40's 0.01 was the cliff
// (docs/decisions/read-tie-margin.md).
size_t Tracker::WinnerOfTie(size_t best) const {
  const double margin = settings_.read_tie_margin;
  if (margin <= 0) return best;
  const double tied = (1 + margin) * Score(round_.candidates[best]);
  const double reads = kTieReadShare * DeviceReads(round_.candidates[best]);
  size_t winner = best;
  for (size_t i = 0; i < round_.candidates.size(); i++) {
    const CandidateStats& c = round_.candidates[i];
    const CandidateStats& w = round_.candidates[winner];
    if (!c.valid || Rejected(c) || Score(c) > tied || (i != best && DeviceReads(c) > reads)) {
      continue;
    }
    if (ReadsStep(c) < ReadsStep(w) || (ReadsStep(c) == ReadsStep(w) && Score(c) < Score(w))) {
      winner = i;
    }
  }
  return winner;
}

// The candidates the model cannot rule out: valid, another M_a, and a
// score within the trial band of the current one's. The model's error is
// largest for those that save device reads: a device read costs more than
// its per-event price (the reclaim, page-cache LRU work and interrupts
// around it slow the hits too), so they go first, and at most max_trials.
// Device reads per access that differ by less than kTrialReadsStep count
// as equal. Among equals the model's score does not decide: where the page
// cache holds the data at every candidate, what the model gets wrong is
// the block cache's own work (an insert and an eviction per miss, which
// its C_a, measured at the current M_a, does not separate) and that work's
// cost grows or shrinks with the cache, so the best of a tie is one of its
// ends. In LevelDB's uniform cell at 0.6 no block cache ran 1.18x faster
// than 8 MiB, which the model scored 2% worse; in hotspot10 at 1.0 the
// whole budget ran 1.18x faster than the 16 MiB a smaller-first order
// tried and kept (docs/decisions/trial-band.md). So a tie is tried
// from its ends inward: the smallest, the largest, the next smallest...
//
// `first` goes before them all: the round's winner where it predicts at
// least the trial gain, whatever its reads. The order by a tie's ends
// never reached the middle of a wide tie, where the model's best lay: in
// RocksDB's hotspot10 at M/D_u 0.8 the round ranked 32 MiB best by 8%,
// the oracle there, and tried 16 and 40.
std::vector<uint64_t> Tracker::TrialCandidates(const CandidateStats& current,
                                               std::optional<uint64_t> first) const {
  std::vector<const CandidateStats*> band;
  for (const CandidateStats& c : round_.candidates) {
    if (c.valid && c.ma_bytes != target_ && !Rejected(c) &&
        Score(c) <= (1 + config_.trial_band) * Score(current)) {
      band.push_back(&c);
    }
  }
  std::stable_sort(band.begin(), band.end(), [&](const CandidateStats* a, const CandidateStats* b) {
    if (ReadsStep(*a) != ReadsStep(*b)) return ReadsStep(*a) < ReadsStep(*b);
    return a->ma_bytes < b->ma_bytes;
  });
  std::vector<uint64_t> trials;
  if (first) trials.push_back(*first);
  for (size_t from = 0; from < band.size() && trials.size() < config_.max_trials;) {
    size_t last = from;
    while (last + 1 < band.size() && ReadsStep(*band[last + 1]) == ReadsStep(*band[from])) ++last;
    size_t lo = from, hi = last;
    while (lo <= hi && trials.size() < config_.max_trials) {
      Append(band[lo++]->ma_bytes, &trials);
      if (lo <= hi && trials.size() < config_.max_trials) Append(band[hi--]->ma_bytes, &trials);
    }
    from = last + 1;
  }
  return trials;
}

// A trial measures what the model predicts from per-event costs: the busy
// thread time per access (CPU, run-queue wait, device wait; T / X in
// cost_model.h's terms) at the current M_a, then at each candidate's once
// its caches settled. The costs are per event and measured in the current
// state, but device reads also slow the page-cache hits and the CPU work
// around them (interrupts, reclaim, the LRU): in LevelDB's uniform cell at
// 0.4 a run with no block cache served every read from the page cache at
// 4.4 us of CPU per access, where the costs measured at 8 MiB predicted
// 12.4. The candidates run in turn and the fastest stays if it gained
// trial_gain: the first to gain is not always the best (hotspot10 at 1.0;
// docs/decisions/trial-band.md).
//
// The machine does not stand still while they run: a shared host's other
// tenants change a vCPU's speed by several percent within seconds, and the
// measures of one trial sequence drifted one way throughout it (LevelDB's
// zipfian 0.6: 14.0, 15.0, 15.4 us in one run, 15.1, 14.3, 13.6 in the next;
// side by side the layouts differed by 5 to 16%;
// docs/decisions/trial-measure.md). So the current M_a is measured again
// after the candidates, and each candidate is compared with the current M_a's
// time interpolated to its own: a linear drift cancels, as in an A B A
// comparison.
// The trials run after a round, without simulating; the workload is
// assumed steady for their length.
void Tracker::StartTrial(std::vector<uint64_t> candidates) {
  state_ = ControllerState::kTrying;
  trials_.Start(now_, target_, std::move(candidates));
}

void Tracker::AdvanceTrial() {
  if (applied_ == target_) trials_.Arrived(now_);
}

void Tracker::MoveToNextTrial() { SetTarget(trials_.MoveToNext()); }

void Tracker::MoveBackFromTrials() { SetTarget(trials_.MoveBack()); }

// Windows measure the M_a in place: the current one (kBefore), each
// candidate in turn, then the current one again (kAfter throughout).
//
// A candidate that measures trusted_gain below the current M_a's first
// measure stays at once: a gain the model would be trusted with is no
// drift, and the remaining trials would only cost time. In LevelDB's
// hotspot20, after the data set shrank to M, M_a = M ran 2x faster than
// the 16 MiB in place, where the model predicted 19%; the trials of 8 MiB
// and of 16 again would have taken another 12 s
// (docs/decisions/trusted-gain.md).
void Tracker::OnTrialWindow(const EventTotals& w, uint64_t window_begin) {
  TrialMeasure measure;
  switch (trials_.AddWindow(w, estimator_.BusyThreadUs(w), window_begin, now_, &measure)) {
    case TrialSequence::Measured::kNone:
      return;
    case TrialSequence::Measured::kFrom:
      if (state_ == ControllerState::kVerifying &&
          measure.busy_us <= (1 + config_.trial_gain) * verify_from_.busy_us &&
          !WallSlower(measure.wall_us, verify_from_.wall_us)) {
        EndVerification(std::nullopt);  // no slower than the split it replaced
        return;
      }
      MoveToNextTrial();
      return;
    case TrialSequence::Measured::kFromAgain:
      EndTrials(measure);
      return;
    case TrialSequence::Measured::kCandidate:
      break;
  }
  const std::vector<TrialMeasure>& measured = trials_.measures();
  if (Gained(measure, trials_.from_measure(), config_.trusted_gain)) {
    EndTrials(std::nullopt);
  } else if (state_ == ControllerState::kTrying && !measure.extended && !measure.cut_short &&
             GainWithinNoise(measure, trials_.from_measure())) {
    trials_.ExtendCandidate();
  } else if (trials_.Advance()) {
    MoveToNextTrial();
  } else if (std::all_of(measured.begin(), measured.end(),
                         [](const TrialMeasure& m) { return m.cut_short; })) {
    EndTrials(std::nullopt);  // none can stay: no measure in place again
  } else {
    MoveBackFromTrials();
  }
}

// Each candidate is compared with the current M_a's time interpolated to
// its own; without a measure after the trials (a candidate stayed at
// once), with the first.
void Tracker::EndTrials(const std::optional<TrialMeasure>& again) {
  if (state_ == ControllerState::kVerifying) {
    EndVerification(again);
    return;
  }
  RoundStats& round = history_.back();
  const TrialMeasure& before = trials_.from_measure();
  round.reason += "; M_a " + MiB(trials_.from()) +
                  Format(" measured %.3g us of thread time per access", before.busy_us);
  if (again) round.reason += Format(", %.3g after the trials", again->busy_us);
  const TrialMeasure& last = again ? *again : before;
  // The round's trials so far (a direction's end follows a keep): only
  // this sequence's are judged.
  const size_t first = round.trials.size();
  for (size_t i = 0; i < trials_.measures().size(); i++) {
    const TrialMeasure& m = trials_.measures()[i];
    TrialStats t = Compared(m, Interpolated(before, last, m.at));
    t.ma_bytes = trials_.candidates()[i];
    round.trials.push_back(t);
    round.reason += "; tried M_a " + MiB(t.ma_bytes) +
                    Format(": %.3g against %.3g then", t.after, t.before);
    round.reason += Format(" (wall time per access %.3g against %.3g)", t.after_wall_us,
                           t.before_wall_us);
    if (t.cut_short) {
      round.reason += Format(", cut short after its settle: %.0fx as slow or more",
                             TrialMeasurer::kFarSlower);
    }
    if (t.extended) round.reason += ", measured twice as long: its gain was within its noise";
  }
  // The fastest relative to the current M_a at its time stays, of those
  // that gained trial_gain beyond their noise: by busy time, with a wall
  // time per access relative to the current M_a's within trial_gain of the
  // best such ratio (the current M_a's own is 1), or by wall time, with a
  // busy time no more than trial_gain above the current M_a's. A candidate
  // the wall clock shows slower than the current M_a or than another
  // candidate is not the fastest by busy time; one whose threads sleep
  // less serves more by the wall clock (docs/decisions/trial-metrics.md).
  auto wall_ratio = [](const TrialStats& t) {
    return t.before_wall_us > 0 && t.after_wall_us > 0 ? t.after_wall_us / t.before_wall_us : 1;
  };
  double best_wall = 1;
  for (size_t i = first; i < round.trials.size(); i++) {
    best_wall = std::min(best_wall, wall_ratio(round.trials[i]));
  }
  const double g = config_.trial_gain;
  std::optional<size_t> best;
  double best_score = 0;
  bool best_by_wall = false;
  for (size_t i = first; i < round.trials.size(); i++) {
    const TrialStats& x = round.trials[i];
    const double gain = x.before - x.after;
    const bool wall_ok = !WallSlower(wall_ratio(x), best_wall);
    const Gain by = GainOf(x, g, wall_ok);
    if (by == Gain::kNone) {
      if (wall_ok && gain >= g * x.before) {
        round.reason += "; M_a " + MiB(x.ma_bytes) +
                        Format("'s gain, %.3g us, is within its noise (%.3g)", gain, x.noise_us);
      }
      continue;
    }
    const double score = by == Gain::kBusy ? x.after / x.before : wall_ratio(x);
    if (!best || score < best_score) {
      best = i;
      best_score = score;
      best_by_wall = by == Gain::kWall;
    }
  }
  if (best) {
    TrialStats& winner = round.trials[*best];
    winner.kept = true;
    round.decision = "adopted";
    round.adopted_ma_bytes = winner.ma_bytes;
    round.reason += "; kept M_a " + MiB(winner.ma_bytes) +
                    (again ? ", the fastest" : Format(", %.0f%% or more faster: at once",
                                                      100 * config_.trusted_gain)) +
                    (best_by_wall ? " (by the wall clock)" : "");
    SetTarget(winner.ma_bytes);
    if (check_after_round_) after_round_ = trials_.measures()[*best - first].ratios;
  } else {
    round.reason += "; none gained enough, M_a stays " + MiB(trials_.from());
    SetTarget(trials_.from());  // there already, unless every trial was cut short
    if (check_after_round_) after_round_ = before.ratios;
    // A far end the model could not rank and a measure refused is not
    // tried again until the workload changes.
    if (far_end_trial_) rejected_ma_ = trials_.candidates().front();
  }
  far_end_trial_ = false;
  if (best) {
    // Kept at once, in place, the winner's measure is the latest; else it
    // is measured again, settled, before its direction's end.
    const uint64_t kept = round.trials[*best].ma_bytes;
    std::optional<TrialMeasure> kept_measure;
    if (!again && *best + 1 == round.trials.size()) {
      kept_measure = trials_.measures()[*best - first];
    }
    if (TryDirectionEnd(trials_.from(), kept, kept_measure)) return;
  }
  // Measured against the split it left in turn: a move from the split
  // before the round needs no other check.
  if (trials_.from() == pre_round_ma_) {
    EnterSettling();
  } else {
    AfterDecision(std::nullopt);
  }
}

// The model chooses where to look; measurements decide what stays. A move
// that nothing measured against the split before the round (an adoption
// on the model's word; the split a reset moved to, kept by the round or
// its trials) is measured once the caches settle, and compared with that
// split's measure from before the move. In WiredTiger's hotspot10 at alpha
// 0.5 a round adopted 25 MiB on a predicted 20.5 us per access that ran at
// 46, slower than both static baselines, and stayed for the rest of the
// run. The first comparison spans a move, so the machine's drift is in it:
// a new split slower by more than trial_gain is measured again against the
// old one in turn (new, old, new, as a trial), and only that undoes it.
// A good move, the common case, costs one measure at the split it is at.
void Tracker::AfterDecision(const std::optional<TrialMeasure>& round_measure) {
  if (!config_.verify_moves || target_ == pre_round_ma_) {
    EnterSettling();
    return;
  }
  // The round ran the old split (no reset) and measured it in the same
  // workload; after a reset, Stable's last windows there did.
  const std::optional<TrialMeasure> before =
      !history_.back().reset && round_measure ? round_measure : pre_round_measure_;
  if (!before || !estimator_.cpu_load_measured()) {
    history_.back().reason += "; the move from M_a " + MiB(pre_round_ma_) +
                              " is not verified: no busy thread time was measured there";
    EnterSettling();
    return;
  }
  StartVerification(*before);
}

void Tracker::StartVerification(const TrialMeasure& before_move) {
  state_ = ControllerState::kVerifying;
  verify_from_ma_ = pre_round_ma_;
  verify_from_ = before_move;
  trials_.StartMoved(target_, {pre_round_ma_}, before_move);  // measured once settled
}

void Tracker::EndVerification(const std::optional<TrialMeasure>& again) {
  RoundStats& round = history_.back();
  VerificationStats& v = round.verification;
  v.checked = true;
  v.from_ma_bytes = verify_from_ma_;
  v.to_ma_bytes = trials_.from();
  const TrialMeasure& first = trials_.from_measure();  // the new split's
  if (trials_.measures().empty()) {  // the first measure passed
    v.from_us = verify_from_.busy_us;
    v.to_us = first.busy_us;
    v.from_wall_us = verify_from_.wall_us;
    v.to_wall_us = first.wall_us;
    round.reason += "; verified: M_a " + MiB(v.to_ma_bytes) +
                    Format(" measured %.3g us of thread time per access, ", v.to_us) + "M_a " +
                    MiB(v.from_ma_bytes) + Format(" %.3g before the move", v.from_us);
    if (check_after_round_) after_round_ = first.ratios;
    if (v.to_us <= (1 - config_.trial_gain) * v.from_us &&
        TryDirectionEnd(v.from_ma_bytes, v.to_ma_bytes, first)) {
      return;
    }
    state_ = ControllerState::kStable;
    detector_.Reset();
    stable_since_ = now_;
    return;
  }
  // The old split against the new one interpolated to its time, as trials
  // compare; without the new one's second measure (the old split measured
  // trusted_gain faster at once), against its first.
  const TrialMeasure& old = trials_.measures()[0];
  const TrialMeasure& last = again ? *again : first;
  const TrialMeasure then = Interpolated(first, last, old.at);
  v.interleaved = true;
  v.from_us = old.busy_us;
  v.to_us = then.busy_us;
  v.from_wall_us = old.wall_us;
  v.to_wall_us = then.wall_us;
  v.undone = old.busy_us <= (1 - config_.trial_gain) * v.to_us ||
             WallSlower(v.to_wall_us, v.from_wall_us);
  round.reason += "; verified in turn: M_a " + MiB(v.to_ma_bytes) +
                  Format(" measured %.3g us of thread time per access, ", v.to_us) + "M_a " +
                  MiB(v.from_ma_bytes) + Format(" %.3g", v.from_us) +
                  Format(" (wall time per access %.3g against %.3g)", v.to_wall_us,
                         v.from_wall_us);
  if (v.undone) {
    round.reason += "; the move is undone, M_a back to " + MiB(v.from_ma_bytes);
    round.adopted_ma_bytes = v.from_ma_bytes;
    rejected_ma_ = v.to_ma_bytes;
    SetTarget(v.from_ma_bytes);
    if (check_after_round_) after_round_ = old.ratios;
  } else {
    round.reason += "; the move stays";
    SetTarget(v.to_ma_bytes);
    if (check_after_round_) after_round_ = last.ratios;
  }
  EnterSettling();
}

// A move the model chose and the engine measured faster shows the model
// right about the direction, not about how far: the model's costs are
// measured at one split, and its errors grow with the distance from it
// (where the page cache's cliff lies, how much memory the engine keeps
// beside its cache). In WiredTiger's hotspot20 at M = 128 MiB a round
// adopted 68 MiB, verified 1.6x faster than the 32 MiB before, where the
// model predicted H_k 0.22-0.28 at M_a = M that measured 0.89-0.91 and ran
// 1.45x faster than 68 (bench/heldout.md). So the direction's end is tried
// against the verified split, whose measure was just taken; the trial's
// rules decide (docs/decisions/direction-end-trial.md). A trial's keep
// shows a direction alike: its end, where no trial of the round measured
// it, is tried against the kept split. One trial: a failed one costs its
// settle and two measures (three after a keep whose measure is not the
// latest), once per move that measured faster.
std::optional<uint64_t> Tracker::DirectionEnd(uint64_t from, uint64_t to) const {
  const RoundStats& round = history_.back();
  const bool grew = to > from;
  std::optional<uint64_t> end;
  for (const CandidateStats& c : round.candidates) {
    if (!c.valid || Rejected(c)) continue;  // an overcommitting one is not valid
    if (grew ? c.ma_bytes <= to : c.ma_bytes >= to) continue;
    const bool tried = std::any_of(round.trials.begin(), round.trials.end(),
                                   [&](const TrialStats& t) { return t.ma_bytes == c.ma_bytes; });
    if (tried) continue;
    if (!end || (grew ? c.ma_bytes > *end : c.ma_bytes < *end)) end = c.ma_bytes;
  }
  return end;
}

bool Tracker::TryDirectionEnd(uint64_t from, uint64_t to,
                              const std::optional<TrialMeasure>& to_measure) {
  if (!config_.try_direction_end || config_.trial_band <= 0) return false;
  const std::optional<uint64_t> end = DirectionEnd(from, to);
  if (!end) return false;
  history_.back().reason += "; the direction's end, M_a " + MiB(*end) + ", is tried";
  pre_round_ma_ = to;  // what the trial's outcome is measured against
  state_ = ControllerState::kTrying;
  if (to_measure) {
    trials_.Continue(now_, to, {*end}, *to_measure);
    MoveToNextTrial();
  } else {
    trials_.StartMoved(to, {*end}, std::nullopt);  // `to` measured once settled, then the end
  }
  return true;
}

// After max_abandoned_rounds in a row the workload changes faster than a
// round can finish: simulating is pure overhead, so stop for a while.
void Tracker::AbandonRound(const std::string& reason, bool rose) {
  round_.decision = "abandoned";
  round_.reason = reason;
  round_.adopted_ma_bytes = target_;
  CloseRound();
  if (++abandoned_in_row_ >= config_.max_abandoned_rounds) {
    abandoned_in_row_ = 0;
    no_round_until_ = now_ + config_.churn_backoff_accesses;
    history_.back().reason += Format("; %.0f rounds abandoned in a row, no round for %.0f accesses",
                                     config_.max_abandoned_rounds,
                                     static_cast<double>(config_.churn_backoff_accesses));
    if (config_.verify_moves && target_ != pre_round_ma_) {  // a reset's split
      AfterDecision(std::nullopt);
      return;
    }
    state_ = ControllerState::kStable;
    detector_.Reset();
    stable_since_ = now_;
    return;
  }
  StartRound("restart: " + reason, rose);
}

void Tracker::CloseRound() {
  round_.end_access = now_;
  round_.sampled_share = simulator_->SampledShare();
  simulator_->End();
  history_.push_back(round_);
  if (history_.size() > kHistory) history_.pop_front();
  round_ = RoundStats{};
}

void Tracker::EnterSettling() {
  state_ = ControllerState::kSettling;
  settle_end_ = now_ + config_.settle_accesses;
  detector_.Reset();
}

ControllerStats Tracker::Stats() const {
  ControllerStats s;
  s.state = state_;
  s.settings = settings_;
  s.memory_bytes = memory_bytes_;
  s.ma_bytes = applied_;
  s.target_ma_bytes = target_;
  s.accesses = now_;
  if (last_window_) {
    s.hit_app = last_window_->hit_app;
    s.hit_second_tier = last_window_->hit_second_tier;
    s.latency = Latency(*last_window_);
  }
  if (detector_.reference() && state_ == ControllerState::kStable) {
    s.reference_latency = Latency(*detector_.reference());
  }
  estimator_.AddStats(&s);
  s.rounds.assign(history_.begin(), history_.end());
  if (state_ == ControllerState::kAdapting) s.rounds.push_back(round_);
  return s;
}

}  // namespace symbiosis
