// symbiosis_redis.so: a module for an unmodified redis-server (7.0) that
// keeps the KRR miss-ratio curves of its reads for several K, in the
// server's own bytes (CommandObserver), for kRedis's arbiter
// (`symbiosis redis-arbiter`) to split memory among servers.
//
//   redis-server --loadmodule symbiosis_redis.so [rate R] [min-keys N] [ks 1,5,8,16]
//                [cpu-budget 0.01]
//
// A K of 0 in ks adds exact LRU's curve (what an LRU model predicts; no
// Redis runs it), for the arbiter's --k lru and the benchmark's comparison.
//
//   SYMBIOSIS.MRC [POINTS n]  rate, requests, working set, then per K: K,
//                             the sizes (bytes of maxmemory less the
//                             server's own use) and the miss ratios
//   SYMBIOSIS.STATS           what the module counted, and its memory
//   SYMBIOSIS.RESET           forgets what it counted
//
// It sees each command through a command filter before the command runs,
// reads its arguments and returns: it never changes what a command stores
// or returns, so every client works unchanged. The sampled reads go to a
// thread of the module's own (CommandObserver's background), which keeps
// the stacks: the server's thread pays a hash, a compare and counters per
// key, and a ring slot per sampled one.

#include <strings.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "engines/redis/command_observer.h"
#include "symbiosis/error.h"

extern "C" {
#include "redismodule.h"
}

namespace symbiosis {
namespace {

CommandObserver* observer = nullptr;  // the module's, from OnLoad on

// Reads only the arguments Observe asks for: a GET's name and key.
void Filter(RedisModuleCommandFilterCtx* filter) {
  const int argc = RedisModule_CommandFilterArgsCount(filter);
  observer->Observe(static_cast<size_t>(argc), [filter](size_t i) {
    size_t len = 0;
    const char* p = RedisModule_StringPtrLen(
        RedisModule_CommandFilterArgGet(filter, static_cast<int>(i)), &len);
    return std::string_view(p, len);
  });
}

int ReplyWithCurves(RedisModuleCtx* ctx, size_t points) {
  const std::vector<MissRatioCurve> curves = observer->Curves(points);
  const ObserverStats stats = observer->Stats();
  RedisModule_ReplyWithArray(ctx, 8);
  RedisModule_ReplyWithSimpleString(ctx, "rate");
  RedisModule_ReplyWithDouble(ctx, stats.rate);
  RedisModule_ReplyWithSimpleString(ctx, "requests");
  RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(stats.reads));
  RedisModule_ReplyWithSimpleString(ctx, "working_set");
  RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(observer->WorkingSet()));
  RedisModule_ReplyWithSimpleString(ctx, "curves");
  RedisModule_ReplyWithArray(ctx, static_cast<long>(curves.size()));
  for (size_t i = 0; i < curves.size(); i++) {
    RedisModule_ReplyWithArray(ctx, 3);
    RedisModule_ReplyWithLongLong(ctx, observer->ks()[i]);
    RedisModule_ReplyWithArray(ctx, static_cast<long>(curves[i].sizes.size()));
    for (const uint64_t s : curves[i].sizes) RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(s));
    RedisModule_ReplyWithArray(ctx, static_cast<long>(curves[i].miss_ratios.size()));
    for (const double m : curves[i].miss_ratios) RedisModule_ReplyWithDouble(ctx, m);
  }
  return REDISMODULE_OK;
}

bool Equals(RedisModuleString* arg, const char* word) {
  size_t len = 0;
  const char* p = RedisModule_StringPtrLen(arg, &len);
  return len == std::strlen(word) && strncasecmp(p, word, len) == 0;
}

int MrcCommand(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  long long points = 20;
  if (argc == 3 && Equals(argv[1], "points")) {
    if (RedisModule_StringToLongLong(argv[2], &points) != REDISMODULE_OK || points < 1 ||
        points > 1000) {
      return RedisModule_ReplyWithError(ctx, "ERR POINTS must be a whole number from 1 to 1000");
    }
  } else if (argc != 1) {
    return RedisModule_ReplyWithError(ctx, "ERR usage: SYMBIOSIS.MRC [POINTS n]");
  }
  return ReplyWithCurves(ctx, static_cast<size_t>(points));
}

