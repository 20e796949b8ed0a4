// The drivers' command line: a command's flags, declared once so that what
// ParseFlags accepts and what `<command> --help` prints cannot drift apart,
// and the parsers of their values. Every bad value ends the process with a
// one-line error that names the flag and a valid value (Fail, exit 2).

#ifndef SYMBIOSIS_TOOLS_DRIVER_FLAGS_H_
#define SYMBIOSIS_TOOLS_DRIVER_FLAGS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace symbiosis::bench {

class BenchEngine;

// "<engine>_bench", the name messages start with; set once by DriverMain.
void SetProgramName(const std::string& name);
const std::string& ProgramName();

// Prints "<program>: error: <message>" on stderr and exits with `status`
// (2: bad input, 1: a failed run, 130: interrupted).
[[noreturn]] void Fail(int status, const std::string& message);

struct Flags {
  std::map<std::string, std::string> values;  // a switch's value is "1"
  std::string Get(const std::string& name, const std::string& fallback) const {
    const auto it = values.find(name);
    return it == values.end() ? fallback : it->second;
  }
  bool Has(const std::string& name) const { return values.count(name) > 0; }
};

struct FlagSpec {
  std::string name;
  std::string value;  // e.g. "SIZE"; empty for a switch
  std::string help;   // one line, with the default
};

struct CommandSpec {
  std::string name;
  std::string synopsis;  // the required flags
  std::string summary;   // lines, each ending in '\n'
  std::vector<FlagSpec> flags;
};

// `<program> <command> --help`'s text.
std::string CommandHelp(const CommandSpec& command);

// argv[2..] as `command`'s flags ("--name value" or "--name=value"). Fails
// on an unknown flag, a stray argument or a missing value; `--help` or
// `-h` anywhere prints CommandHelp and exits 0.
Flags ParseFlags(int argc, char** argv, const CommandSpec& command);

// A number that is the whole of `text` and lies between `low` and `high`,
// each end included where asked; otherwise Fail names `what` (and
// `example`, when given, as a valid value).
double ParseNumberIn(const std::string& text, const std::string& what, double low,
                     bool low_included, double high, bool high_included,
                     const std::string& example = "");

// A number in [0, 1], with 0 or 1 excluded where asked.
double ParseFraction(const std::string& text, const std::string& what, bool zero_allowed,
                     bool one_allowed);

// --app-cache-overhead (ControllerConfig::app_cache_overhead): (-1, 1).
double ParseOverhead(const std::string& text);

// --memory, at least the engine's minimum.
uint64_t ParseMemory(const BenchEngine& engine, const Flags& flags);

// --budget, one of the engine's (the first by default).
std::string ParseBudget(const BenchEngine& engine, const Flags& flags);

// --threads, 1..256 (default 4).
int ParseThreads(const Flags& flags);

// "a<sep>b<sep>c" of `names`.
std::string JoinNames(const std::vector<std::string>& names, const std::string& sep);

}  // namespace symbiosis::bench

#endif  // SYMBIOSIS_TOOLS_DRIVER_FLAGS_H_
