// A bench DB's layout file, DIR/symbiosis-bench.json: what `load` wrote
// (keys, value size, the compressed share asked for and the one measured,
// D_u and the tables' bytes), read back by `run` and `overhead`.

#ifndef SYMBIOSIS_TOOLS_DRIVER_DB_LAYOUT_H_
#define SYMBIOSIS_TOOLS_DRIVER_DB_LAYOUT_H_

#include <cstdint>
#include <string>

#include "driver/json_lines.h"

namespace symbiosis::bench {

inline constexpr char kLayoutFile[] = "symbiosis-bench.json";

struct DbLayout {
  uint64_t keys = 0;
  uint32_t value_bytes = 0;
  double alpha_target = 0;  // as given: CheckValue recomputes the values' heads from it
  double alpha_measured = 0;
  uint64_t data_bytes = 0;  // D_u: keys * (key + value)
  uint64_t table_bytes = 0;
};

Json ToJson(const DbLayout& layout);

// The layout of the DB at `db`. Throws InputError, saying how to make one,
// when `db` is not a directory, has no layout file, or the file is not
// one `load` wrote.
DbLayout ReadLayout(const std::string& db, const std::string& program);

}  // namespace symbiosis::bench

#endif  // SYMBIOSIS_TOOLS_DRIVER_DB_LAYOUT_H_
