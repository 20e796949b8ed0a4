#include "budget/emulated_page_cache.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <thread>
#include <unordered_map>
#include <vector>

#include "symbiosis/block.h"
#include "symbiosis/error.h"
#include "model/page_cache_model.h"

namespace symbiosis {
namespace {

// Frames beyond the model's capacity, so that a frame whose page the model
// has evicted can wait for the clock hand instead of being found at once.
uint64_t FrameLimit(uint64_t capacity_pages) {
  return capacity_pages + capacity_pages / 8 + 64;
}

struct AlignedBuffer {
  explicit AlignedBuffer(size_t bytes) {
    if (posix_memalign(&data, kPageSize, std::max<size_t>(bytes, kPageSize)) != 0) {
      throw std::bad_alloc();
    }
  }
  ~AlignedBuffer() { free(data); }
  void* data = nullptr;
};

}  // namespace

// Invariants (under mu_):
//  - frames_of_[file][page] = f iff owner_[f] = {file, page, used}; a
//    frame is used, or on free_ (reused first), or at or beyond
//    fresh_ (never touched since the last shrink).
//  - used_frames_ <= FrameLimit(capacity pages) after every public call.
//  - Frames may hold pages the model has since evicted; they are reclaimed
//    by the clock hand when a frame is needed, and all at once on shrink.
class EmulatedPageCache::Rep {
 public:
  explicit Rep(const EmulatedPageCacheOptions& options) : options_(options) {
    if (options.max_capacity_bytes < options.capacity_bytes) {
      throw InputError("emulated page cache: max_capacity_bytes " +
                       std::to_string(options.max_capacity_bytes) + " is below capacity_bytes " +
                       std::to_string(options.capacity_bytes) + "; raise it to the budget M");
    }
    PageCacheOptions model;
    model.capacity_bytes = options.capacity_bytes;
    model.two_queue = options.linux_model;
    model.refault_activation = options.linux_model;
    model.readahead = options.linux_model;
    model.max_readahead_pages = options.max_readahead_pages;
    model_ = std::make_unique<PageCacheModel>(model);
    max_frames_ = FrameLimit(options.max_capacity_bytes >> kPageShift);
    frame_limit_ = FrameLimit(options.capacity_bytes >> kPageShift);
    void* region = mmap(nullptr, max_frames_ * kPageSize, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (region == MAP_FAILED) {
      throw InputError("emulated page cache: cannot reserve " +
                       std::to_string(max_frames_ * kPageSize) +
                       " bytes of address space; lower the budget");
    }
    region_ = static_cast<char*>(region);
    owner_.resize(max_frames_);
  }

  ~Rep() { munmap(region_, max_frames_ * kPageSize); }

  EmulatedRead Read(uint64_t file_id, int fd, uint64_t file_bytes, uint64_t offset,
                    size_t length, char* out);
  void SetCapacity(uint64_t bytes);
  void DropFile(uint64_t file_id);

  uint64_t capacity() const {
    std::lock_guard<std::mutex> lock(mu_);
    return model_->capacity();
  }
  uint64_t resident_bytes() const {
    std::lock_guard<std::mutex> lock(mu_);
    return model_->used_bytes();
  }
  uint64_t data_bytes() const {
    std::lock_guard<std::mutex> lock(mu_);
    return used_frames_ * kPageSize;
  }

 private:
  struct Owner {
    uint64_t file = 0;
    uint64_t page = 0;
    bool used = false;
  };

  char* Frame(uint32_t frame) const { return region_ + uint64_t{frame} * kPageSize; }
  const char* FindPage(uint64_t file, uint64_t page) const;
  void Install(uint64_t file, uint64_t page, const char* bytes);
  uint32_t TakeFrame();
  void Release(uint32_t frame);
  void ReleaseEvicted(bool return_memory);

  const EmulatedPageCacheOptions options_;
  mutable std::mutex mu_;
  std::unique_ptr<PageCacheModel> model_;
  std::unordered_map<uint64_t, std::unordered_map<uint64_t, uint32_t>> frames_of_;
  std::vector<Owner> owner_;
  std::vector<uint32_t> free_;
  char* region_ = nullptr;
  uint64_t max_frames_ = 0;
  uint64_t frame_limit_ = 0;
  uint64_t used_frames_ = 0;
  uint64_t fresh_ = 0;  // frames [fresh_, max_frames_) never used
  uint64_t hand_ = 0;   // the clock hand
};

const char* EmulatedPageCache::Rep::FindPage(uint64_t file, uint64_t page) const {
  const auto f = frames_of_.find(file);
  if (f == frames_of_.end()) return nullptr;
  const auto p = f->second.find(page);
  return p == f->second.end() ? nullptr : Frame(p->second);
}

uint32_t EmulatedPageCache::Rep::TakeFrame() {
  if (used_frames_ >= frame_limit_) ReleaseEvicted(false);
  ++used_frames_;
  if (!free_.empty()) {
    const uint32_t frame = free_.back();
    free_.pop_back();
    return frame;
  }
  if (fresh_ < max_frames_) return static_cast<uint32_t>(fresh_++);
  // Unreachable while used_frames_ <= frame_limit_ <= max_frames_: every
  // frame at or past fresh_ is free, and released frames go to free_.
  throw InputError("emulated page cache: out of frames (internal error)");
}

void EmulatedPageCache::Rep::Release(uint32_t frame) {
  Owner& owner = owner_[frame];
  auto file = frames_of_.find(owner.file);
  file->second.erase(owner.page);
  if (file->second.empty()) frames_of_.erase(file);
  owner.used = false;
  free_.push_back(frame);
  --used_frames_;
}

// Frees the frames whose pages the model no longer holds: all of them when
// shrinking (handing the memory back), else at least one, from the hand.
void EmulatedPageCache::Rep::ReleaseEvicted(bool return_memory) {
  if (return_memory) {
    for (uint64_t frame = 0; frame < fresh_; ++frame) {
      const Owner& owner = owner_[frame];
      if (owner.used && !model_->Contains(owner.file, owner.page)) {
        Release(static_cast<uint32_t>(frame));
        madvise(Frame(static_cast<uint32_t>(frame)), kPageSize, MADV_DONTNEED);
      }
    }
    return;
  }
  // The model holds at most capacity pages and frame_limit_ exceeds that,
  // so a full sweep finds a frame to free.
  for (uint64_t step = 0; step < 2 * fresh_; ++step) {
    hand_ = hand_ + 1 >= fresh_ ? 0 : hand_ + 1;
    const Owner& owner = owner_[hand_];
    if (owner.used && !model_->Contains(owner.file, owner.page)) {
      Release(static_cast<uint32_t>(hand_));
      return;
    }
  }
}

void EmulatedPageCache::Rep::Install(uint64_t file, uint64_t page, const char* bytes) {
  if (FindPage(file, page) != nullptr || !model_->Contains(file, page)) return;
  const uint32_t frame = TakeFrame();
  std::memcpy(Frame(frame), bytes, kPageSize);
  owner_[frame] = Owner{file, page, true};
  frames_of_[file][page] = frame;
}

EmulatedRead EmulatedPageCache::Rep::Read(uint64_t file_id, int fd, uint64_t file_bytes,
                                          uint64_t offset, size_t length, char* out) {
  EmulatedRead result;
  if (offset >= file_bytes) return result;
  result.bytes = static_cast<size_t>(std::min<uint64_t>(length, file_bytes - offset));
  const uint64_t first = offset >> kPageShift;
  const uint64_t last = (offset + result.bytes - 1) >> kPageShift;
  // Copies the part of `page` (whose bytes are at `bytes`) that the read wants.
  const auto copy_out = [&](uint64_t page, const char* bytes) {
    const uint64_t from = std::max(offset, page << kPageShift);
    const uint64_t to = std::min(offset + result.bytes, (page + 1) << kPageShift);
    std::memcpy(out + (from - offset), bytes + (from - (page << kPageShift)), to - from);
  };
  std::vector<uint64_t> missing;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (frames_of_.find(file_id) == frames_of_.end()) model_->SetFileSize(file_id, file_bytes);
    Block block{file_id, offset, static_cast<uint32_t>(result.bytes), 0};
    result.hit = model_->capacity() >= kPageSize && model_->Read(block);
    for (uint64_t page = first; page <= last; ++page) {
      const char* bytes = FindPage(file_id, page);
      if (bytes != nullptr) {
        copy_out(page, bytes);
      } else {
        missing.push_back(page);
      }
    }
  }
  if (!result.hit) result.miss_start = SampledThreadSchedTimes(SampleSite::kDeviceRead);
  if (!result.hit && options_.device_latency_ns > 0) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(options_.device_latency_ns));
  }
  if (missing.empty()) return result;
  const uint64_t lo = missing.front();
  const uint64_t pages = missing.back() - lo + 1;
  AlignedBuffer buffer(pages * kPageSize);
  char* data = static_cast<char*>(buffer.data);
  uint64_t got = 0;
  while (got < pages * kPageSize) {
    const ssize_t n = pread(fd, data + got, pages * kPageSize - got,
                            static_cast<off_t>((lo << kPageShift) + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      result.error = errno;
      return result;
    }
    if (n == 0) break;  // end of file
    got += static_cast<uint64_t>(n);
  }
  std::memset(data + got, 0, pages * kPageSize - got);
  std::lock_guard<std::mutex> lock(mu_);
  for (const uint64_t page : missing) {
    const char* bytes = data + ((page - lo) << kPageShift);
    copy_out(page, bytes);
    Install(file_id, page, bytes);
  }
  return result;
}

