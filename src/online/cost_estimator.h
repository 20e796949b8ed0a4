// CostEstimator: what the Controller's model is costed with, measured
// online from the windows' timed events: the miss costs (C_a, C_k, C_k's
// CPU part, C_s; cost_model.h's MissCosts) and the process's CPU load
// (CpuLoad), each estimate smoothed over the windows that had enough
// timed events. Single-threaded: the Tracker feeds it its windows.

#ifndef SYMBIOSIS_ONLINE_COST_ESTIMATOR_H_
#define SYMBIOSIS_ONLINE_COST_ESTIMATOR_H_

#include "online/event_totals.h"
#include "symbiosis/controller_config.h"
#include "symbiosis/controller_stats.h"
#include "symbiosis/cost_model.h"

namespace symbiosis {

class CostEstimator {
 public:
  // Starts from config.costs, the priors.
  explicit CostEstimator(const ControllerConfig& config);

  // One window's counts (Since of two totals): the costs first, then the
  // CPU load, which is costed with them.
  void AddWindow(const EventTotals& window);

  const MissCosts& costs() const { return costs_; }
  // A's load: measured once a window had the process's times and C_k's CPU
  // part is known (measured, or given as a prior).
  bool cpu_load_measured() const { return cpu_load_measured_; }
  const CpuLoad& cpu_load() const { return cpu_load_; }

  // Reads the second tier missed in a window.
  static double DeviceMisses(const EventTotals& window);
  // The window's busy thread time in us: CPU, run-queue wait, and device
  // reads x their wait (C_k - C_k_cpu); T x wall in cost_model.h's terms.
  double BusyThreadUs(const EventTotals& window) const;

  // The costs, the priors and what has been measured, into `stats`.
  void AddStats(ControllerStats* stats) const;

 private:
  void UpdateCosts(const EventTotals& window);
  void UpdateCpuLoad(const EventTotals& window);

  const ControllerConfig config_;
  MissCosts costs_;
  bool app_cost_measured_ = false;
  bool app_cost_split_ = false;  // C_a has come from split samples
  bool kernel_cost_measured_ = false;
  bool kernel_cpu_measured_ = false;
  bool store_cost_measured_ = false;
  CpuLoad cpu_load_;
  bool cpu_load_measured_ = false;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_ONLINE_COST_ESTIMATOR_H_
