// FileSystem: the WT_FILE_SYSTEM that gives Symbiosis WiredTiger's reads.
//
// WiredTiger lets an application replace its whole file system (an early
// loaded extension calls WT_CONNECTION::set_file_system), not wrap the
// built-in one, so this is a POSIX pass-through: open, pread, pwrite,
// fdatasync, ftruncate, rename, remove, directory listing and the lock
// file's fcntl lock, as WiredTiger's own POSIX layer does them. Handles
// have no fh_map, so every block read comes through fh_read.
//
// A read of a data file (*.wt) is classified before it is made: whether
// every page of the range is in the kernel page cache (ResidencyProbe:
// cachestat(2), else mincore(2)), and after it by the block's page header
// (the first 28 bytes of every WiredTiger block are left uncompressed):
// its page type and in-memory size. Then the Adapter hears of it.
//
// The file id is a hash of the file's name (tables are named files that
// keep their name across reopens); removing a data file reports it.
//
// Thread-safe: WiredTiger calls handles from many threads; each handle's
// state is immutable after open.

#ifndef SYMBIOSIS_ENGINES_WIREDTIGER_FILE_SYSTEM_H_
#define SYMBIOSIS_ENGINES_WIREDTIGER_FILE_SYSTEM_H_

#include <wiredtiger.h>

#include <cstdint>
#include <string_view>

namespace symbiosis::wiredtiger {

class Adapter;

// WiredTiger's on-disk page types (btmem.h), as the page header stores them.
enum class PageType : uint8_t {
  kInvalid = 0,
  kBlockManager = 1,  // free lists, checkpoint extents
  kColumnFixed = 2,
  kColumnInternal = 3,
  kColumnVariable = 4,
  kOverflow = 5,
  kRowInternal = 6,
  kRowLeaf = 7,
};

struct PageHeader {
  PageType type = PageType::kInvalid;
  uint32_t mem_size = 0;  // the page's size in memory, uncompressed
};

// The header at the start of a block's bytes; kInvalid if `length` is too
// short or the type is not one of the above.
PageHeader ParsePageHeader(const void* block, size_t length);

// A stable id for a data file's name (its last path component), below
// 2^24 as the Controller's models require. Two of a database's files
// share an id with probability about n^2 / 2^25 for n files; their pages
// would then share one ghost file, a model error, never a data one.
// The name is the path's last component followed by `suffix` ("t", ".wt"
// names t.wt, without building the string on a lookup's path).
inline constexpr uint64_t kMaxDataFileId = (uint64_t{1} << 24) - 1;
uint64_t DataFileId(std::string_view path, std::string_view suffix = {});

class FileSystem {
 public:
  // REQUIRES: `adapter` outlives the file system and every handle.
  explicit FileSystem(Adapter* adapter);

  // What to pass to WT_CONNECTION::set_file_system. WiredTiger's
  // terminate call does not free it: the owner of this object does, after
  // the connection closed.
  WT_FILE_SYSTEM* wt() { return &base_.fs; }

 private:
  struct Base {
    WT_FILE_SYSTEM fs;  // first: WiredTiger's pointer is this object's
    FileSystem* self;
  };
  static FileSystem* From(WT_FILE_SYSTEM* fs) { return reinterpret_cast<Base*>(fs)->self; }
  static int OpenFile(WT_FILE_SYSTEM* fs, WT_SESSION* session, const char* name,
                      WT_FS_OPEN_FILE_TYPE type, uint32_t flags, WT_FILE_HANDLE** out);
  static int Remove(WT_FILE_SYSTEM* fs, WT_SESSION* session, const char* name, uint32_t flags);

  Base base_;
  Adapter* const adapter_;
};

}  // namespace symbiosis::wiredtiger

#endif  // SYMBIOSIS_ENGINES_WIREDTIGER_FILE_SYSTEM_H_
