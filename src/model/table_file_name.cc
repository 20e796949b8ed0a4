#include "model/table_file_name.h"

namespace symbiosis {

std::optional<uint64_t> TableFileNumber(std::string_view path,
                                        std::initializer_list<std::string_view> suffixes) {
  const size_t slash = path.find_last_of('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const size_t dot = name.find('.');
  if (dot == 0 || dot == std::string_view::npos || dot > 20) return std::nullopt;
  bool known = false;
  for (std::string_view suffix : suffixes) known = known || name.substr(dot) == suffix;
  if (!known) return std::nullopt;
  uint64_t number = 0;
  for (size_t i = 0; i < dot; ++i) {
    if (name[i] < '0' || name[i] > '9') return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(name[i] - '0');
    if (number > (UINT64_MAX - digit) / 10) return std::nullopt;
    number = number * 10 + digit;
  }
  return number;
}

}  // namespace symbiosis
