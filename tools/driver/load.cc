// `load`: writes keys 0..N-1 with FillValue's values in batches of 1000,
// builds the DB in DIR.partial and renames it, so a failed load leaves
// nothing half-written, and records the layout (and the measured alpha) in
// DIR/symbiosis-bench.json.

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "driver/commands.h"
#include "driver/db_layout.h"
#include "driver/requests.h"

namespace symbiosis::bench {

namespace fs = std::filesystem;

int Load(BenchEngine& engine, const Flags& flags) {
  if (!flags.Has("db") || !flags.Has("data-size")) {
    Fail(2, "load needs --db DIR and --data-size SIZE (e.g. --data-size 1280MiB)");
  }
  const std::string db_path = flags.Get("db", "");
  const uint64_t data_bytes = ParseBytes(flags.Get("data-size", ""), "--data-size");
  const uint64_t value_bytes = ParseBytes(flags.Get("value-size", "1000"), "--value-size");
  const double alpha = ParseFraction(flags.Get("alpha", "0.5"), "--alpha", false, true);
  const uint64_t seed = ParseCount(flags.Get("seed", "1"), "--seed");
  if (value_bytes > kMaxValueBytes) Fail(2, "--value-size must be at most 1MiB");
  if (fs::exists(db_path)) {
    Fail(2, db_path + " exists; remove it or choose another --db");
  }
  DbLayout layout;
  layout.value_bytes = static_cast<uint32_t>(value_bytes);
  layout.keys = data_bytes / (kKeyBytes + value_bytes);
  layout.alpha_target = alpha;
  layout.data_bytes = layout.keys * (kKeyBytes + value_bytes);
  if (layout.keys == 0) Fail(2, "--data-size is smaller than one entry");
  const std::string partial = db_path + ".partial";
  fs::remove_all(partial);
  std::string error;
  std::unique_ptr<BenchLoader> loader = engine.Create(partial, &error);
  if (!loader) Fail(1, "cannot create " + partial + ": " + error);
  const auto give_up = [&](const std::string& why) {
    loader.reset();
    fs::remove_all(partial);
    Fail(1, "loading " + db_path + " failed: " + why + " (is the disk full?); nothing was kept");
  };
  std::string value(value_bytes, '\0');
  const bool tty = isatty(2);
  const uint64_t batch_keys = 1000;
  std::vector<std::pair<std::string, std::string>> batch;
  for (uint64_t first = 0; first < layout.keys; first += batch_keys) {
    batch.clear();
    for (uint64_t i = first; i < std::min(layout.keys, first + batch_keys); ++i) {
      FillValue(i, seed, alpha, &value);
      batch.emplace_back(Key(i), value);
    }
    if (!loader->Write(batch, &error)) give_up(error);
    if (tty && first % (batch_keys * 100) == 0) {
      std::fprintf(stderr, "\rloading %s: %5.1f%%", db_path.c_str(),
                   100.0 * first / static_cast<double>(layout.keys));
    }
  }
  if (!loader->Finish(&error)) give_up(error);
  loader.reset();
  if (tty) std::fprintf(stderr, "\rloading %s: done   \n", db_path.c_str());
  layout.table_bytes = engine.TableBytes(partial);
  layout.alpha_measured = static_cast<double>(layout.table_bytes) / layout.data_bytes;
  std::ofstream(fs::path(partial) / kLayoutFile) << Dump(ToJson(layout)) << "\n";
  fs::rename(partial, db_path);
  PrintLine(ToJson(layout));
  return 0;
}

}  // namespace symbiosis::bench
