// The steps every engine plugin's Open shares: sizes named in messages,
// the table files' bytes (which set the sample rate), the device's
// read-ahead under the DB, and the page cache's room monitor when M comes
// from the memory cgroup. One copy here for every engine
// (docs/adding-an-engine.md).

#ifndef SYMBIOSIS_ENGINES_COMMON_ENGINE_KIT_H_
#define SYMBIOSIS_ENGINES_COMMON_ENGINE_KIT_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "budget/page_cache_room.h"
#include "symbiosis/controller.h"

namespace symbiosis::engine_kit {

// "N MiB", rounded down: sizes in one-line error messages.
std::string MiB(uint64_t bytes);

// Bytes of the files directly under `dir` whose extension (".sst") is one
// of `extensions`; 0 if `dir` does not exist.
uint64_t TableBytes(const std::string& dir, std::initializer_list<std::string_view> extensions);

// The read-ahead, in pages, of the device that holds `db_path`, or its
// parent's when the DB's folder does not exist yet (it is on the same
// device in all but exotic set-ups); nullopt if neither is known.
std::optional<uint32_t> DbReadaheadPages(const std::string& db_path);

// A monitor of this process's memory cgroup that hands the page cache's
// room beside the engine's other memory (`app_usage`: the application
// cache's bytes) to `controller` every second, releasing the allocator's
// free heap before each measurement. Throws CgroupError if there is no
// cgroup. REQUIRES: `controller` and what `app_usage` reads outlive the
// monitor.
std::unique_ptr<PageCacheRoomMonitor> StartPageCacheRoomMonitor(
    uint64_t memory, std::function<uint64_t()> app_usage, Controller* controller);

}  // namespace symbiosis::engine_kit

#endif  // SYMBIOSIS_ENGINES_COMMON_ENGINE_KIT_H_
