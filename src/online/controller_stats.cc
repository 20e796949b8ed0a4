#include "symbiosis/controller_stats.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

namespace symbiosis {
namespace {

using Json = nlohmann::ordered_json;

// Six significant digits, as the stats are measured; null where not finite.
Json Number(double x) {
  if (!std::isfinite(x)) return nullptr;
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return std::strtod(text, nullptr);
}

Json ToJson(const TrialStats& t) {
  return {{"ma_bytes", t.ma_bytes},
          {"before", Number(t.before)},
          {"after", Number(t.after)},
          {"before_wall_us", Number(t.before_wall_us)},
          {"after_wall_us", Number(t.after_wall_us)},
          {"noise_us", Number(t.noise_us)},
          {"wall_noise_us", Number(t.wall_noise_us)},
          {"kept", t.kept},
          {"cut_short", t.cut_short},
          {"extended", t.extended}};
}

Json ToJson(const VerificationStats& v) {
  if (!v.checked) return nullptr;
  return {{"from_ma_bytes", v.from_ma_bytes},
          {"to_ma_bytes", v.to_ma_bytes},
          {"from_us", Number(v.from_us)},
          {"to_us", Number(v.to_us)},
          {"from_wall_us", Number(v.from_wall_us)},
          {"to_wall_us", Number(v.to_wall_us)},
          {"interleaved", v.interleaved},
          {"undone", v.undone}};
}

Json ToJson(const CandidateStats& c) {
  return {{"ma_bytes", c.ma_bytes},
          {"current", c.current},
          {"valid", c.valid},
          {"samples", c.samples},
          {"hit_app", Number(c.hit_app)},
          {"hit_second_tier", Number(c.hit_second_tier)},
          {"stores", Number(c.stores)},
          {"predicted_latency", Number(c.predicted_latency)},
          {"predicted_access_time", Number(c.predicted_access_time)},
          {"overcommits", c.overcommits}};
}

Json ToJson(const RoundStats& round) {
  Json trials = Json::array(), candidates = Json::array();
  for (const TrialStats& t : round.trials) trials.push_back(ToJson(t));
  for (const CandidateStats& c : round.candidates) candidates.push_back(ToJson(c));
  return {{"start_access", round.start_access},
          {"end_access", round.end_access},
          {"trigger", round.trigger},
          {"reset", round.reset},
          {"current_ma_bytes", round.current_ma_bytes},
          {"sampled_share", Number(round.sampled_share)},
          {"measured_latency", Number(round.measured_latency)},
          {"simulated_latency", Number(round.simulated_latency)},
          {"adopted_ma_bytes", round.adopted_ma_bytes},
          {"decision", round.decision},
          {"reason", round.reason},
          {"trials", trials},
          {"verification", ToJson(round.verification)},
          {"candidates", candidates}};
}

}  // namespace

const char* ControllerStateName(ControllerState state) {
  switch (state) {
    case ControllerState::kStable: return "stable";
    case ControllerState::kAdapting: return "adapting";
    case ControllerState::kTrying: return "trying";
    case ControllerState::kSettling: return "settling";
    case ControllerState::kVerifying: return "verifying";
  }
  return "?";
}

std::string ToJson(const ControllerStats& s) {
  Json j;
  j["state"] = ControllerStateName(s.state);
  j["memory_bytes"] = s.memory_bytes;
  j["sample_rate"] = Number(s.sample_rate);
  j["settings"] = {{"min_app_fraction", Number(s.settings.min_app_fraction)},
                   {"read_tie_margin", Number(s.settings.read_tie_margin)},
                   {"change_floor_on_parts", s.settings.change_floor_on_parts},
                   {"change_floor", Number(s.settings.change_floor)},
                   {"app_miss_change_floor", Number(s.settings.app_miss_change_floor)},
                   {"device_read_change_floor", Number(s.settings.device_read_change_floor)}};
  if (s.block_cache_shard_bits >= 0) {
    j["shard_bits"] = {{"block_cache", s.block_cache_shard_bits},
                       {"secondary_cache", s.secondary_cache_shard_bits}};
  }
  j["ma_bytes"] = s.ma_bytes;
  j["target_ma_bytes"] = s.target_ma_bytes;
  j["accesses"] = s.accesses;
  j["hit_app"] = Number(s.hit_app);
  j["hit_second_tier"] = Number(s.hit_second_tier);
  j["latency"] = Number(s.latency);
  j["reference_latency"] = Number(s.reference_latency);
  j["costs"] = {{"app_miss", Number(s.costs.app_miss)},
                {"second_tier_miss", Number(s.costs.second_tier_miss)},
                {"app_miss_measured", s.app_miss_cost_measured},
                {"app_miss_split", s.app_miss_cost_split},
                {"second_tier_miss_measured", s.second_tier_miss_cost_measured},
                {"second_tier_miss_cpu", Number(s.costs.second_tier_miss_cpu)},
                {"second_tier_miss_cpu_measured", s.second_tier_miss_cpu_measured},
                {"second_tier_store", Number(s.costs.second_tier_store)},
                {"second_tier_store_measured", s.second_tier_store_measured},
                {"prior", {{"app_miss", Number(s.prior_costs.app_miss)},
                           {"second_tier_miss", Number(s.prior_costs.second_tier_miss)},
                           {"second_tier_miss_cpu", Number(s.prior_costs.second_tier_miss_cpu)},
                           {"second_tier_store", Number(s.prior_costs.second_tier_store)}}}};
  j["cpu_load"] = {{"cpus", Number(s.cpu_load.cpus)},
                   {"threads", Number(s.cpu_load.threads)},
                   {"base_cpu", Number(s.cpu_load.base_cpu)},
                   {"measured", s.cpu_load_measured}};
  j["ghost_memory_bytes"] = s.ghost_memory_bytes;
  j["peak_ghost_memory_bytes"] = s.peak_ghost_memory_bytes;
  j["ignored_events"] = s.ignored_events;
  j["kernel_cache_offset_bytes"] = s.kernel_cache_offset_bytes;
  j["read_charge_overhead_bytes"] = s.read_charge_overhead_bytes;
  Json rounds = Json::array();
  for (const RoundStats& round : s.rounds) rounds.push_back(ToJson(round));
  j["rounds"] = rounds;
  // An engine's message in a round's reason may hold bytes that are not
  // UTF-8: they become U+FFFD rather than an exception.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace symbiosis
