// redis_load: cache-aside load on real redis-servers, one tenant a server,
// for `symbiosis bench redis`. Each client thread draws keys from its
// tenant's workload (base's generators), GETs each, and on a miss waits the
// tenant's miss latency (its database, emulated: a sleep) and SETs the
// value. A request's latency is the GET's, plus the wait and the SET's on
// a miss. Every hit's value is checked against the key's: a wrong value
// ends the run (exit 1).
//
// With rate=N a tenant's requests arrive open-loop, N a second in all
// (Poisson arrivals, split over its clients), as a cache's users arrive
// whatever its latency; a request that arrives while its client is busy
// counts its latency from its arrival, so a client that falls behind
// counts its queueing too; one that arrives at an idle client counts from
// its send, leaving out how late this program's thread woke. Without, each client
// sends its next request when the last one ends (closed loop).
//
//   redis_load --tenant name=a,port=6379,workload=zipfian,keys=100000,
//                       value-bytes=1000,miss-latency=200us,clients=2,seed=1
//              [--tenant ...] [--host 127.0.0.1] --duration 60s [--interval 1s]
//              [--warmup 0s]
//
// Stdout: one JSON line per interval ({"t", "tenants": [{name, ops, hits,
// mean_us, p99_us}]}), then {"summary": [...], "all": {...}} over the run
// after the warm-up, per tenant and over every request. Bad flags:
// one line on stderr, exit 2; a server lost or refusing: exit 1.

#include <hiredis/hiredis.h>
#include <sys/prctl.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "driver/flags.h"
#include "driver/histogram.h"
#include "base/hash.h"
#include "driver/json_lines.h"
#include "symbiosis/error.h"
#include "symbiosis/workload.h"