void EmulatedPageCache::Rep::SetCapacity(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  bytes = std::min(bytes, options_.max_capacity_bytes);
  const bool shrink = bytes < model_->capacity();
  model_->SetCapacity(bytes);
  frame_limit_ = FrameLimit(bytes >> kPageShift);
  if (shrink) ReleaseEvicted(true);
}

void EmulatedPageCache::Rep::DropFile(uint64_t file_id) {
  std::lock_guard<std::mutex> lock(mu_);
  model_->DropFile(file_id);
  const auto file = frames_of_.find(file_id);
  if (file == frames_of_.end()) return;
  std::vector<uint32_t> frames;
  for (const auto& [page, frame] : file->second) frames.push_back(frame);
  for (const uint32_t frame : frames) Release(frame);
}

EmulatedPageCache::EmulatedPageCache(const EmulatedPageCacheOptions& options)
    : rep_(std::make_unique<Rep>(options)) {}
EmulatedPageCache::~EmulatedPageCache() = default;

EmulatedRead EmulatedPageCache::Read(uint64_t file_id, int fd, uint64_t file_bytes,
                                     uint64_t offset, size_t length, char* out) {
  return rep_->Read(file_id, fd, file_bytes, offset, length, out);
}
void EmulatedPageCache::SetCapacity(uint64_t bytes) { rep_->SetCapacity(bytes); }
void EmulatedPageCache::DropFile(uint64_t file_id) { rep_->DropFile(file_id); }
uint64_t EmulatedPageCache::capacity() const { return rep_->capacity(); }
uint64_t EmulatedPageCache::resident_bytes() const { return rep_->resident_bytes(); }
uint64_t EmulatedPageCache::data_bytes() const { return rep_->data_bytes(); }

}  // namespace symbiosis
