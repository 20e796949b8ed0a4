#include "online/cost_estimator.h"

#include <algorithm>

namespace symbiosis {

CostEstimator::CostEstimator(const ControllerConfig& config)
    : config_(config), costs_(config.costs) {}

void CostEstimator::AddWindow(const EventTotals& window) {
  UpdateCosts(window);
  UpdateCpuLoad(window);
}

void CostEstimator::AddStats(ControllerStats* s) const {
  s->costs = costs_;
  s->prior_costs = config_.costs;
  s->app_miss_cost_measured = app_cost_measured_;
  s->app_miss_cost_split = app_cost_split_;
  s->second_tier_miss_cost_measured = kernel_cost_measured_;
  s->second_tier_miss_cpu_measured = kernel_cpu_measured_;
  s->second_tier_store_measured = store_cost_measured_;
  s->cpu_load = cpu_load_;
  s->cpu_load_measured = cpu_load_measured_;
}

// C_a is the mean service time of application misses that the kernel (or
// compressed) cache served; C_k what a device read adds to it; C_k_cpu the
// part of C_k spent on a CPU. Where the scheduler times were measured, C_a
// and C_k leave out the time the thread waited runnable for a CPU: CPU
// contention is not a read's cost (A accounts for it). With four readers
// on one CPU a 3.6 us page-cache hit measured 6.9 us of wall time: the
// threads woken by device reads preempt it
// (docs/decisions/miss-cost-timing.md).
// Without them (RocksDB's compressed-cache hits are timed by the wall
// clock only), C_a leaves out the hits that were preempted: those waited
// out other threads' time slices (service_times.h).
// Each window with enough timed reads moves an estimate by cost_smoothing.
void CostEstimator::UpdateCosts(const EventTotals& w) {
  auto smooth = [&](double* cost, bool* measured, double sample) {
    *cost = *measured ? (1 - config_.cost_smoothing) * *cost + config_.cost_smoothing * sample
                      : sample;
    *measured = true;
  };
  if (config_.measure_app_miss_cost) {
    if (w.hit_split >= config_.min_cost_samples) {
      const double service =
          (w.hit_split_ns - std::min(w.hit_split_ns, w.hit_split_runnable_ns)) / 1e3 / w.hit_split;
      smooth(&costs_.app_miss, &app_cost_measured_, service);
      app_cost_split_ = true;
    } else if (!app_cost_split_ && w.hits.Count() >= config_.min_cost_samples) {
      // No split seen yet: the wall time, short waits for a CPU included.
      smooth(&costs_.app_miss, &app_cost_measured_, w.hits.UnpreemptedMeanUs());
    }
  }
  // C_s: timed as RocksDB's compressed-cache hits are, by the wall clock,
  // the preempted stores left out; measured with C_a, as both are the
  // second tier's.
  if (config_.measure_app_miss_cost && w.stores.Count() >= config_.min_cost_samples) {
    smooth(&costs_.second_tier_store, &store_cost_measured_, w.stores.UnpreemptedMeanUs());
  }
  if (!config_.measure_second_tier_miss_cost) return;
  if (w.split_misses >= config_.min_cost_samples) {
    const double service = (w.split_ns - std::min(w.split_ns, w.split_runnable_ns)) / 1e3 /
                           w.split_misses;
    smooth(&costs_.second_tier_miss, &kernel_cost_measured_, std::max(0.0, service - costs_.app_miss));
    const double cpu = w.split_cpu_ns / 1e3 / w.split_misses - costs_.app_miss;
    smooth(&costs_.second_tier_miss_cpu, &kernel_cpu_measured_, std::max(0.0, cpu));
  } else if (!kernel_cpu_measured_ && w.miss_timed >= config_.min_cost_samples) {
    // No split seen yet (no schedstat, or too few device reads): the wall
    // time, run-queue wait included.
    const double service = w.miss_ns / 1e3 / w.miss_timed;
    smooth(&costs_.second_tier_miss, &kernel_cost_measured_, std::max(0.0, service - costs_.app_miss));
  }
}

double CostEstimator::DeviceMisses(const EventTotals& w) {
  return static_cast<double>(w.reads - std::min(w.reads, w.read_hits));
}

double CostEstimator::BusyThreadUs(const EventTotals& w) const {
  const double miss_wait = std::max(0.0, costs_.second_tier_miss - costs_.second_tier_miss_cpu);
  return (w.process_cpu_ns + w.process_runnable_ns) / 1e3 + DeviceMisses(w) * miss_wait;
}

// The load A needs, from a window's process times (cost_model.h): T is
// the threads busy on average, on a CPU, runnable, or waiting for the
// device (the window's device reads times C_k - C_k_cpu); c_0 is the CPU
// per access left after the cache misses' share. Threads blocked on
// anything else (a lock, an idle pool) are not counted: T errs low, and A
// toward L_e, the paper's model. Used once C_k_cpu is known: measured, or
// given as a prior in config.costs.
void CostEstimator::UpdateCpuLoad(const EventTotals& w) {
  const bool kernel_cpu_known = kernel_cpu_measured_ || config_.costs.second_tier_miss_cpu > 0;
  if (!config_.model_cpu_load || !kernel_cpu_known || w.wall_ns == 0 ||
      w.process_cpu_ns == 0 || w.cpus == 0) {
    return;
  }
  const double cpu_us = w.process_cpu_ns / 1e3;
  CpuLoad sample;
  sample.cpus = w.cpus;
  sample.threads = BusyThreadUs(w) / (w.wall_ns / 1e3);
  sample.base_cpu = std::max(0.0, (cpu_us - w.reads * costs_.app_miss -
                                   DeviceMisses(w) * costs_.second_tier_miss_cpu -
                                   w.stores.Count() * costs_.second_tier_store) /
                                      w.accesses);
  if (!cpu_load_measured_) {
    cpu_load_ = sample;
    cpu_load_measured_ = true;
    return;
  }
  const double a = config_.cost_smoothing;
  cpu_load_.cpus = sample.cpus;
  cpu_load_.threads = (1 - a) * cpu_load_.threads + a * sample.threads;
  cpu_load_.base_cpu = (1 - a) * cpu_load_.base_cpu + a * sample.base_cpu;
}

}  // namespace symbiosis
