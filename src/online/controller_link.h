// ControllerLink: how an engine plugin's adapter reaches its Controller.
//
// File events (a table file opened, deleted) always reach the controller.
// Accesses and reads reach it unless the link is suspended (Db::Suspend of
// the LevelDB and RocksDB plugins): then the adapter counts them and takes
// the static configuration's path, and reads are not timed with the
// scheduler's times either (SchedSampleSlowdown 0), since no controller
// would read the samples.
//
// Thread-safe: Suspend and the accessors may race with each other; an event
// in flight sees the link before or after.

#ifndef SYMBIOSIS_ONLINE_CONTROLLER_LINK_H_
#define SYMBIOSIS_ONLINE_CONTROLLER_LINK_H_

#include <atomic>
#include <cstdint>

#include "symbiosis/controller.h"

namespace symbiosis {

class ControllerLink {
 public:
  // Links `controller` (null: none), not suspended.
  // REQUIRES: no event is being recorded (before the DB opens or after it
  // closes); `controller` outlives its use here.
  void Set(Controller* controller) {
    controller_ = controller;
    accesses_.store(controller, std::memory_order_relaxed);
  }

  void Suspend(bool suspended) {
    accesses_.store(suspended ? nullptr : controller_, std::memory_order_relaxed);
  }
  bool suspended() const { return controller_ != nullptr && accesses() == nullptr; }

  // The controller that hears of accesses and reads now, or null.
  Controller* accesses() const { return accesses_.load(std::memory_order_relaxed); }
  // The controller that hears of file events, or null.
  Controller* files() const { return controller_; }

  // The slowdown to give SampledThreadSchedTimes for a read now: 0 when no
  // controller hears of it, else the controller's.
  uint32_t SchedSampleSlowdown() const {
    const Controller* c = accesses();
    return c == nullptr ? 0 : c->sched_sample_slowdown();
  }

 private:
  Controller* controller_ = nullptr;
  std::atomic<Controller*> accesses_{nullptr};
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_ONLINE_CONTROLLER_LINK_H_
