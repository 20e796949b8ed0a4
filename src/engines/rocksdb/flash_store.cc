#include "engines/rocksdb/flash_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "base/hash.h"
#include "engines/rocksdb/cache_key_map.h"
#include "engines/rocksdb/read_through_file.h"
#include "symbiosis/error.h"

namespace symbiosis::rocksdb {
namespace {

constexpr uint32_t kEntryMagic = 0x53594d46;  // "SYMF"
constexpr size_t kHeaderBytes = 32;
constexpr size_t kAlignment = AlignedReadBuffer::kAlignment;
constexpr uint32_t kMinRegionBytes = 64u << 10;
constexpr uint32_t kMaxRegionBytes = 64u << 20;
constexpr uint32_t kMaxFiles = 65535;  // file numbers 1..65535
// A first read covers the header and a 4 KiB block after it wherever the
// entry starts in its page.
constexpr size_t kFirstRead = 3 * kAlignment;

struct Header {
  uint32_t magic;
  uint32_t value_bytes;
  char key[16];
  uint64_t checksum;
};
static_assert(sizeof(Header) == kHeaderBytes);

uint64_t Checksum(const Header& header, std::string_view value) {
  return Hash64(HashString(std::string_view(reinterpret_cast<const char*>(&header),
                                            offsetof(Header, checksum))),
                HashString(value));
}

uint64_t RoundUp(uint64_t n, uint64_t unit) { return (n + unit - 1) / unit * unit; }

std::string MiBText(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

thread_local AlignedReadBuffer read_buffer;

// pread until n bytes or end of file; -1 on error.
ssize_t ReadFully(int fd, char* out, size_t n, uint64_t offset) {
  size_t done = 0;
  while (done < n) {
    const ssize_t r = pread(fd, out + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  return static_cast<ssize_t>(done);
}

}  // namespace

FlashStore::FlashStore(const FlashStoreOptions& options) : options_(options) {
  const uint32_t region = options_.region_bytes;
  if (region < kMinRegionBytes || region > kMaxRegionBytes || region % kAlignment != 0) {
    throw InputError("flash tier region size " + std::to_string(region) +
                     " bytes is not a multiple of 4 KiB from 64 KiB to 64 MiB; use 1 MiB");
  }
  if (options_.expected_entry_bytes == 0) {
    throw InputError("flash tier expected entry size is 0; give the table's block size");
  }
  offset_bits_ = 0;
  while ((uint64_t{1} << offset_bits_) < region / 8) ++offset_bits_;
  max_regions_ = uint64_t{1} << (32 - offset_bits_);
  if (options_.path.empty()) {
    throw InputError("the flash tier has no path; give a file or a directory on the flash");
  }
  std::error_code ec;
  file_path_ = std::filesystem::is_directory(options_.path, ec)
                   ? (std::filesystem::path(options_.path) / "symbiosis-flash-tier").string()
                   : options_.path;
  ValidateCapacity(options_.capacity_bytes);
  const std::filesystem::path parent =
      std::filesystem::absolute(file_path_, ec).parent_path();
  struct statvfs fs;
  if (statvfs(parent.c_str(), &fs) == 0) {
    const uint64_t device = uint64_t{fs.f_blocks} * fs.f_frsize;
    if (device < options_.capacity_bytes) {
      throw InputError("the file system of " + file_path_ + " holds " + MiBText(device) +
                       ", below the flash tier's " + MiBText(options_.capacity_bytes) +
                       "; lower the tier's size or choose another path");
    }
  }
  fd_ = open(file_path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_DIRECT, 0644);
  direct_io_ = fd_ >= 0;
  if (fd_ < 0 && errno == EINVAL) {  // a file system without O_DIRECT (tmpfs)
    fd_ = open(file_path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  }
  if (fd_ < 0) {
    throw InputError("cannot open the flash tier's file " + file_path_ + ": " +
                     std::strerror(errno) + "; choose a writable path on the flash");
  }
  if (posix_memalign(reinterpret_cast<void**>(&buffer_), kAlignment, region) != 0) {
    close(fd_);
    throw InputError("no memory for the flash tier's region buffer of " + MiBText(region));
  }
  const size_t buckets = BucketCount(options_);
  bucket_mask_ = buckets - 1;
  slot_count_ = buckets * kBucketSlots;
  slots_ = std::make_unique<std::atomic<uint64_t>[]>(slot_count_);
  for (size_t i = 0; i < slot_count_; ++i) slots_[i].store(0, std::memory_order_relaxed);
  files_.resize(1);
  std::lock_guard<std::mutex> lock(write_mu_);
  regions_ = 0;
  if (!SetCapacityLocked(options_.capacity_bytes)) {
    const std::string why = std::strerror(errno);
    close(fd_);
    std::free(buffer_);
    throw InputError("cannot size the flash tier's file " + file_path_ + ": " + why +
                     "; choose a path on a file system with room");
  }
}

FlashStore::~FlashStore() {
  if (fd_ >= 0) close(fd_);
  std::free(buffer_);
}

void FlashStore::ValidateCapacity(uint64_t bytes) const {
  const uint64_t region = options_.region_bytes;
  if (bytes < 2 * region) {
    throw InputError("flash tier size " + MiBText(bytes) + " is below two regions of " +
                     MiBText(region) + "; raise the size or lower the region size");
  }
  if (bytes / region > max_regions_) {
    throw InputError("flash tier size " + MiBText(bytes) + " is above the " +
                     MiBText(max_regions_ * region) + " its index addresses; lower it");
  }
}

// Buckets for the entries the capacity is expected to hold, at a load of
// at most 3/4.
size_t FlashStore::BucketCount(const FlashStoreOptions& options) {
  const uint64_t expected =
      options.capacity_bytes / (uint64_t{options.expected_entry_bytes} + kHeaderBytes);
  size_t buckets = 16;
  while (buckets * kBucketSlots * 3 < expected * 4) buckets <<= 1;
  return buckets;
}

uint64_t FlashStore::PlannedDramBytes(const FlashStoreOptions& options) {
  const uint64_t entries =
      options.capacity_bytes / (uint64_t{std::max<uint32_t>(1, options.expected_entry_bytes)} +
                                kHeaderBytes);
  // The index, each entry's hash in its region's list, the open region.
  return BucketCount(options) * kBucketSlots * sizeof(uint64_t) + entries * sizeof(uint64_t) +
         options.region_bytes;
}

uint64_t FlashStore::KeyHash(std::string_view key) {
  return Hash64(CacheKeyMap::Prefix(key), CacheKeyMap::Low(key));
}

uint64_t FlashStore::MakeSlot(uint64_t hash, uint32_t file, uint32_t location) {
  return (uint64_t{HashTag(hash)} << 48) | (uint64_t{file & 0xffffu} << 32) | location;
}

uint32_t FlashStore::Location(uint32_t region, uint32_t offset) const {
  return (region << offset_bits_) | (offset / 8);
}

uint64_t FlashStore::LocationOffset(uint32_t location) const {
  const uint64_t region = LocationRegion(location);
  const uint64_t units = location & ((uint32_t{1} << offset_bits_) - 1);
  return region * options_.region_bytes + units * 8;
}

bool FlashStore::Contains(std::string_view key) const {
  if (key.size() != 16 || failed_.load(std::memory_order_relaxed)) return false;
  const uint64_t hash = KeyHash(key);
  const uint16_t tag = HashTag(hash);
  const std::atomic<uint64_t>* bucket = Bucket(hash);
  for (size_t i = 0; i < kBucketSlots; ++i) {
    const uint64_t slot = bucket[i].load(std::memory_order_relaxed);
    if (slot != 0 && SlotTag(slot) == tag) return true;
  }
  return false;
}

bool FlashStore::Lookup(std::string_view key, std::string* value) {
  if (key.size() != 16 || failed_.load(std::memory_order_relaxed)) return false;
  const uint64_t hash = KeyHash(key);
  const uint16_t tag = HashTag(hash);
  const std::atomic<uint64_t>* bucket = Bucket(hash);
  bool counted = false;
  // Every slot with the key's tag until one checks out.
  for (size_t i = 0; i < kBucketSlots; ++i) {
    const uint64_t slot = bucket[i].load(std::memory_order_acquire);
    if (slot == 0 || SlotTag(slot) != tag) continue;
    if (!counted) {
      lookups_.fetch_add(1, std::memory_order_relaxed);
      counted = true;
    }
    if (ReadEntry(SlotLocation(slot), key, value)) {
      hits_.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
  }
  return false;
}

bool FlashStore::ReadEntry(uint32_t location, std::string_view key, std::string* value) {
  const uint64_t offset = LocationOffset(location);
  const uint64_t region_end =
      (offset / options_.region_bytes + 1) * uint64_t{options_.region_bytes};
  // Direct I/O reads whole aligned pages; buffered reads the bytes.
  const uint64_t first = direct_io_ ? offset / kAlignment * kAlignment : offset;
  const uint64_t first_end = std::min(region_end, first + kFirstRead);
  char* buffer = read_buffer.Get(first_end - first);
  if (buffer == nullptr) return false;
  ssize_t got = ReadFully(fd_, buffer, first_end - first, first);
  if (got < 0) {
    read_errors_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  const uint64_t skip = offset - first;
  if (static_cast<uint64_t>(got) < skip + kHeaderBytes) {
    mismatches_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  Header header;
  std::memcpy(&header, buffer + skip, kHeaderBytes);
  const uint64_t entry_end = offset + kHeaderBytes + header.value_bytes;
  if (header.magic != kEntryMagic || std::memcmp(header.key, key.data(), 16) != 0 ||
      entry_end > region_end) {
    mismatches_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  value->resize(header.value_bytes);
  const uint64_t have = std::min<uint64_t>(static_cast<uint64_t>(got) - skip - kHeaderBytes,
                                           header.value_bytes);
  std::memcpy(value->data(), buffer + skip + kHeaderBytes, have);
  if (have < header.value_bytes) {  // the rest of the value
    const uint64_t rest = offset + kHeaderBytes + have;
    const uint64_t from = direct_io_ ? rest / kAlignment * kAlignment : rest;
    const uint64_t to = direct_io_ ? std::min(region_end, RoundUp(entry_end, kAlignment)) : entry_end;
    char* more = read_buffer.Get(to - from);
    if (more == nullptr) return false;
    got = ReadFully(fd_, more, to - from, from);
    if (got < 0 || static_cast<uint64_t>(got) < entry_end - from) {
      read_errors_.fetch_add(got < 0, std::memory_order_relaxed);
      mismatches_.fetch_add(got >= 0, std::memory_order_relaxed);
      return false;
    }
    std::memcpy(value->data() + have, more + (rest - from), header.value_bytes - have);
  }
  if (Checksum(header, *value) != header.checksum) {
    mismatches_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  return true;
}

bool FlashStore::Append(std::string_view key, std::string_view value) {
  if (key.size() != 16) return false;
  const uint64_t entry = kHeaderBytes + RoundUp(value.size(), 8);
  std::lock_guard<std::mutex> lock(write_mu_);
  if (failed_.load(std::memory_order_relaxed) || entry > options_.region_bytes) return false;
  ++appends_;
  const uint64_t prefix = CacheKeyMap::Prefix(key);
  if (options_.refuse_deleted_files && deleted_.count(prefix) > 0) {
    ++deleted_refusals_;
    return false;
  }
  const uint32_t file = FileFor(prefix);
  if (file == 0) {
    ++file_table_drops_;
    return false;
  }
  if (used_ + entry > options_.region_bytes) {
    WriteOpenRegion();
    if (failed_.load(std::memory_order_relaxed)) return false;
  }
  Header header;
  header.magic = kEntryMagic;
  header.value_bytes = static_cast<uint32_t>(value.size());
  std::memcpy(header.key, key.data(), 16);
  header.checksum = 0;
  header.checksum = Checksum(header, value);
  char* at = buffer_ + used_;
  std::memcpy(at, &header, kHeaderBytes);
  std::memcpy(at + kHeaderBytes, value.data(), value.size());
  std::memset(at + kHeaderBytes + value.size(), 0, entry - kHeaderBytes - value.size());
  pending_.push_back(Pending{KeyHash(key), file, used_});
  used_ += static_cast<uint32_t>(entry);
  ++files_[file].entries;
  if (files_[file].deleted) ++invalid_entries_;
  ++entries_;
  return true;
}

void FlashStore::Flush() {
  std::lock_guard<std::mutex> lock(write_mu_);
  if (used_ > 0 && !failed_.load(std::memory_order_relaxed)) WriteOpenRegion();
}

uint32_t FlashStore::FileFor(uint64_t prefix) {
  const auto it = file_of_.find(prefix);
  if (it != file_of_.end()) return it->second;
  uint32_t file = 0;
  if (!free_files_.empty()) {
    file = free_files_.back();
    free_files_.pop_back();
  } else if (files_.size() <= kMaxFiles) {
    file = static_cast<uint32_t>(files_.size());
    files_.emplace_back();
  } else {
    return 0;
  }
  files_[file] = FileInfo{prefix, 0, deleted_.count(prefix) > 0};
  file_of_.emplace(prefix, file);
  return file;
}

// One entry of `file` is gone (reclaimed, dropped, pushed out).
void FlashStore::ForgetEntry(uint32_t file) {
  FileInfo& info = files_[file];
  --entries_;
  if (info.deleted) --invalid_entries_;
  if (--info.entries == 0) {
    file_of_.erase(info.prefix);
    info = FileInfo{};
    free_files_.push_back(file);
  }
}

void FlashStore::ClearSlot(std::atomic<uint64_t>* slot) {
  const uint64_t old = slot->load(std::memory_order_relaxed);
  if (old == 0) return;
  slot->store(0, std::memory_order_release);
  --region_live_[LocationRegion(SlotLocation(old))];
  ForgetEntry(SlotFile(old));
}

void FlashStore::IndexInsert(uint64_t hash, uint32_t file, uint32_t location) {
  std::atomic<uint64_t>* bucket = Bucket(hash);
  size_t at = kBucketSlots;
  for (size_t i = 0; i < kBucketSlots; ++i) {
    if (bucket[i].load(std::memory_order_relaxed) == 0) {
      at = i;
      break;
    }
  }
  if (at == kBucketSlots) {  // full: one of the eight leaves, by the hash's bits
    at = static_cast<size_t>(hash >> 40) % kBucketSlots;
    ++index_evictions_;
    ClearSlot(&bucket[at]);
  }
  bucket[at].store(MakeSlot(hash, file, location), std::memory_order_release);
  ++region_live_[LocationRegion(location)];
}

// The victim is the region holding the fewest live entries among the
// oldest quarter of those written, the oldest of them on a tie
// (docs/decisions/flash-reclaim.md).
uint32_t FlashStore::TakeRegion() {
  if (!free_.empty()) {
    const uint32_t region = free_.back();
    free_.pop_back();
    return region;
  }
  const size_t window = std::max<size_t>(1, written_.size() / kReclaimWindowDivisor);
  size_t victim = 0;
  for (size_t i = 1; i < window; ++i) {
    if (region_live_[written_[i]] < region_live_[written_[victim]]) victim = i;
  }
  const uint32_t region = written_[victim];
  written_.erase(written_.begin() + static_cast<std::ptrdiff_t>(victim));
  ReclaimRegion(region);
  return region;
}

void FlashStore::ReclaimRegion(uint32_t region) {
  ++regions_reclaimed_;
  std::vector<uint64_t>& hashes = region_hashes_[region];
  for (const uint64_t hash : hashes) {
    const uint16_t tag = HashTag(hash);
    std::atomic<uint64_t>* bucket = Bucket(hash);
    for (size_t i = 0; i < kBucketSlots; ++i) {
      const uint64_t slot = bucket[i].load(std::memory_order_relaxed);
      if (slot != 0 && SlotTag(slot) == tag && LocationRegion(SlotLocation(slot)) == region) {
        ClearSlot(&bucket[i]);
        break;
      }
    }
  }
  hashes.clear();
  hashes.shrink_to_fit();
}

void FlashStore::WriteOpenRegion() {
  const uint32_t region = TakeRegion();
  const size_t bytes = RoundUp(used_, kAlignment);
  std::memset(buffer_ + used_, 0, bytes - used_);
  const uint64_t at = uint64_t{region} * options_.region_bytes;
  size_t done = 0;
  while (done < bytes) {
    const ssize_t w = pwrite(fd_, buffer_ + done, bytes - done, static_cast<off_t>(at + done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      free_.push_back(region);
      Fail(std::string("write failed: ") + (w < 0 ? std::strerror(errno) : "wrote nothing"));
      return;
    }
    done += static_cast<size_t>(w);
  }
  ++regions_written_;
  bytes_written_ += bytes;
  std::vector<uint64_t>& hashes = region_hashes_[region];
  hashes.reserve(pending_.size());
  for (const Pending& p : pending_) {
    if (p.file == 0) continue;  // its file was dropped while it waited
    IndexInsert(p.hash, p.file, Location(region, p.offset));
    hashes.push_back(p.hash);
  }
  pending_.clear();
  used_ = 0;
  written_.push_back(region);
}

void FlashStore::Fail(const std::string& why) {
  failure_ = file_path_ + ": " + why;
  failed_.store(true, std::memory_order_relaxed);
  std::fprintf(stderr,
               "symbiosis: flash tier %s; the tier is off, the database keeps serving from "
               "its other tiers\n",
               failure_.c_str());
  // Nothing on flash is served again: the index and the open region go.
  for (size_t i = 0; i < slot_count_; ++i) ClearSlot(&slots_[i]);
  for (Pending& p : pending_) {
    if (p.file != 0) ForgetEntry(p.file);
  }
  pending_.clear();
  used_ = 0;
}

void FlashStore::RememberDeleted(uint64_t prefix) {
  if (!deleted_.insert(prefix).second) return;
  deleted_order_.push_back(prefix);
  if (deleted_order_.size() > kRememberedDeletedFiles) {
    deleted_.erase(deleted_order_.front());
    deleted_order_.pop_front();
  }
}

void FlashStore::DropFiles(const std::vector<uint64_t>& prefixes) {
  std::lock_guard<std::mutex> lock(write_mu_);
  std::vector<bool> drop(files_.size(), false);
  bool any = false;
  for (const uint64_t prefix : prefixes) {
    RememberDeleted(prefix);
    const auto it = file_of_.find(prefix);
    if (it == file_of_.end()) continue;
    drop[it->second] = true;
    any = true;
  }
  if (!any) return;
  // Entries waiting in the open region are skipped when it is written.
  for (Pending& p : pending_) {
    if (p.file != 0 && drop[p.file]) {
      ++dropped_entries_;
      const uint32_t file = p.file;
      p.file = 0;
      ForgetEntry(file);
    }
  }
  for (size_t i = 0; i < slot_count_; ++i) {
    const uint64_t slot = slots_[i].load(std::memory_order_relaxed);
    if (slot == 0 || !drop[SlotFile(slot)]) continue;
    ++dropped_entries_;
    ClearSlot(&slots_[i]);
  }
}

void FlashStore::MarkFilesDeleted(const std::vector<uint64_t>& prefixes) {
  std::lock_guard<std::mutex> lock(write_mu_);
  for (const uint64_t prefix : prefixes) {
    RememberDeleted(prefix);
    const auto it = file_of_.find(prefix);
    if (it == file_of_.end()) continue;
    FileInfo& info = files_[it->second];
    if (info.deleted) continue;
    info.deleted = true;
    invalid_entries_ += info.entries;
  }
}

void FlashStore::SetCapacity(uint64_t bytes) {
  ValidateCapacity(bytes);
  std::lock_guard<std::mutex> lock(write_mu_);
  if (!SetCapacityLocked(bytes) && !failed_.load(std::memory_order_relaxed)) {
    Fail(std::string("cannot size the file: ") + std::strerror(errno));
  }
}

bool FlashStore::SetCapacityLocked(uint64_t bytes) {
  const uint64_t regions = bytes / options_.region_bytes;
  if (regions < regions_) {
    // Regions past the end are emptied; the open region, not placed yet,
    // stays.
    free_.erase(std::remove_if(free_.begin(), free_.end(),
                               [regions](uint32_t r) { return r >= regions; }),
                free_.end());
    for (auto it = written_.begin(); it != written_.end();) {
      if (*it >= regions) {
        ReclaimRegion(*it);
        it = written_.erase(it);
      } else {
        ++it;
      }
    }
  } else {
    for (uint64_t r = regions; r-- > regions_;) free_.push_back(static_cast<uint32_t>(r));
  }
  regions_ = regions;
  region_hashes_.resize(regions);
  region_live_.resize(regions, 0);
  // Sparse: blocks are taken as regions are written, given back here.
  return ftruncate(fd_, static_cast<off_t>(regions * options_.region_bytes)) == 0;
}

uint64_t FlashStore::capacity_bytes() const {
  std::lock_guard<std::mutex> lock(write_mu_);
  return regions_ * options_.region_bytes;
}

uint64_t FlashStore::DramBytes() const {
  std::lock_guard<std::mutex> lock(write_mu_);
  uint64_t bytes = slot_count_ * sizeof(uint64_t) + options_.region_bytes;
  for (const std::vector<uint64_t>& hashes : region_hashes_) {
    bytes += hashes.capacity() * sizeof(uint64_t);
  }
  bytes += region_hashes_.capacity() * sizeof(std::vector<uint64_t>) +
           region_live_.capacity() * sizeof(uint32_t);
  bytes += files_.capacity() * sizeof(FileInfo) + file_of_.size() * 32 +
           pending_.capacity() * sizeof(Pending) + deleted_.size() * 40;
  return bytes;
}

FlashStoreStats FlashStore::Stats() const {
  FlashStoreStats s;
  s.dram_bytes = DramBytes();
  std::lock_guard<std::mutex> lock(write_mu_);
  s.capacity_bytes = regions_ * options_.region_bytes;
  s.entries = entries_;
  s.invalid_entries = invalid_entries_;
  s.lookups = lookups_.load(std::memory_order_relaxed);
  s.hits = hits_.load(std::memory_order_relaxed);
  s.mismatches = mismatches_.load(std::memory_order_relaxed);
  s.read_errors = read_errors_.load(std::memory_order_relaxed);
  s.appends = appends_;
  s.index_evictions = index_evictions_;
  s.file_table_drops = file_table_drops_;
  s.deleted_refusals = deleted_refusals_;
  s.regions_written = regions_written_;
  s.bytes_written = bytes_written_;
  s.regions_reclaimed = regions_reclaimed_;
  s.dropped_entries = dropped_entries_;
  s.direct_io = direct_io_;
  s.failed = failed_.load(std::memory_order_relaxed);
  s.failure = failure_;
  return s;
}

}  // namespace symbiosis::rocksdb
