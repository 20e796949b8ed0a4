#include "symbiosis/controller_stats.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace symbiosis {
namespace {

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string JsonNumber(double x) {
  if (!std::isfinite(x)) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

std::string JsonBool(bool b) { return b ? "true" : "false"; }

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
  std::string j = "{";
  j += "\"state\": " + JsonString(ControllerStateName(s.state));
  j += ", \"memory_bytes\": " + std::to_string(s.memory_bytes);
  j += ", \"sample_rate\": " + JsonNumber(s.sample_rate);
  j += ", \"settings\": {\"min_app_fraction\": " + JsonNumber(s.settings.min_app_fraction) +
       ", \"read_tie_margin\": " + JsonNumber(s.settings.read_tie_margin) +
       ", \"change_floor_on_parts\": " + JsonBool(s.settings.change_floor_on_parts) +
       ", \"change_floor\": " + JsonNumber(s.settings.change_floor) +
       ", \"app_miss_change_floor\": " + JsonNumber(s.settings.app_miss_change_floor) +
       ", \"device_read_change_floor\": " + JsonNumber(s.settings.device_read_change_floor) + "}";
  if (s.block_cache_shard_bits >= 0) {
    j += ", \"shard_bits\": {\"block_cache\": " + std::to_string(s.block_cache_shard_bits) +
         ", \"secondary_cache\": " + std::to_string(s.secondary_cache_shard_bits) + "}";
  }
  j += ", \"ma_bytes\": " + std::to_string(s.ma_bytes);
  j += ", \"target_ma_bytes\": " + std::to_string(s.target_ma_bytes);
  j += ", \"accesses\": " + std::to_string(s.accesses);
  j += ", \"hit_app\": " + JsonNumber(s.hit_app);
  j += ", \"hit_kernel\": " + JsonNumber(s.hit_kernel);
  j += ", \"latency\": " + JsonNumber(s.latency);
  j += ", \"reference_latency\": " + JsonNumber(s.reference_latency);
  j += ", \"costs\": {\"app_miss\": " + JsonNumber(s.costs.app_miss) +
       ", \"kernel_miss\": " + JsonNumber(s.costs.kernel_miss) +
       ", \"app_miss_measured\": " + JsonBool(s.app_miss_cost_measured) +
       ", \"app_miss_split\": " + JsonBool(s.app_miss_cost_split) +
       ", \"kernel_miss_measured\": " + JsonBool(s.kernel_miss_cost_measured) +
       ", \"kernel_miss_cpu\": " + JsonNumber(s.costs.kernel_miss_cpu) +
       ", \"kernel_miss_cpu_measured\": " + JsonBool(s.kernel_miss_cpu_measured) +
       ", \"second_tier_store\": " + JsonNumber(s.costs.second_tier_store) +
       ", \"second_tier_store_measured\": " + JsonBool(s.second_tier_store_measured) +
       ", \"prior\": {\"app_miss\": " + JsonNumber(s.prior_costs.app_miss) +
       ", \"kernel_miss\": " + JsonNumber(s.prior_costs.kernel_miss) +
       ", \"kernel_miss_cpu\": " + JsonNumber(s.prior_costs.kernel_miss_cpu) +
       ", \"second_tier_store\": " + JsonNumber(s.prior_costs.second_tier_store) + "}}";
  j += ", \"cpu_load\": {\"cpus\": " + JsonNumber(s.cpu_load.cpus) +
       ", \"threads\": " + JsonNumber(s.cpu_load.threads) +
       ", \"base_cpu\": " + JsonNumber(s.cpu_load.base_cpu) +
       ", \"measured\": " + JsonBool(s.cpu_load_measured) + "}";
  j += ", \"ghost_memory_bytes\": " + std::to_string(s.ghost_memory_bytes);
  j += ", \"peak_ghost_memory_bytes\": " + std::to_string(s.peak_ghost_memory_bytes);
  j += ", \"ignored_events\": " + std::to_string(s.ignored_events);
  j += ", \"kernel_cache_offset_bytes\": " + std::to_string(s.kernel_cache_offset_bytes);
  j += ", \"read_charge_overhead_bytes\": " + std::to_string(s.read_charge_overhead_bytes);
  j += ", \"rounds\": [";
  for (size_t r = 0; r < s.rounds.size(); r++) {
    const RoundStats& round = s.rounds[r];
    j += r ? ", {" : "{";
    j += "\"start_access\": " + std::to_string(round.start_access);
    j += ", \"end_access\": " + std::to_string(round.end_access);
    j += ", \"trigger\": " + JsonString(round.trigger);
    j += ", \"reset\": " + JsonBool(round.reset);
    j += ", \"current_ma_bytes\": " + std::to_string(round.current_ma_bytes);
    j += ", \"sampled_share\": " + JsonNumber(round.sampled_share);
    j += ", \"measured_latency\": " + JsonNumber(round.measured_latency);
    j += ", \"simulated_latency\": " + JsonNumber(round.simulated_latency);
    j += ", \"adopted_ma_bytes\": " + std::to_string(round.adopted_ma_bytes);
    j += ", \"decision\": " + JsonString(round.decision);
    j += ", \"reason\": " + JsonString(round.reason);
    j += ", \"trials\": [";
    for (size_t i = 0; i < round.trials.size(); i++) {
      const TrialStats& t = round.trials[i];
      j += i ? ", {" : "{";
      j += "\"ma_bytes\": " + std::to_string(t.ma_bytes) +
           ", \"before\": " + JsonNumber(t.before) + ", \"after\": " + JsonNumber(t.after) +
           ", \"before_wall_us\": " + JsonNumber(t.before_wall_us) +
           ", \"after_wall_us\": " + JsonNumber(t.after_wall_us) +
           ", \"noise_us\": " + JsonNumber(t.noise_us) +
           ", \"wall_noise_us\": " + JsonNumber(t.wall_noise_us) +
           ", \"kept\": " + JsonBool(t.kept) + "}";
    }
    j += "]";
    const VerificationStats& v = round.verification;
    j += ", \"verification\": ";
    j += v.checked ? "{\"from_ma_bytes\": " + std::to_string(v.from_ma_bytes) +
                         ", \"to_ma_bytes\": " + std::to_string(v.to_ma_bytes) +
                         ", \"from_us\": " + JsonNumber(v.from_us) +
                         ", \"to_us\": " + JsonNumber(v.to_us) +
                         ", \"from_wall_us\": " + JsonNumber(v.from_wall_us) +
                         ", \"to_wall_us\": " + JsonNumber(v.to_wall_us) +
                         ", \"interleaved\": " + JsonBool(v.interleaved) +
                         ", \"undone\": " + JsonBool(v.undone) + "}"
                   : std::string("null");
    j += ", \"candidates\": [";
    for (size_t i = 0; i < round.candidates.size(); i++) {
      const CandidateStats& c = round.candidates[i];
      j += i ? ", {" : "{";
      j += "\"ma_bytes\": " + std::to_string(c.ma_bytes);
      j += ", \"current\": " + JsonBool(c.current);
      j += ", \"valid\": " + JsonBool(c.valid);
      j += ", \"samples\": " + std::to_string(c.samples);
      j += ", \"hit_app\": " + JsonNumber(c.hit_app);
      j += ", \"hit_kernel\": " + JsonNumber(c.hit_kernel);
      j += ", \"stores\": " + JsonNumber(c.stores);
      j += ", \"predicted_latency\": " + JsonNumber(c.predicted_latency);
      j += ", \"predicted_access_time\": " + JsonNumber(c.predicted_access_time);
      j += ", \"overcommits\": " + JsonBool(c.overcommits);
      j += "}";
    }
    j += "]}";
  }
  j += "]}";
  return j;
}

}  // namespace symbiosis
