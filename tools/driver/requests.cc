#include "driver/requests.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>

#include "driver/driver.h"

namespace symbiosis::bench {

std::string Key(uint64_t i) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "user%012llu", static_cast<unsigned long long>(i));
  return buffer;
}

void FillValue(uint64_t key, uint64_t version, double alpha, std::string* value) {
  std::mt19937_64 rng(key * 0x9E3779B97F4A7C15ull + version);
  const size_t random = std::max<size_t>(8, static_cast<size_t>(value->size() * alpha));
  for (size_t i = 0; i < value->size(); ++i) {
    (*value)[i] = i < random ? static_cast<char>(rng()) : (*value)[i % random];
  }
}

std::string CheckValue(const std::string& value, uint32_t value_bytes, double alpha) {
  if (value.size() != value_bytes) {
    return "a value of " + std::to_string(value.size()) + " bytes, where the load wrote " +
           std::to_string(value_bytes);
  }
  const size_t random = std::max<size_t>(8, static_cast<size_t>(value.size() * alpha));
  for (size_t at = random; at < value.size(); at += random) {
    if (std::memcmp(value.data() + at, value.data(), std::min(random, value.size() - at)) != 0) {
      return "a value whose bytes from " + std::to_string(at) +
             " on are not the ones the load wrote";
    }
  }
  return "";
}

void RequestErrors::Add(const std::string& message) {
  if (count_.fetch_add(1, std::memory_order_relaxed) == 0) {
    std::lock_guard<std::mutex> lock(mu_);
    first_ = message;
  }
}

std::string RequestErrors::first() const {
  std::lock_guard<std::mutex> lock(mu_);
  return first_;
}

void Request(BenchDb& db, const KeyRequest& request, const std::string* write_value,
             uint32_t value_bytes, double alpha, std::string* value, RequestErrors* errors) {
  const std::string key = Key(request.first_key);
  std::string error;
  if (write_value != nullptr) {
    if (!db.Put(key, *write_value, &error)) errors->Add("Put " + key + ": " + error);
  } else if (request.count > 1) {
    if (!db.Scan(key, request.count, &error)) errors->Add("Scan " + key + ": " + error);
  } else if (!db.Get(key, value, &error)) {
    errors->Add("Get " + key + ": " + error);
  } else if (error = CheckValue(*value, value_bytes, alpha); !error.empty()) {
    errors->Add("Get " + key + " returned " + error);
  }
}

std::string FailedRequests(const RequestErrors& errors, uint64_t requests) {
  return std::to_string(errors.count()) + " of " + std::to_string(requests) +
         " requests failed; the first: " + errors.first();
}

}  // namespace symbiosis::bench
