#include "engines/wiredtiger/file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engines/wiredtiger/adapter.h"
#include "budget/residency.h"
#include "symbiosis/sched_times.h"

namespace symbiosis::wiredtiger {
namespace {

// WT_PAGE_HEADER (btmem.h): recno 0-7, write_gen 8-15, mem_size 16-19,
// entries 20-23, type 24, flags 25, little-endian on disk.
constexpr size_t kMemSizeAt = 16, kTypeAt = 24, kHeaderBytes = 28;

bool IsDataFile(std::string_view name) {
  return name.size() > 3 && name.substr(name.size() - 3) == ".wt";
}

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

int SyncDirectoryOf(const char* path) {
  std::string dir(path);
  const size_t slash = dir.rfind('/');
  dir = slash == std::string::npos ? "." : dir.substr(0, slash == 0 ? 1 : slash);
  const int fd = open(dir.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const int error = fsync(fd) == 0 ? 0 : errno;
  close(fd);
  return error;
}

// One open file. WiredTiger holds the WT_FILE_HANDLE, the first member.
// Immutable once opened; WiredTiger hands it to other threads through its
// own atomics, which ThreadSanitizer cannot see, so the handle publishes
// itself (a release store at open, an acquire load at each use: plain
// moves on x86).
struct Handle {
  WT_FILE_HANDLE wt;
  int fd = -1;
  bool directory = false;
  uint64_t file_id = 0;
  Adapter* adapter = nullptr;             // data files only
  std::optional<ResidencyProbe> probe;    // data files only
  std::atomic<bool> published{false};

  static Handle* From(WT_FILE_HANDLE* h) {
    Handle* handle = reinterpret_cast<Handle*>(h);
    handle->published.load(std::memory_order_acquire);
    return handle;
  }
};

int Close(WT_FILE_HANDLE* h, WT_SESSION*) {
  Handle* handle = Handle::From(h);
  const int error = close(handle->fd) == 0 ? 0 : errno;
  std::free(h->name);
  delete handle;
  return error;
}

int ReadFully(int fd, void* buf, size_t length, off_t offset) {
  size_t done = 0;
  while (done < length) {
    const ssize_t n = pread(fd, static_cast<char*>(buf) + done, length - done,
                            offset + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;  // WiredTiger never reads past the end
    done += static_cast<size_t>(n);
  }
  return 0;
}

int Read(WT_FILE_HANDLE* h, WT_SESSION*, wt_off_t offset, size_t length, void* buf) {
  Handle* handle = Handle::From(h);
  if (handle->adapter == nullptr || length == 0) {
    return ReadFully(handle->fd, buf, length, offset);
  }
  const bool resident = handle->probe->IsResident(static_cast<uint64_t>(offset), length);
  const std::optional<SchedTimes> sched =
      SampledThreadSchedTimes(resident ? SampleSite::kSecondTierHit : SampleSite::kDeviceRead,
                              handle->adapter->SchedSampleSlowdown());
  const uint64_t start = SteadyNowNs();
  const int error = ReadFully(handle->fd, buf, length, offset);
  if (error != 0) return error;
  handle->adapter->OnRead(handle->file_id, static_cast<uint64_t>(offset),
                          static_cast<uint32_t>(length), ParsePageHeader(buf, length), resident,
                          start, sched);
  return 0;
}

int Write(WT_FILE_HANDLE* h, WT_SESSION*, wt_off_t offset, size_t length, const void* buf) {
  const int fd = Handle::From(h)->fd;
  size_t done = 0;
  while (done < length) {
    const ssize_t n = pwrite(fd, static_cast<const char*>(buf) + done, length - done,
                             offset + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    done += static_cast<size_t>(n);
  }
  return 0;
}

int Size(WT_FILE_HANDLE* h, WT_SESSION*, wt_off_t* size) {
  struct stat st;
  if (fstat(Handle::From(h)->fd, &st) != 0) return errno;
  *size = st.st_size;
  return 0;
}

int Sync(WT_FILE_HANDLE* h, WT_SESSION*) {
  Handle* handle = Handle::From(h);
  const int r = handle->directory ? fsync(handle->fd) : fdatasync(handle->fd);
  return r == 0 ? 0 : errno;
}

// WiredTiger extends a new log file to its full size (`file_max`) before
// its first record; its own file system does this with fallocate, and the
// pass-through must too. Recovery reads the record after a log file's
// header unchecked: in a file cut short there, killed between the header
// and the first record, that read failed and so did the reopen
// (WiredTigerCrashTest, about one run in ten under ThreadSanitizer);
// extended, it reads zeros, the end of the log.
int Extend(WT_FILE_HANDLE* h, WT_SESSION*, wt_off_t length) {
  const int fd = Handle::From(h)->fd;
  if (fallocate(fd, 0, 0, length) == 0) return 0;
  if (errno != EOPNOTSUPP) return errno;
  return posix_fallocate(fd, 0, length);  // writes zeros where fallocate cannot
}

int Truncate(WT_FILE_HANDLE* h, WT_SESSION*, wt_off_t length) {
  return ftruncate(Handle::From(h)->fd, length) == 0 ? 0 : errno;
}

// The lock file's lock keeps a second process out of the database.
int Lock(WT_FILE_HANDLE* h, WT_SESSION*, bool lock) {
  if (Handle::From(h)->directory) return 0;  // WiredTiger requires the method
  struct flock fl {};
  fl.l_type = lock ? F_WRLCK : F_UNLCK;
  fl.l_whence = SEEK_SET;
  return fcntl(Handle::From(h)->fd, F_SETLK, &fl) == 0 ? 0 : errno;
}

int List(WT_FILE_SYSTEM*, WT_SESSION*, const char* directory, const char* prefix, char*** out,
         uint32_t* count, bool single) {
  *out = nullptr;
  *count = 0;
  DIR* dir = opendir(directory);
  if (dir == nullptr) return errno;
  std::vector<std::string> names;
  while (const dirent* e = readdir(dir)) {
    const std::string_view name(e->d_name);
    if (name == "." || name == "..") continue;
    if (prefix != nullptr && name.substr(0, std::strlen(prefix)) != prefix) continue;
    names.emplace_back(name);
    if (single) break;
  }
  closedir(dir);
  char** list = static_cast<char**>(std::calloc(names.size() + 1, sizeof(char*)));
  if (list == nullptr) return ENOMEM;
  for (size_t i = 0; i < names.size(); i++) {
    list[i] = strdup(names[i].c_str());
    if (list[i] == nullptr) {
      for (size_t j = 0; j < i; j++) std::free(list[j]);
      std::free(list);
      return ENOMEM;
    }
  }
  *out = list;
  *count = static_cast<uint32_t>(names.size());
  return 0;
}

int ListAll(WT_FILE_SYSTEM* fs, WT_SESSION* s, const char* dir, const char* prefix, char*** out,
            uint32_t* count) {
  return List(fs, s, dir, prefix, out, count, false);
}

int ListSingle(WT_FILE_SYSTEM* fs, WT_SESSION* s, const char* dir, const char* prefix,
               char*** out, uint32_t* count) {
  return List(fs, s, dir, prefix, out, count, true);
}

int ListFree(WT_FILE_SYSTEM*, WT_SESSION*, char** list, uint32_t count) {
  if (list == nullptr) return 0;
  for (uint32_t i = 0; i < count; i++) std::free(list[i]);
  std::free(list);
  return 0;
}

int Exist(WT_FILE_SYSTEM*, WT_SESSION*, const char* name, bool* exists) {
  struct stat st;
  if (stat(name, &st) == 0) {
    *exists = true;
    return 0;
  }
  *exists = false;
  return errno == ENOENT ? 0 : errno;
}

int Rename(WT_FILE_SYSTEM*, WT_SESSION*, const char* from, const char* to, uint32_t flags) {
  if (rename(from, to) != 0) return errno;
  return (flags & WT_FS_DURABLE) ? SyncDirectoryOf(to) : 0;
}

int FileSize(WT_FILE_SYSTEM*, WT_SESSION*, const char* name, wt_off_t* size) {
  struct stat st;
  if (stat(name, &st) != 0) return errno;
  *size = st.st_size;
  return 0;
}

int Terminate(WT_FILE_SYSTEM*, WT_SESSION*) { return 0; }  // owned by the caller

}  // namespace

PageHeader ParsePageHeader(const void* block, size_t length) {
  PageHeader header;
  if (length < kHeaderBytes) return header;
  const auto* bytes = static_cast<const unsigned char*>(block);
  const uint8_t type = bytes[kTypeAt];
  if (type > static_cast<uint8_t>(PageType::kRowLeaf)) return header;
  header.type = static_cast<PageType>(type);
  header.mem_size = uint32_t{bytes[kMemSizeAt]} | uint32_t{bytes[kMemSizeAt + 1]} << 8 |
                    uint32_t{bytes[kMemSizeAt + 2]} << 16 | uint32_t{bytes[kMemSizeAt + 3]} << 24;
  return header;
}

uint64_t DataFileId(std::string_view path, std::string_view suffix) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a, folded to 24 bits
  for (const std::string_view part : {BaseName(path), suffix}) {
    for (const char c : part) {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ull;
    }
  }
  return (h ^ (h >> 24) ^ (h >> 48)) & kMaxDataFileId;
}

FileSystem::FileSystem(Adapter* adapter) : adapter_(adapter) {
  std::memset(&base_.fs, 0, sizeof base_.fs);
  base_.self = this;
  WT_FILE_SYSTEM& fs = base_.fs;
  fs.fs_directory_list = ListAll;
  fs.fs_directory_list_single = ListSingle;
  fs.fs_directory_list_free = ListFree;
  fs.fs_exist = Exist;
  fs.fs_open_file = OpenFile;
  fs.fs_remove = Remove;
  fs.fs_rename = Rename;
  fs.fs_size = FileSize;
  fs.terminate = Terminate;
}

int FileSystem::OpenFile(WT_FILE_SYSTEM* fs, WT_SESSION*, const char* name,
                         WT_FS_OPEN_FILE_TYPE type, uint32_t flags, WT_FILE_HANDLE** out) {
  *out = nullptr;
  const bool directory = type == WT_FS_OPEN_FILE_TYPE_DIRECTORY;
  int oflags = O_CLOEXEC;
  if (directory) {
    oflags |= O_RDONLY;
  } else {
    oflags |= (flags & WT_FS_OPEN_READONLY) ? O_RDONLY : O_RDWR;
    if (flags & WT_FS_OPEN_CREATE) oflags |= O_CREAT;
    if (flags & WT_FS_OPEN_EXCLUSIVE) oflags |= O_EXCL;
  }
  const int fd = open(name, oflags, 0666);
  if (fd < 0) return errno;
  if ((flags & WT_FS_OPEN_CREATE) && (flags & WT_FS_OPEN_DURABLE)) {
    if (const int error = SyncDirectoryOf(name); error != 0) {
      close(fd);
      return error;
    }
  }
  auto handle = std::make_unique<Handle>();
  std::memset(&handle->wt, 0, sizeof handle->wt);
  handle->fd = fd;
  handle->directory = directory;
  if (type == WT_FS_OPEN_FILE_TYPE_DATA && IsDataFile(name)) {
    handle->file_id = DataFileId(name);
    handle->adapter = From(fs)->adapter_;
    try {
      handle->probe.emplace(fd);
    } catch (const std::exception&) {  // no residency method works here
      close(fd);
      return ENOTSUP;
    }
    struct stat st;
    if (fstat(fd, &st) == 0) handle->adapter->OnFileOpened(handle->file_id, st.st_size);
  }
  WT_FILE_HANDLE& wt = handle->wt;
  wt.file_system = fs;
  wt.name = strdup(name);
  if (wt.name == nullptr) {
    close(fd);
    return ENOMEM;
  }
  wt.close = Close;
  wt.fh_read = Read;
  wt.fh_size = Size;
  wt.fh_sync = Sync;
  wt.fh_lock = Lock;
  wt.fh_write = Write;  // WiredTiger requires them of every writable handle
  wt.fh_truncate = Truncate;
  wt.fh_extend = Extend;
  handle->published.store(true, std::memory_order_release);
  *out = &handle.release()->wt;
  return 0;
}

int FileSystem::Remove(WT_FILE_SYSTEM* fs, WT_SESSION*, const char* name, uint32_t flags) {
  if (unlink(name) != 0) return errno;
  if (IsDataFile(name)) From(fs)->adapter_->OnFileDeleted(DataFileId(name));
  return (flags & WT_FS_DURABLE) ? SyncDirectoryOf(name) : 0;
}

}  // namespace symbiosis::wiredtiger
