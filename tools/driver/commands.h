// The drivers' four commands (driver.h describes them), each in its own
// file: load.cc, run.cc, overhead.cc; limits and the dispatch in driver.cc.
// Each returns the exit status, or ends the process through Fail.

#ifndef SYMBIOSIS_TOOLS_DRIVER_COMMANDS_H_
#define SYMBIOSIS_TOOLS_DRIVER_COMMANDS_H_

#include <memory>
#include <utility>
#include <vector>

#include "driver/driver.h"
#include "driver/flags.h"

namespace symbiosis::bench {

int Load(BenchEngine& engine, const Flags& flags);
int Run(BenchEngine& engine, const Flags& flags);
int Overhead(BenchEngine& engine, const Flags& flags);
int Limits(const BenchEngine& engine);

// The commands' flags for `engine` (its budgets, the first the default,
// and its own flags of run).
std::vector<CommandSpec> Commands(const BenchEngine& engine);

// Opens the DB, or says why not on stderr and returns null.
std::unique_ptr<BenchDb> OpenOrExplain(BenchEngine& engine, const OpenRequest& request);

// H_a (hits over lookups) and H_k (second-tier hits over reads) of the
// requests between `since` and `now`, to 4 places; 0 without any.
std::pair<double, double> HitRatios(const EngineStats& now, const EngineStats& since);

// The Controller's state's name, or "static".
const char* StateName(const EngineStats& stats);

}  // namespace symbiosis::bench

#endif  // SYMBIOSIS_TOOLS_DRIVER_COMMANDS_H_
