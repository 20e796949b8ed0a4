#include "driver/json_lines.h"

#include <cmath>
#include <cstdio>

namespace symbiosis::bench {

double Rounded(double x, int decimals) {
  if (!std::isfinite(x)) return x;
  const double scale = std::pow(10.0, decimals);
  return std::round(x * scale) / scale;
}

std::string Dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

void PrintLine(const Json& j) {
  const std::string line = Dump(j) + "\n";
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
}

}  // namespace symbiosis::bench
