#include "engines/common/engine_kit.h"

#include <chrono>
#include <filesystem>
#include <system_error>
#include <utility>

#include "budget/heap_release.h"
#include "symbiosis/cgroup.h"
#include "budget/residency.h"

namespace symbiosis::engine_kit {

std::string MiB(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

uint64_t TableBytes(const std::string& dir, std::initializer_list<std::string_view> extensions) {
  std::error_code error;
  uint64_t bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const std::string ext = entry.path().extension().string();
    bool table = false;
    for (const std::string_view e : extensions) table |= ext == e;
    if (!table) continue;
    const uintmax_t size = entry.file_size(error);
    if (!error) bytes += size;
  }
  return bytes;
}

std::optional<uint32_t> DbReadaheadPages(const std::string& db_path) {
  std::optional<uint32_t> pages = DeviceReadaheadPages(db_path);
  if (!pages) pages = DeviceReadaheadPages(std::filesystem::path(db_path).parent_path().string());
  return pages;
}

std::unique_ptr<PageCacheRoomMonitor> StartPageCacheRoomMonitor(
    uint64_t memory, std::function<uint64_t()> app_usage, Controller* controller) {
  return std::make_unique<PageCacheRoomMonitor>(
      DetectMemoryCgroup(), memory, std::move(app_usage), [] { ReleaseFreeHeap(); },
      [controller](int64_t offset) { controller->SetKernelCacheOffset(offset); },
      std::chrono::seconds(1));
}

}  // namespace symbiosis::engine_kit
