// DriverMain: the command's dispatch, the commands' flags and `limits`.
// load.cc, run.cc and overhead.cc hold the other commands.

#include "driver/driver.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "driver/commands.h"
#include "driver/json_lines.h"
#include "driver/requests.h"
#include "symbiosis/error.h"

namespace symbiosis::bench {

std::unique_ptr<BenchDb> OpenOrExplain(BenchEngine& engine, const OpenRequest& request) {
  std::string error;
  std::unique_ptr<BenchDb> db = engine.Open(request, &error);
  if (!db) {
    std::fprintf(stderr, "%s: error: cannot open %s: %s\n", ProgramName().c_str(),
                 request.path.c_str(), error.c_str());
  }
  return db;
}

std::pair<double, double> HitRatios(const EngineStats& now, const EngineStats& since) {
  const auto share = [](uint64_t part, uint64_t whole) {
    return whole ? Rounded(static_cast<double>(part) / whole, 4) : 0.0;
  };
  return {share(now.app_hits - since.app_hits, now.lookups - since.lookups),
          share(now.second_tier_hits - since.second_tier_hits, now.reads - since.reads)};
}

const char* StateName(const EngineStats& stats) {
  return stats.controller ? ControllerStateName(stats.controller->state) : "static";
}

std::vector<CommandSpec> Commands(const BenchEngine& engine) {
  const std::vector<std::string> budgets = engine.budgets();
  const FlagSpec budget{"budget", "B",
                        "the budget M splits: " + JoinNames(budgets, " | ") + " (default " +
                            budgets.front() + ")"};
  const FlagSpec db{"db", "DIR", "the DB, written by `load` (required)"};
  const FlagSpec memory{"memory", "SIZE", "M, the caches' budget, e.g. 256MiB (required)"};
  const FlagSpec threads{"threads", "N", "reader threads, 1..256 (default 4)"};
  const FlagSpec seed{"seed", "N", "the workload's seed (default 1)"};
  const FlagSpec reserve{"reserve", "SIZE",
                         "a cgroup budget's room beyond M for the process (default 32MiB)"};
  const FlagSpec overhead{"app-cache-overhead", "F",
                          "the application cache's per-block overhead in (-1, 1) "
                          "(default: the engine's)"};
  const FlagSpec progress{"progress", "", "a status line on stderr"};
  std::vector<CommandSpec> commands = {
      {"load", "--db DIR --data-size SIZE",
       "Writes a bench DB: keys 0..N-1 with values whose first --alpha share is random\n"
       "and the rest repeats it, so the engine compresses them to about alpha. It is\n"
       "built in DIR.partial and renamed: a failed load leaves nothing behind.\n",
       {{"db", "DIR", "the DB to write; it must not exist (required)"},
        {"data-size", "SIZE", "keys plus values, e.g. 1280MiB (required)"},
        {"value-size", "SIZE", "bytes per value, at most 1MiB (default 1000)"},
        {"alpha", "F", "the compressed share of a value, in (0, 1] (default 0.5)"},
        {"seed", "N", "the values' seed (default 1)"}}},
      {"run", "--db DIR --memory SIZE --config NAME",
       "Runs one configuration and prints JSON lines: an interval line every --interval\n"
       "and a summary at the end. NAME is static-default (the engine's default cache),\n"
       "static-max (M_a = M), static-<i> (M_a = i*M/8, i = 0..8) or symbiosis.\n",
       {db, memory,
        {"config", "NAME", "static-default | static-max | static-<i> | symbiosis (required)"},
        {"workload", "SPEC", "uniform, zipfian, hotspot20, ... (include/symbiosis/workload.h)"},
        {"phases", "P", "phases \"SPEC@SIZE*OPS;...\" in place of --workload"},
        {"duration", "T", "the run's length, warm-up included (default 30s)"},
        {"ops", "N", "stop after N requests in place of --duration"},
        threads,
        {"interval", "T", "time between interval lines (default 1s)"},
        {"warmup", "T", "what the summary leaves out at the start (default 0)"},
        {"overwrite", "F", "the share of requests that write, in [0, 1] (default 0)"},
        budget,
        {"allow-fallback", "", "run in the engine's fallback budget when no cgroup can be made"},
        {"device-latency", "T", "added to every device read, e.g. 100us (default 0)"},
        reserve, seed, overhead, progress}},
      {"overhead", "--db DIR --memory SIZE",
       "Measures Symbiosis's cost in Stable: once Symbiosis is Stable, slices of --slice\n"
       "alternate between Symbiosis reporting and Symbiosis suspended (the static path\n"
       "at the same M_a). Prints a pair line per pair and an overhead_summary line.\n",
       {db, memory,
        {"workload", "SPEC", "as for run (default uniform)"},
        threads,
        {"warmup", "T", "time to wait for Stable before the pairs (default 30s)"},
        {"slice", "T", "one half of a pair, at least 50ms (default 250ms)"},
        {"pairs", "N", "pairs to measure, 1..1000000 (default 400)"},
        budget,
        reserve,
        {"no-cgroup", "", "run outside a memory cgroup (the page cache holds the whole DB)"},
        {"control", "", "both halves report (an A/A run: the method's own spread)"},
        seed, overhead, progress}},
      {"limits", "",
       "Prints the engine's limits as one JSON line: its budgets, the smallest --memory\n"
       "run accepts, the key length and the largest --value-size.\n",
       {}},
  };
  for (const FlagSpec& flag : engine.RunFlags()) commands[1].flags.push_back(flag);
  return commands;
}

int Limits(const BenchEngine& engine) {
  Json limits;
  limits["engine"] = engine.name();
  limits["budgets"] = engine.budgets();
  limits["min_memory_bytes"] = engine.min_memory_bytes();
  limits["key_bytes"] = kKeyBytes;
  limits["max_value_bytes"] = kMaxValueBytes;
  PrintLine(limits);
  return 0;
}

int DriverMain(BenchEngine& engine, int argc, char** argv) {
  SetProgramName(engine.name() + "_bench");
  const std::string& program = ProgramName();
  const std::vector<CommandSpec> commands = Commands(engine);
  std::string usage;
  for (const CommandSpec& c : commands) {
    usage += (usage.empty() ? "usage: " : "       ") + program + " " + c.name +
             (c.synopsis.empty() ? "" : " " + c.synopsis) + " [flags]\n";
  }
  usage += "'" + program + " COMMAND --help' lists a command's flags.\n";
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::fputs(usage.c_str(), argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string name = argv[1];
  const auto command = std::find_if(commands.begin(), commands.end(),
                                    [&](const CommandSpec& c) { return c.name == name; });
  if (command == commands.end()) {
    Fail(2, "unknown command '" + name + "'; use load, run, overhead or limits (see " + program +
                " --help)");
  }
  const Flags flags = ParseFlags(argc, argv, *command);
  try {
    if (name == "load") return Load(engine, flags);
    if (name == "run") return Run(engine, flags);
    if (name == "limits") return Limits(engine);
    return Overhead(engine, flags);
  } catch (const InputError& e) {
    Fail(2, e.what());
  } catch (const std::exception& e) {
    Fail(1, e.what());
  }
}

}  // namespace symbiosis::bench
