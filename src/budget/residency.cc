#include "budget/residency.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <sys/sysmacros.h>

#include <cerrno>
#include <fstream>
#include <cstring>
#include <vector>

#include "symbiosis/block.h"
#include "symbiosis/error.h"

namespace symbiosis {
namespace {

// The kernel ABI of cachestat(2); older libc headers lack it.
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

struct CachestatRange {
  uint64_t off;
  uint64_t len;
};

struct Cachestat {
  uint64_t nr_cache;
  uint64_t nr_dirty;
  uint64_t nr_writeback;
  uint64_t nr_evicted;
  uint64_t nr_recently_evicted;
};

// Returns 0 or the errno.
int CallCachestat(int fd, uint64_t offset, uint64_t length, Cachestat* out) {
  CachestatRange range{offset, length};
  if (syscall(__NR_cachestat, fd, &range, out, 0) == 0) return 0;
  return errno;
}

bool IsReadableRegularFile(int fd) {
  struct stat st;
  int flags = fcntl(fd, F_GETFL);
  return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flags >= 0 &&
         (flags & O_ACCMODE) != O_WRONLY;
}

ResidencyMethod BestMethod(int fd) {
  for (ResidencyMethod method :
       {ResidencyMethod::kCachestat, ResidencyMethod::kMincore,
        ResidencyMethod::kPreadNowait}) {
    if (ResidencyProbe::Works(fd, method)) return method;
  }
  throw InputError(
      "cannot probe page-cache residency: the file is not a readable regular "
      "file; open it for reading");
}

}  // namespace

std::optional<uint32_t> DeviceReadaheadPages(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return std::nullopt;
  const std::string base = "/sys/dev/block/" + std::to_string(major(st.st_dev)) + ":" +
                           std::to_string(minor(st.st_dev));
  for (const std::string& file : {base + "/queue/read_ahead_kb", base + "/../queue/read_ahead_kb"}) {
    std::ifstream in(file);
    uint64_t kb = 0;
    if (in >> kb) return static_cast<uint32_t>(kb * 1024 / kPageSize);
  }
  return std::nullopt;
}

std::string ResidencyMethodName(ResidencyMethod method) {
  switch (method) {
    case ResidencyMethod::kCachestat:
      return "cachestat";
    case ResidencyMethod::kMincore:
      return "mincore";
    case ResidencyMethod::kPreadNowait:
      return "preadv2-nowait";
  }
  return "unknown";
}

bool ResidencyProbe::Works(int fd, ResidencyMethod method) {
  if (!IsReadableRegularFile(fd)) return false;
  switch (method) {
    case ResidencyMethod::kCachestat: {
      Cachestat stat;
      return CallCachestat(fd, 0, kPageSize, &stat) == 0;
    }
    case ResidencyMethod::kMincore: {
      void* map = mmap(nullptr, kPageSize, PROT_READ, MAP_SHARED, fd, 0);
      if (map == MAP_FAILED) return false;
      unsigned char resident;
      bool works = mincore(map, kPageSize, &resident) == 0;
      munmap(map, kPageSize);
      return works;
    }
    case ResidencyMethod::kPreadNowait:
      // Any probe read could itself start read-ahead; O_DIRECT would make
      // RWF_NOWAIT mean something else.
      return (fcntl(fd, F_GETFL) & O_DIRECT) == 0;
  }
  return false;
}

ResidencyProbe::ResidencyProbe(int fd) : fd_(fd), method_(BestMethod(fd)) {}

ResidencyProbe::ResidencyProbe(int fd, ResidencyMethod method)
    : fd_(fd), method_(method) {
  if (!Works(fd, method)) {
    throw InputError("residency method " + ResidencyMethodName(method) +
                     " does not work on this file or kernel; use the "
                     "default probe");
  }
}

uint64_t ResidencyProbe::ResidentPages(uint64_t offset, uint64_t length) const {
  uint64_t first_page = offset >> kPageShift;
  uint64_t pages = ((offset + length - 1) >> kPageShift) - first_page + 1;
  switch (method_) {
    case ResidencyMethod::kCachestat:
      return CountWithCachestat(first_page, pages);
    case ResidencyMethod::kMincore:
      return CountWithMincore(first_page, pages);
    case ResidencyMethod::kPreadNowait:
      return CountWithPread(first_page, pages);
  }
  return 0;
}

bool ResidencyProbe::IsResident(uint64_t offset, uint64_t length) const {
  uint64_t pages = ((offset + length - 1) >> kPageShift) -
                   (offset >> kPageShift) + 1;
  return ResidentPages(offset, length) == pages;
}

uint64_t ResidencyProbe::CountWithCachestat(uint64_t first_page,
                                            uint64_t pages) const {
  Cachestat stat;
  if (int error = CallCachestat(fd_, first_page << kPageShift,
                                pages << kPageShift, &stat)) {
    throw InputError(std::string("cachestat failed: ") + std::strerror(error) +
                     "; check that the file is still open");
  }
  return stat.nr_cache;
}

uint64_t ResidencyProbe::CountWithMincore(uint64_t first_page,
                                          uint64_t pages) const {
  size_t bytes = pages << kPageShift;
  void* map = mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd_,
                   static_cast<off_t>(first_page << kPageShift));
  if (map == MAP_FAILED) {
    throw InputError(std::string("mmap for mincore failed: ") +
                     std::strerror(errno) + "; check that the file is open");
  }
  std::vector<unsigned char> resident_flags(pages);
  int result = mincore(map, bytes, resident_flags.data());
  int error = errno;
  munmap(map, bytes);
  if (result != 0) {
    throw InputError(std::string("mincore failed: ") + std::strerror(error) +
                     "; check that the range lies inside the file");
  }
  uint64_t resident = 0;
  for (uint64_t i = 0; i < pages; ++i) resident += resident_flags[i] & 1;
  return resident;
}

// One page per read: a multi-page RWF_NOWAIT read stops at the first
// missing page and would hide the resident pages after it.
uint64_t ResidencyProbe::CountWithPread(uint64_t first_page, uint64_t pages) const {
  char scratch[kPageSize];
  uint64_t resident = 0;
  for (uint64_t page = first_page; page < first_page + pages; ++page) {
    iovec buffer{scratch, kPageSize};
    ssize_t got = preadv2(fd_, &buffer, 1,
                          static_cast<off_t>(page << kPageShift), RWF_NOWAIT);
    if (got > 0) {
      ++resident;
    } else if (got < 0 && errno != EAGAIN) {
      throw InputError(std::string("preadv2(RWF_NOWAIT) failed: ") +
                       std::strerror(errno) +
                       "; use a kernel >= 4.14 or another probe");
    }
  }
  return resident;
}

}  // namespace symbiosis
