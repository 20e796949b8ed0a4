// What one read from the device under a file costs, measured before any
// such read happens in the engine.
//
// The Controller learns C_k and C_k_cpu from the engine's own device
// reads. Where the page cache holds every table at the start (a data set
// smaller than the budget), none happens, and the first round ranks with
// the static costs: LevelDB's on the paper's flash (16 us), where a device
// read here costs WiredTiger 135-520 us (docs/decisions/engine-constants.md).
// A few reads of the file with O_DIRECT, which
// bypasses the page cache and so neither uses nor changes it, give the
// device's latency and the CPU a read costs the reading thread.

#ifndef SYMBIOSIS_DEVICE_READ_COST_H_
#define SYMBIOSIS_DEVICE_READ_COST_H_

#include <cstdint>
#include <optional>
#include <string>

namespace symbiosis {

struct DeviceReadCost {
  double wall_us = 0;  // median wall time of one read
  double cpu_us = 0;   // median CPU time of the reading thread in one read
  int reads = 0;
};

// Reads `reads` blocks of `read_bytes` at random aligned offsets of `file`
// with O_DIRECT, timing each. nullopt when the file cannot be opened for
// direct I/O (e.g. tmpfs) or is smaller than one read.
// REQUIRES: read_bytes a positive multiple of 4096; reads > 0.
std::optional<DeviceReadCost> MeasureDeviceRead(const std::string& file, uint32_t read_bytes,
                                                int reads, uint64_t seed = 1);

}  // namespace symbiosis

#endif  // SYMBIOSIS_DEVICE_READ_COST_H_
