#include "driver/db_layout.h"

#include <filesystem>
#include <fstream>

#include "symbiosis/error.h"

namespace symbiosis::bench {

namespace fs = std::filesystem;

Json ToJson(const DbLayout& l) {
  Json j;
  j["keys"] = l.keys;
  j["value_bytes"] = l.value_bytes;
  j["alpha_target"] = l.alpha_target;
  j["alpha_measured"] = l.alpha_measured;
  j["data_bytes"] = l.data_bytes;
  j["table_bytes"] = l.table_bytes;
  return j;
}

DbLayout ReadLayout(const std::string& db, const std::string& program) {
  const std::string make = "; create it with `" + program + " load --db " + db +
                           " --data-size ...`";
  std::error_code error;
  if (!fs::is_directory(db, error)) throw InputError("no DB directory " + db + make);
  const fs::path path = fs::path(db) / kLayoutFile;
  std::ifstream in(path);
  if (!in) throw InputError(db + " is not a benchmark DB (no " + kLayoutFile + ")" + make);
  const Json j = Json::parse(in, nullptr, /*allow_exceptions=*/false);
  const auto bad = [&](const std::string& why) {
    return InputError(path.string() + " " + why + ": it is not the file `load` wrote; remove " +
                      db + " and load it again");
  };
  if (!j.is_object()) throw bad("is not a JSON object");
  const auto number = [&](const char* field) {
    const auto it = j.find(field);
    if (it == j.end() || !it->is_number()) throw bad(std::string("lacks the number ") + field);
    return it->get<double>();
  };
  const auto count = [&](const char* field) {
    const auto it = j.find(field);
    if (it == j.end() || !it->is_number_unsigned()) {
      throw bad(std::string("lacks the count ") + field);
    }
    return it->get<uint64_t>();
  };
  DbLayout l;
  l.keys = count("keys");
  l.value_bytes = static_cast<uint32_t>(count("value_bytes"));
  l.alpha_target = number("alpha_target");
  l.alpha_measured = number("alpha_measured");
  l.data_bytes = count("data_bytes");
  l.table_bytes = count("table_bytes");
  if (l.keys == 0 || l.value_bytes == 0 || !(l.alpha_target > 0 && l.alpha_target <= 1)) {
    throw bad("has no keys, no value size, or an alpha_target outside (0, 1]");
  }
  return l;
}

}  // namespace symbiosis::bench
