#include "driver/flags.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "driver/driver.h"
#include "symbiosis/workload.h"

namespace symbiosis::bench {
namespace {

std::string& Program() {
  static std::string program = "bench";
  return program;
}

}  // namespace

void SetProgramName(const std::string& name) { Program() = name; }
const std::string& ProgramName() { return Program(); }

void Fail(int status, const std::string& message) {
  std::fprintf(stderr, "%s: error: %s\n", ProgramName().c_str(), message.c_str());
  std::exit(status);
}

std::string CommandHelp(const CommandSpec& command) {
  std::string text = "usage: " + ProgramName() + " " + command.name +
                     (command.synopsis.empty() ? "" : " " + command.synopsis) + " [flags]\n\n" +
                     command.summary + "\nflags:\n";
  for (const FlagSpec& f : command.flags) {
    std::string left = "  --" + f.name + (f.value.empty() ? "" : " " + f.value);
    left.resize(std::max<size_t>(left.size() + 2, 28), ' ');
    text += left + f.help + "\n";
  }
  return text;
}

Flags ParseFlags(int argc, char** argv, const CommandSpec& command) {
  Flags flags;
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::fputs(CommandHelp(command).c_str(), stdout);
      std::exit(0);
    }
  }
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) Fail(2, "unexpected argument '" + arg + "'; flags start with --");
    arg = arg.substr(2);
    std::string value;
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    const auto spec = std::find_if(command.flags.begin(), command.flags.end(),
                                   [&](const FlagSpec& f) { return f.name == arg; });
    if (spec == command.flags.end()) {
      Fail(2, "unknown flag --" + arg + "; see " + ProgramName() + " " + command.name + " --help");
    }
    if (spec->value.empty()) {
      flags.values[arg] = "1";
      continue;
    }
    if (eq == std::string::npos) {
      if (i + 1 >= argc) Fail(2, "--" + arg + " needs a value");
      value = argv[++i];
    }
    flags.values[arg] = value;
  }
  return flags;
}

double ParseNumberIn(const std::string& text, const std::string& what, double low,
                     bool low_included, double high, bool high_included,
                     const std::string& example) {
  char* end = nullptr;
  const double f = std::strtod(text.c_str(), &end);
  const bool in_range =
      (low_included ? f >= low : f > low) && (high_included ? f <= high : f < high);
  if (text.empty() || *end != '\0' || !in_range) {
    std::ostringstream range;
    range << (low_included ? "[" : "(") << low << ", " << high << (high_included ? "]" : ")");
    Fail(2, what + " must be a number in " + range.str() +
                (example.empty() ? "" : ", e.g. " + example) + ", not '" + text + "'");
  }
  return f;
}

double ParseFraction(const std::string& text, const std::string& what, bool zero_allowed,
                     bool one_allowed) {
  return ParseNumberIn(text, what, 0, zero_allowed, 1, one_allowed);
}

double ParseOverhead(const std::string& text) {
  return ParseNumberIn(text, "--app-cache-overhead", -1, false, 1, false, "0.25");
}

uint64_t ParseMemory(const BenchEngine& engine, const Flags& flags) {
  const uint64_t memory = ParseBytes(flags.Get("memory", ""), "--memory");
  if (memory < engine.min_memory_bytes()) {
    Fail(2, "--memory " + std::to_string(memory >> 20) + " MiB is below the minimum " +
                std::to_string(engine.min_memory_bytes() >> 20) + " MiB; raise it");
  }
  return memory;
}

std::string ParseBudget(const BenchEngine& engine, const Flags& flags) {
  const std::vector<std::string> budgets = engine.budgets();
  const std::string budget = flags.Get("budget", budgets.front());
  if (std::find(budgets.begin(), budgets.end(), budget) == budgets.end()) {
    Fail(2, "--budget must be " + JoinNames(budgets, " or ") + ", not '" + budget + "'");
  }
  return budget;
}

int ParseThreads(const Flags& flags) {
  const uint64_t threads = ParseCount(flags.Get("threads", "4"), "--threads");
  if (threads < 1 || threads > 256) Fail(2, "--threads must be 1..256");
  return static_cast<int>(threads);
}

std::string JoinNames(const std::vector<std::string>& names, const std::string& sep) {
  std::string joined;
  for (const std::string& name : names) joined += (joined.empty() ? "" : sep) + name;
  return joined;
}

}  // namespace symbiosis::bench