int StatsCommand(RedisModuleCtx* ctx, RedisModuleString** /*argv*/, int argc) {
  if (argc != 1) return RedisModule_WrongArity(ctx);
  const ObserverStats s = observer->Stats();
  RedisModule_ReplyWithArray(ctx, 20);
  const std::pair<const char*, long long> counts[] = {
      {"commands", static_cast<long long>(s.commands)},
      {"reads", static_cast<long long>(s.reads)},
      {"writes", static_cast<long long>(s.writes)},
      {"sampled_reads", static_cast<long long>(s.sampled_reads)},
      {"dropped_reads", static_cast<long long>(s.dropped_reads)},
      {"rate_lowered", static_cast<long long>(s.rate_lowered)},
      {"sized_keys", static_cast<long long>(s.sized_keys)},
      {"memory_bytes", static_cast<long long>(s.memory_bytes)},
      {"ks", static_cast<long long>(observer->ks().size())}};
  for (const auto& [name, value] : counts) {
    RedisModule_ReplyWithSimpleString(ctx, name);
    RedisModule_ReplyWithLongLong(ctx, value);
  }
  RedisModule_ReplyWithSimpleString(ctx, "rate");
  RedisModule_ReplyWithDouble(ctx, s.rate);
  return REDISMODULE_OK;
}

int ResetCommand(RedisModuleCtx* ctx, RedisModuleString** /*argv*/, int argc) {
  if (argc != 1) return RedisModule_WrongArity(ctx);
  observer->Reset();
  return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

// "rate R", "min-keys N", "ks 1,5,8,16", "cpu-budget F", in pairs. Throws
// InputError.
CommandObserverOptions ParseArguments(RedisModuleString** argv, int argc) {
  CommandObserverOptions o;
  if (argc % 2 != 0) {
    throw InputError("arguments come in pairs: rate R, min-keys N, ks K,K,..., cpu-budget F");
  }
  for (int i = 0; i < argc; i += 2) {
    size_t len = 0;
    const char* value = RedisModule_StringPtrLen(argv[i + 1], &len);
    const std::string text(value, len);
    char* end = nullptr;
    if (Equals(argv[i], "cpu-budget")) {
      o.cpu_budget = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0' || !(o.cpu_budget >= 0 && o.cpu_budget <= 1)) {
        throw InputError("cpu-budget " + text + " is not a share of one CPU from 0 (no limit) "
                         "to 1; e.g. cpu-budget 0.01");
      }
    } else if (Equals(argv[i], "rate")) {
      o.rate = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0' || !(o.rate > 0 && o.rate <= 1)) {
        throw InputError("rate " + text + " is not in (0, 1]; e.g. rate 0.01");
      }
    } else if (Equals(argv[i], "min-keys")) {
      const long long n = std::strtoll(text.c_str(), &end, 10);
      if (end == text.c_str() || *end != '\0' || n < 0) {
        throw InputError("min-keys " + text + " is not a count of keys; e.g. min-keys 4096");
      }
      o.min_keys = static_cast<uint64_t>(n);
    } else if (Equals(argv[i], "ks")) {
      o.ks.clear();
      size_t start = 0;
      while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        const std::string word = text.substr(start, comma - start);
        const long k = std::strtol(word.c_str(), &end, 10);
        if (word.empty() || *end != '\0' || k < 0 || k > 64) {
          throw InputError("ks " + text + " is not a list of K from 1 to 64 (0: exact LRU's "
                           "curve, for comparison); e.g. ks 1,5,8,16");
        }
        o.ks.push_back(static_cast<uint32_t>(k));
        start = comma + 1;
      }
    } else {
      size_t n = 0;
      const char* name = RedisModule_StringPtrLen(argv[i], &n);
      throw InputError("unknown argument '" + std::string(name, n) +
                       "'; the arguments are rate, min-keys, ks and cpu-budget");
    }
  }
  return o;
}

}  // namespace
}  // namespace symbiosis

extern "C" int RedisModule_OnLoad(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  using namespace symbiosis;
  if (RedisModule_Init(ctx, "symbiosis", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) {
    return REDISMODULE_ERR;
  }
  try {
    CommandObserverOptions options = ParseArguments(argv, argc);
    options.background = true;
    observer = new CommandObserver(options);
  } catch (const InputError& e) {
    RedisModule_Log(ctx, "warning", "symbiosis: %s", e.what());
    return REDISMODULE_ERR;
  }
  if (RedisModule_CreateCommand(ctx, "symbiosis.mrc", MrcCommand, "readonly", 0, 0, 0) ==
          REDISMODULE_ERR ||
      RedisModule_CreateCommand(ctx, "symbiosis.stats", StatsCommand, "readonly fast", 0, 0, 0) ==
          REDISMODULE_ERR ||
      RedisModule_CreateCommand(ctx, "symbiosis.reset", ResetCommand, "readonly fast", 0, 0, 0) ==
          REDISMODULE_ERR ||
      RedisModule_RegisterCommandFilter(ctx, Filter, REDISMODULE_CMDFILTER_NOSELF) == nullptr) {
    return REDISMODULE_ERR;
  }
  return REDISMODULE_OK;
}