namespace symbiosis::bench {
namespace {

struct Tenant {
  std::string name;
  int port = 0;
  std::string workload = "zipfian";
  uint64_t keys = 100000;
  uint32_t value_bytes = 1000;
  double miss_latency_s = 0.0002;
  int clients = 2;
  double rate = 0;  // requests per second in all; 0: closed loop
  uint64_t seed = 1;
};

// Per client: its histogram and counts (one writer, read by main).
struct ClientCounters {
  Histogram latency;
  std::atomic<uint64_t> hits{0};
  std::atomic<uint64_t> ops{0};
};

std::atomic<bool> g_stop{false};
std::atomic<bool> g_failed{false};

void OnSignal(int) { g_stop.store(true); }

const char kUsage[] =
    "usage: redis_load --tenant name=N,port=P[,workload=W][,keys=K][,value-bytes=B]"
    "[,miss-latency=D][,clients=C][,rate=N][,seed=S] [--tenant ...] --duration D [--interval 1s] "
    "[--host 127.0.0.1]";

Tenant ParseTenant(const std::string& text) {
  Tenant t;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    start = comma + 1;
    const size_t eq = item.find('=');
    if (eq == std::string::npos) Fail(2, "--tenant '" + text + "': '" + item + "' is not key=value");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    const std::string what = "--tenant " + key;
    if (key == "name") {
      if (value.empty()) Fail(2, "--tenant: an empty name");
      t.name = value;
    } else if (key == "port") {
      t.port = static_cast<int>(ParseNumberIn(value, what, 1, true, 65535, true, "6379"));
    } else if (key == "workload") {
      t.workload = value;
    } else if (key == "keys") {
      t.keys = ParseCount(value, what);
      if (t.keys == 0) Fail(2, "--tenant keys=0: a tenant needs at least one key, e.g. keys=100000");
    } else if (key == "value-bytes") {
      t.value_bytes = static_cast<uint32_t>(ParseNumberIn(value, what, 1, true, 1 << 20, true, "1000"));
    } else if (key == "miss-latency") {
      t.miss_latency_s = ParseSeconds(value, what);
    } else if (key == "clients") {
      t.clients = static_cast<int>(ParseNumberIn(value, what, 1, true, 64, true, "2"));
    } else if (key == "rate") {
      t.rate = ParseNumberIn(value, what, 0, true, 1e7, true, "1000");
    } else if (key == "seed") {
      t.seed = static_cast<uint64_t>(ParseNumberIn(value, what, 0, true, 1e15, true, "1"));
    } else {
      Fail(2, "--tenant: unknown key '" + key +
                  "'; the keys are name, port, workload, keys, value-bytes, miss-latency, "
                  "clients, rate, seed");
    }
  }
  if (t.name.empty() || t.port == 0) Fail(2, "--tenant '" + text + "' needs name= and port=");
  // Checks the spec now, so a bad one is a one-line error, not a thread's.
  MakeWorkload(t.workload, t.keys, t.value_bytes, t.seed);
  return t;
}

std::string KeyOf(const Tenant& t, uint64_t index) { return t.name + ":" + std::to_string(index); }

// The key's value: its name repeated, cut to value_bytes, so a hit is checked.
void ValueOf(const std::string& key, uint32_t bytes, std::string* out) {
  out->resize(bytes);
  for (uint32_t i = 0; i < bytes; i++) (*out)[i] = key[i % key.size()];
}

void RunClient(const std::string& host, const Tenant& t, int index, ClientCounters* counters) {
  timeval timeout{5, 0};
  redisContext* c = redisConnectWithTimeout(host.c_str(), t.port, timeout);
  if (c == nullptr || c->err) {
    std::fprintf(stderr, "redis_load: error: tenant %s: cannot connect to %s:%d (%s)\n",
                 t.name.c_str(), host.c_str(), t.port, c ? c->errstr : "out of memory");
    g_failed.store(true);
    g_stop.store(true);
    if (c) redisFree(c);
    return;
  }
  redisSetTimeout(c, timeout);
  std::unique_ptr<Workload> workload =
      MakeWorkload(t.workload, t.keys, t.value_bytes, t.seed * 1000 + index);
  const auto wait = std::chrono::nanoseconds(static_cast<int64_t>(t.miss_latency_s * 1e9));
  std::string value;
  auto fail = [&](const std::string& why) {
    std::fprintf(stderr, "redis_load: error: tenant %s (port %d): %s\n", t.name.c_str(), t.port,
                 why.c_str());
    g_failed.store(true);
    g_stop.store(true);
  };
  // Open loop: this client's share of the arrivals, exponential gaps.
  const double mean_gap_s = t.rate > 0 ? t.clients / t.rate : 0;
  uint64_t draw = t.seed * 7919 + static_cast<uint64_t>(index) + 1;
  auto arrival = std::chrono::steady_clock::now();
  while (!g_stop.load(std::memory_order_relaxed)) {
    const KeyRequest r = workload->Next();
    for (uint32_t i = 0; i < r.count && !g_stop.load(std::memory_order_relaxed); i++) {
      const std::string key = KeyOf(t, (r.first_key + i) % t.keys);
      auto start = std::chrono::steady_clock::now();
      if (mean_gap_s > 0) {
        const double u = (static_cast<double>(SplitMix64(&draw) >> 11) + 0.5) / 9007199254740992.0;
        arrival += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(-std::log(u) * mean_gap_s));
        if (arrival > start) {
          // Idle when it arrives: the request is sent as this thread wakes,
          // and the wake's lateness (a busy machine's run queue) is ours,
          // not the system's, so its latency counts from the send.
          std::this_thread::sleep_until(arrival);
          if (g_stop.load(std::memory_order_relaxed)) break;
          start = std::chrono::steady_clock::now();
        } else {
          start = arrival;  // arrived while the client was busy: queueing counts
        }
      }
      auto* reply = static_cast<redisReply*>(redisCommand(c, "GET %b", key.data(), key.size()));
      if (reply == nullptr) return fail(std::string("GET failed: ") + c->errstr);
      const bool hit = reply->type == REDIS_REPLY_STRING;
      if (hit) {
        ValueOf(key, t.value_bytes, &value);
        if (static_cast<size_t>(reply->len) != value.size() ||
            std::memcmp(reply->str, value.data(), value.size()) != 0) {
          freeReplyObject(reply);
          return fail("GET " + key + " returned a wrong value");
        }
      } else if (reply->type == REDIS_REPLY_ERROR) {
        const std::string error(reply->str, reply->len);
        freeReplyObject(reply);
        return fail("GET " + key + ": " + error);
      }
      freeReplyObject(reply);
      if (!hit) {
        std::this_thread::sleep_for(wait);  // the database's read, emulated
        ValueOf(key, t.value_bytes, &value);
        reply = static_cast<redisReply*>(
            redisCommand(c, "SET %b %b", key.data(), key.size(), value.data(), value.size()));
        if (reply == nullptr) return fail(std::string("SET failed: ") + c->errstr);
        if (reply->type == REDIS_REPLY_ERROR) {
          const std::string error(reply->str, reply->len);
          freeReplyObject(reply);
          return fail("SET " + key + ": " + error);
        }
        freeReplyObject(reply);
      }
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now() - start)
                          .count();
      counters->latency.Add(static_cast<uint64_t>(ns));
      if (hit) counters->hits.fetch_add(1, std::memory_order_relaxed);
      counters->ops.fetch_add(1, std::memory_order_relaxed);
    }
  }
  redisFree(c);
}

struct Snapshot {
  std::vector<uint64_t> counts = std::vector<uint64_t>(Histogram::kBuckets);
  uint64_t sum = 0, hits = 0, ops = 0;
};

Snapshot Take(const std::vector<ClientCounters*>& clients) {
  Snapshot s;
  for (const ClientCounters* c : clients) {
    c->latency.AddTo(&s.counts, &s.sum);
    s.hits += c->hits.load(std::memory_order_relaxed);
    s.ops += c->ops.load(std::memory_order_relaxed);
  }
  return s;
}

Json Describe(const std::string& name, const Snapshot& now, const Snapshot& before,
              double seconds) {
  std::vector<uint64_t> counts(Histogram::kBuckets);
  for (int i = 0; i < Histogram::kBuckets; i++) counts[i] = now.counts[i] - before.counts[i];
  const Window w = Summarize(counts, now.sum - before.sum);
  const uint64_t ops = now.ops - before.ops, hits = now.hits - before.hits;
  Json j;
  j["name"] = name;
  j["ops"] = ops;
  j["hits"] = hits;
  j["ops_per_s"] = Rounded(seconds > 0 ? ops / seconds : 0, 1);
  j["hit_ratio"] = Rounded(ops ? static_cast<double>(hits) / ops : 0, 5);
  j["mean_us"] = Rounded(w.mean_us, 2);
  j["p99_us"] = Rounded(w.p99_us, 2);
  return j;
}

int Main(int argc, char** argv) {
  SetProgramName("redis_load");
  std::vector<Tenant> tenants;
  std::string host = "127.0.0.1";
  double duration = 0, interval = 1, warmup = 0;
  for (int i = 1; i < argc; i++) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::printf("%s\n", kUsage);
      return 0;
    }
    if (i + 1 >= argc) Fail(2, flag + " needs a value; " + kUsage);
    const std::string value = argv[++i];
    if (flag == "--tenant") {
      tenants.push_back(ParseTenant(value));
    } else if (flag == "--host") {
      host = value;
    } else if (flag == "--duration") {
      duration = ParseSeconds(value, "--duration");
    } else if (flag == "--interval") {
      interval = ParseSeconds(value, "--interval");
    } else if (flag == "--warmup") {
      warmup = ParseSeconds(value, "--warmup");
    } else {
      Fail(2, "unknown flag " + flag + "; " + kUsage);
    }
  }
  if (tenants.empty()) Fail(2, std::string("give at least one --tenant; ") + kUsage);
  if (!(duration > 0)) Fail(2, "give --duration longer than 0, e.g. 60s");
  if (!(interval > 0)) Fail(2, "--interval must be longer than 0, e.g. 1s");
  if (!(warmup >= 0 && warmup < duration)) Fail(2, "--warmup must be shorter than --duration");
  // Sleeps of a few hundred microseconds need no timer slack (50 us by default).
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);

  std::vector<std::unique_ptr<ClientCounters>> counters;
  std::vector<std::vector<ClientCounters*>> per_tenant(tenants.size());
  std::vector<std::thread> threads;
  for (size_t t = 0; t < tenants.size(); t++) {
    for (int c = 0; c < tenants[t].clients; c++) {
      counters.push_back(std::make_unique<ClientCounters>());
      per_tenant[t].push_back(counters.back().get());
    }
  }
  size_t next = 0;
  for (size_t t = 0; t < tenants.size(); t++) {
    for (int c = 0; c < tenants[t].clients; c++) {
      threads.emplace_back(RunClient, host, std::cref(tenants[t]), c, counters[next++].get());
    }
  }
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto take_all = [&] {
    std::vector<Snapshot> s;
    for (const auto& clients : per_tenant) s.push_back(Take(clients));
    return s;
  };
  std::vector<Snapshot> last(tenants.size());
  std::vector<Snapshot> warm(tenants.size());  // at the end of the warm-up
  bool warmed = warmup == 0;
  double last_t = 0, warm_t = 0, next_t = std::min(interval, duration);
  while (!g_stop.load() && last_t < duration) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const double now = elapsed();
    if (!warmed && now >= warmup) {
      warm = take_all();
      warm_t = now;
      warmed = true;
    }
    if (now < next_t) continue;
    next_t = std::min(next_t + interval, duration);
    Json line;
    line["t"] = Rounded(now, 3);
    Json list = Json::array();
    std::vector<Snapshot> snapshots = take_all();
    for (size_t t = 0; t < tenants.size(); t++) {
      list.push_back(Describe(tenants[t].name, snapshots[t], last[t], now - last_t));
    }
    line["tenants"] = list;
    last = std::move(snapshots);
    last_t = now;
    PrintLine(line);
  }
  g_stop.store(true);
  for (auto& th : threads) th.join();
  if (g_failed.load()) return 1;
  if (!warmed) Fail(1, "stopped before the warm-up ended: nothing to summarize");
  // After the warm-up, per tenant and over every request.
  const double seconds = last_t - warm_t;
  Json list = Json::array();
  Snapshot all_now, all_warm;
  for (size_t t = 0; t < tenants.size(); t++) {
    list.push_back(Describe(tenants[t].name, last[t], warm[t], seconds));
    for (int i = 0; i < Histogram::kBuckets; i++) {
      all_now.counts[i] += last[t].counts[i];
      all_warm.counts[i] += warm[t].counts[i];
    }
    all_now.sum += last[t].sum, all_warm.sum += warm[t].sum;
    all_now.ops += last[t].ops, all_warm.ops += warm[t].ops;
    all_now.hits += last[t].hits, all_warm.hits += warm[t].hits;
  }
  Json summary;
  summary["summary"] = list;
  summary["all"] = Describe("all", all_now, all_warm, seconds);
  summary["seconds"] = Rounded(seconds, 3);
  PrintLine(summary);
  return 0;
}

}  // namespace
}  // namespace symbiosis::bench

int main(int argc, char** argv) {
  try {
    return symbiosis::bench::Main(argc, argv);
  } catch (const symbiosis::InputError& e) {
    symbiosis::bench::Fail(2, e.what());
  }
}
