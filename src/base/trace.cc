#include "symbiosis/trace.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <memory>
#include <unordered_map>
#include <utility>

#include <zstd.h>

#include "symbiosis/error.h"
#include "base/hash.h"

namespace symbiosis {

namespace {

// oracleGeneral record: uint32 clock_time, uint64 obj_id, uint32 obj_size,
// int64 next_access_vtime; packed, little-endian.
constexpr size_t kOracleRecordBytes = 24;
static_assert(std::endian::native == std::endian::little,
              "oracleGeneral records are decoded with memcpy");

[[noreturn]] void ThrowNoRecords(const std::string& path) {
  throw InputError(path + ": the trace holds no records; check the path and "
                   "the format (--format)");
}

// A field quoted into an error message: at most 40 characters, control
// bytes escaped, so that a binary file read as text still gives one line.
std::string Quote(std::string_view field) {
  std::string out = "'";
  for (size_t i = 0; i < field.size() && i < 40; i++) {
    unsigned char c = static_cast<unsigned char>(field[i]);
    if (c < 0x20 || c >= 0x7f) {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (field.size() > 40) out += "...";
  return out + "'";
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' ||
                        s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Parses all of `s` as an unsigned decimal number no larger than `max`.
bool ParseUnsigned(std::string_view s, uint64_t max, uint64_t* value) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *value);
  return ec == std::errc() && end == s.data() + s.size() && *value <= max;
}

// Splits `line` at `delimiter` into `fields`; returns the field count.
size_t SplitFields(std::string_view line, char delimiter,
                   std::vector<std::string_view>* fields) {
  fields->clear();
  for (;;) {
    size_t cut = line.find(delimiter);
    fields->push_back(Trim(line.substr(0, cut)));
    if (cut == std::string_view::npos) break;
    line.remove_prefix(cut + 1);
  }
  return fields->size();
}

std::string_view Unquote(std::string_view field) {
  if (field.size() >= 2 && field.front() == '"' && field.back() == '"') {
    return field.substr(1, field.size() - 2);
  }
  return field;
}

[[noreturn]] void ThrowBadColumns(std::string_view text,
                                  const std::string& reason) {
  throw InputError("column map " + Quote(text) + ": " + reason +
                   "; use e.g. key=5,size=4,delimiter=comma,header=1");
}

// The delimiter value at the start of `rest`: a name, a quoted character
// or one literal character (which may be the comma itself). Sets *used to
// the characters consumed.
char ParseDelimiter(std::string_view text, std::string_view rest,
                    size_t* used) {
  static constexpr std::pair<std::string_view, char> kNames[] = {
      {"comma", ','}, {"tab", '\t'},  {"space", ' '},
      {"semicolon", ';'}, {"pipe", '|'}};
  for (const auto& [name, c] : kNames) {
    if (rest.substr(0, name.size()) == name &&
        (rest.size() == name.size() || rest[name.size()] == ',')) {
      *used = name.size();
      return c;
    }
  }
  if (rest.size() >= 3 && (rest[0] == '\'' || rest[0] == '"') &&
      rest[2] == rest[0]) {
    *used = 3;
    return rest[1];
  }
  if (rest.empty() || rest[0] == '\n' || rest[0] == '"' || rest[0] == '\'' ||
      (rest.size() > 1 && rest[1] != ',')) {
    ThrowBadColumns(text, "delimiter must be one character, a quoted "
                          "character, or comma|tab|space|semicolon|pipe");
  }
  *used = 1;
  return rest[0];
}

}  // namespace

TraceFormat ParseTraceFormat(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(c));
  if (lower == "oraclegeneral" || lower == "oracle") {
    return TraceFormat::kOracleGeneral;
  }
  if (lower == "csv") return TraceFormat::kCsv;
  if (lower == "txt" || lower == "text") return TraceFormat::kText;
  if (lower == "rocksdb") return TraceFormat::kRocksDbBlockCache;
  if (lower == "twitter") return TraceFormat::kTwitter;
  if (lower == "msr") return TraceFormat::kMsr;
  throw InputError("unknown trace format " + Quote(name) +
                   "; use oracleGeneral, csv, txt, rocksdb, twitter or msr");
}

CsvColumns ParseCsvColumns(std::string_view text) {
  CsvColumns columns;
  std::string_view rest = text;
  while (!rest.empty()) {
    size_t eq = rest.find('=');
    if (eq == std::string_view::npos) {
      ThrowBadColumns(text, Quote(rest.substr(0, rest.find(','))) +
                                " is not name=value");
    }
    std::string_view name = Trim(rest.substr(0, eq));
    rest.remove_prefix(eq + 1);
    size_t used;
    if (name == "delimiter") {
      columns.delimiter = ParseDelimiter(text, rest, &used);
    } else {
      used = std::min(rest.find(','), rest.size());
      std::string_view value = Trim(rest.substr(0, used));
      uint64_t number = 0;
      bool is_number = ParseUnsigned(value, 1 << 20, &number);
      if (name == "key" || name == "size" || name == "time") {
        if (!is_number || (name == "key" && number == 0)) {
          ThrowBadColumns(text, std::string(name) + "=" +
                                    std::string(value) +
                                    " is not a column number (1-based" +
                                    (name == "key" ? ")" : "; 0 = none)"));
        }
        (name == "key" ? columns.key : name == "size" ? columns.size : columns.time) =
            static_cast<uint32_t>(number);
      } else if (name == "time_unit") {
        if (value == "s") {
          columns.time_unit_us = 1'000'000;
        } else if (value == "ms") {
          columns.time_unit_us = 1'000;
        } else if (value == "us") {
          columns.time_unit_us = 1;
        } else {
          ThrowBadColumns(text, "time_unit must be s, ms or us");
        }
      } else if (name == "header") {
        if (value == "1" || value == "true" || value == "yes") {
          columns.has_header = true;
        } else if (value == "0" || value == "false" || value == "no") {
          columns.has_header = false;
        } else {
          ThrowBadColumns(text, "header must be 1 or 0");
        }
      } else if (name == "key_type") {
        if (value == "numeric") {
          columns.key_is_numeric = true;
        } else if (value == "string") {
          columns.key_is_numeric = false;
        } else {
          ThrowBadColumns(text, "key_type must be numeric or string");
        }
      } else {
        ThrowBadColumns(text, "unknown field " + Quote(name) +
                                  "; fields are key, size, time, time_unit, "
                                  "delimiter, header, key_type");
      }
    }
    rest.remove_prefix(used);
    if (!rest.empty()) {
      if (rest[0] != ',') {
        ThrowBadColumns(text, "expected ',' before " + Quote(rest));
      }
      rest.remove_prefix(1);
    }
  }
  return columns;
}

bool TraceHasTimes(const TraceOptions& options) {
  switch (options.format) {
    case TraceFormat::kOracleGeneral:
    case TraceFormat::kRocksDbBlockCache:
    case TraceFormat::kTwitter:
    case TraceFormat::kMsr:
      return true;
    case TraceFormat::kCsv:
      return options.csv.time != 0;
    case TraceFormat::kText:
      return false;
  }
  return false;
}

TraceOps ParseTraceOps(std::string_view text) {
  TraceOps ops{false, false};
  std::string_view rest = text;
  while (!rest.empty()) {
    const size_t cut = std::min(rest.find(','), rest.size());
    const std::string_view word = Trim(rest.substr(0, cut));
    if (word == "reads") {
      ops.reads = true;
    } else if (word == "writes") {
      ops.writes = true;
    } else if (word == "all") {
      ops = TraceOps{};
    } else {
      throw InputError("operations " + Quote(text) + ": " + Quote(word) +
                       " is not reads or writes; use reads, writes or reads,writes");
    }
    rest.remove_prefix(std::min(cut + 1, rest.size()));
  }
  if (!ops.reads && !ops.writes) {
    throw InputError("operations " + Quote(text) + ": name reads, writes or both");
  }
  return ops;
}

namespace {

constexpr unsigned char kZstdMagic[4] = {0x28, 0xb5, 0x2f, 0xfd};

bool HasZstdMagic(const char* bytes, size_t n) {
  return n >= 4 && std::memcmp(bytes, kZstdMagic, 4) == 0;
}

// ASCII case-insensitive equality, for operation names.
bool SameWord(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool TraceIsCompressed(const std::string& path) {
  if (path == "-") return false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char head[4];
  const ssize_t n = ::pread(fd, head, sizeof(head), 0);
  ::close(fd);
  return n == 4 && HasZstdMagic(head, 4);
}

// Invariants: buffer_[begin_, end_) holds the bytes read (decompressed)
// and not yet consumed; consumed_ is the offset in the (decompressed)
// stream of begin_. A text line or an oracleGeneral record never spans a
// refill: Fill() moves the unconsumed tail to the front first, and grows
// the buffer for a line longer than it. A zstd file's compressed bytes
// pass through zin_[zin_begin_, zin_end_).
class TraceReader::Rep {
 public:
  Rep(const std::string& path, const TraceOptions& options)
      : path_(path), options_(options), buffer_(kBufferBytes) {
    if (options.format == TraceFormat::kCsv && options.csv.key == 0) {
      throw InputError(path + ": the column map has no key column; give key=N");
    }
    const bool ranged = options.start_byte > 0 || options.end_byte > 0;
    if (ranged && options.end_byte > 0 && options.end_byte <= options.start_byte) {
      throw InputError(path + ": the byte range [" + std::to_string(options.start_byte) + ", " +
                       std::to_string(options.end_byte) + ") is empty; give end > start");
    }
    if (path == "-") {
      if (ranged) Fail("standard input cannot be read by byte ranges; give a file");
      fd_ = STDIN_FILENO;
    } else {
      fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd_ < 0) Fail("cannot open: " + std::string(std::strerror(errno)));
      struct stat st;
      if (::fstat(fd_, &st) != 0) Fail("cannot stat: " + std::string(std::strerror(errno)));
      if (S_ISDIR(st.st_mode)) Fail("is a directory; give a trace file");
      if (S_ISREG(st.st_mode)) {
        file_bytes_ = static_cast<uint64_t>(st.st_size);
        ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
      }
    }
    // The first bytes say whether the stream is zstd's; read as raw input,
    // they are handed to the decompressor or kept as the trace's own.
    zin_.resize(kBufferBytes);
    while (zin_end_ < 4 && !zin_eof_) ReadRawInput();
    compressed_ = HasZstdMagic(zin_.data(), zin_end_);
    if (compressed_) {
      if (ranged) {
        Fail("a zstd-compressed trace is read whole, not by byte ranges; split it into "
             "files, or decompress it");
      }
      zstd_ = ZSTD_createDStream();
      if (zstd_ == nullptr) Fail("cannot allocate a zstd decompressor");
      ZSTD_initDStream(zstd_);
    } else if (ranged) {
      zin_begin_ = zin_end_ = 0;
      StartRange();
    } else {
      std::memcpy(buffer_.data(), zin_.data(), zin_end_);
      end_ = zin_end_;
      zin_begin_ = zin_end_ = 0;
    }
  }
  ~Rep() {
    if (zstd_ != nullptr) ZSTD_freeDStream(zstd_);
    if (fd_ > STDIN_FILENO) ::close(fd_);
  }

  bool Next(TraceRecord* record) {
    for (;;) {
      if (options_.max_records != 0 && records_ == options_.max_records) return false;
      bool got = false;
      bool counted = true;
      switch (options_.format) {
        case TraceFormat::kOracleGeneral:
          got = NextOracle(record);
          break;
        case TraceFormat::kCsv:
          got = NextCsv(options_.csv, record);
          break;
        case TraceFormat::kText:
          got = NextText(record);
          break;
        case TraceFormat::kRocksDbBlockCache:
          got = NextRocksDb(record);
          break;
        case TraceFormat::kTwitter:
          got = NextTwitter(record, &counted);
          break;
        case TraceFormat::kMsr:
          got = NextMsr(record, &counted);
          break;
      }
      if (got && !counted) {
        skipped_++;
        continue;
      }
      if (got) {
        records_++;
      } else if (records_ == 0 && !ranged()) {
        if (skipped_ > 0) {
          throw InputError(path_ + ": none of the trace's " + std::to_string(skipped_) +
                           " requests is of the operations asked for; choose others (--ops)");
        }
        ThrowNoRecords(path_);
      }
      return got;
    }
  }

  uint64_t records() const { return records_; }
  uint64_t skipped() const { return skipped_; }
  uint64_t bytes_consumed() const {
    return compressed_ ? raw_consumed_ : consumed_ - std::min(consumed_, range_start_);
  }
  uint64_t file_bytes() const {
    if (compressed_ || file_bytes_ == 0) return file_bytes_;
    return RangeEnd() - std::min(RangeEnd(), range_start_);
  }

 private:
  static constexpr size_t kBufferBytes = 1 << 20;

  [[noreturn]] void Fail(const std::string& reason) const {
    throw InputError(path_ + ": " + reason);
  }

  bool ranged() const { return options_.start_byte > 0 || options_.end_byte > 0; }
  uint64_t RangeEnd() const {
    return options_.end_byte > 0 && (file_bytes_ == 0 || options_.end_byte < file_bytes_)
               ? options_.end_byte
               : file_bytes_;
  }
  // Whether the record starting at consumed_ lies past the range.
  bool PastRange() const { return options_.end_byte > 0 && consumed_ >= options_.end_byte; }

  // Seeks to the range's first record: an oracleGeneral record boundary,
  // or the first line that starts at or after start_byte (the line
  // through byte start_byte - 1 is the previous range's).
  void StartRange() {
    uint64_t start = options_.start_byte;
    if (options_.format == TraceFormat::kOracleGeneral) {
      start = (start + kOracleRecordBytes - 1) / kOracleRecordBytes * kOracleRecordBytes;
    } else if (start > 0) {
      start -= 1;
    }
    if (::lseek(fd_, static_cast<off_t>(start), SEEK_SET) < 0) {
      Fail("cannot seek to byte " + std::to_string(start) + ": " + std::strerror(errno));
    }
    consumed_ = start;
    range_start_ = options_.start_byte;
    header_skipped_ = start > 0;  // a header is the first range's
    if (options_.format != TraceFormat::kOracleGeneral && start > 0) {
      for (;;) {  // through the end of the line that byte start - 1 is in
        const size_t available = Fill(1);
        if (available == 0) return;
        const char* nl = static_cast<const char*>(
            std::memchr(buffer_.data() + begin_, '\n', available));
        if (nl != nullptr) {
          Consume(static_cast<size_t>(nl - (buffer_.data() + begin_)) + 1);
          return;
        }
        Consume(available);
      }
    }
  }

  // Reads the file's next bytes into zin_ (raw input).
  void ReadRawInput() {
    if (zin_begin_ > 0) {
      std::memmove(zin_.data(), zin_.data() + zin_begin_, zin_end_ - zin_begin_);
      zin_end_ -= zin_begin_;
      zin_begin_ = 0;
    }
    const size_t n = ReadFile(zin_.data() + zin_end_, zin_.size() - zin_end_);
    if (n == 0) zin_eof_ = true;
    zin_end_ += n;
  }

  // Up to `n` bytes of the file into `dst`; 0 at its end.
  size_t ReadFile(char* dst, size_t n) {
    for (;;) {
      const ssize_t got = ::read(fd_, dst, n);
      if (got >= 0) {
        raw_consumed_ += static_cast<uint64_t>(got);
        return static_cast<size_t>(got);
      }
      if (errno != EINTR) Fail("read failed: " + std::string(std::strerror(errno)));
    }
  }

  // Up to `n` bytes of the trace into `dst` (decompressed); 0 at its end.
  size_t ReadInput(char* dst, size_t n) {
    if (!compressed_) return ReadFile(dst, n);
    for (;;) {
      if (zin_begin_ == zin_end_ && !zin_eof_) ReadRawInput();
      // Every frame ended and flushed: the stream's end. (Called with no
      // input after a frame, the decompressor asks for the next one.)
      if (zin_begin_ == zin_end_ && zin_eof_ && !zstd_pending_) return 0;
      ZSTD_inBuffer in{zin_.data() + zin_begin_, zin_end_ - zin_begin_, 0};
      ZSTD_outBuffer out{dst, n, 0};
      const size_t ret = ZSTD_decompressStream(zstd_, &out, &in);
      if (ZSTD_isError(ret)) {
        Fail(std::string("zstd: ") + ZSTD_getErrorName(ret) + " near compressed byte " +
             std::to_string(raw_consumed_ - (zin_end_ - zin_begin_)) + "; the file is corrupt");
      }
      zin_begin_ += in.pos;
      zstd_pending_ = ret != 0;
      if (out.pos > 0) return out.pos;
      if (zin_eof_ && zin_begin_ == zin_end_) {
        if (zstd_pending_) {
          Fail("the zstd stream ends inside a frame (after " + std::to_string(raw_consumed_) +
               " compressed bytes); the file is cut short");
        }
        return 0;
      }
    }
  }

  // Makes at least `want` unconsumed bytes available unless the file ends
  // first; returns the bytes available.
  size_t Fill(size_t want) {
    while (end_ - begin_ < want && !eof_) {
      if (begin_ > 0) {
        std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
      }
      if (end_ == buffer_.size()) buffer_.resize(2 * buffer_.size());
      const size_t n = ReadInput(buffer_.data() + end_, buffer_.size() - end_);
      if (n == 0) eof_ = true;
      end_ += n;
    }
    return end_ - begin_;
  }

  void Consume(size_t n) {
    begin_ += n;
    consumed_ += n;
  }

  // The next line that is not blank and starts within the range, without
  // its end of line; sets line_start_ to its offset.
  bool NextNonBlankLine(std::string_view* line) {
    for (;;) {
      if (PastRange()) return false;
      size_t scanned = 0;  // bytes past begin_ known to hold no '\n'
      const char* eol;
      for (;;) {
        eol = static_cast<const char*>(
            std::memchr(buffer_.data() + begin_ + scanned, '\n', end_ - begin_ - scanned));
        if (eol != nullptr || eof_) break;
        scanned = end_ - begin_;
        Fill(scanned + 1);
      }
      const char* start = buffer_.data() + begin_;
      const size_t length = eol != nullptr ? static_cast<size_t>(eol - start) : end_ - begin_;
      if (eol == nullptr && length == 0) return false;
      line_start_ = consumed_;
      Consume(eol != nullptr ? length + 1 : length);
      line_number_++;
      const std::string_view raw(start, length);
      if (!Trim(raw).empty()) {
        *line = raw;
        return true;
      }
    }
  }

  // "t.csv: record 12 (line 13, byte 310): ", or in a range (where
  // records and lines are not counted from the start) "t.csv: the record
  // at byte 1048890: ".
  std::string Where() const { return WhereAt(line_start_, true); }
  std::string WhereAt(uint64_t byte, bool text) const {
    if (ranged()) return path_ + ": the record at byte " + std::to_string(byte) + ": ";
    return path_ + ": record " + std::to_string(records_ + skipped_ + 1) + " (" +
           (text ? "line " + std::to_string(line_number_) + ", " : "") + "byte " +
           std::to_string(byte) + "): ";
  }

  bool NextOracle(TraceRecord* record) {
    if (PastRange()) return false;
    const size_t available = Fill(kOracleRecordBytes);
    if (available == 0) return false;
    if (available < kOracleRecordBytes) {
      throw InputError(WhereAt(consumed_, false) + "truncated (the trace ends " +
                       std::to_string(consumed_ + available) +
                       " bytes in, not a multiple of 24 bytes); the file is cut short or is "
                       "not oracleGeneral");
    }
    const char* p = buffer_.data() + begin_;
    int64_t next_access_vtime;
    uint32_t clock_time;
    std::memcpy(&clock_time, p, 4);
    record->time_us = uint64_t{clock_time} * 1'000'000;
    std::memcpy(&record->key, p + 4, 8);
    std::memcpy(&record->size, p + 12, 4);
    std::memcpy(&next_access_vtime, p + 16, 8);
    // A next access lies in the future (vtime 1-based as libCacheSim
    // writes it, or 0-based) or is -1; anything else is corruption. The
    // record's index comes from its offset, so a range checks it too.
    const int64_t index = static_cast<int64_t>(consumed_ / kOracleRecordBytes);
    if (next_access_vtime != -1 && next_access_vtime <= index) {
      throw InputError(WhereAt(consumed_, false) + "next_access_vtime " +
                       std::to_string(next_access_vtime) +
                       " is not in the future; the file is corrupt or is not oracleGeneral");
    }
    Consume(kOracleRecordBytes);
    return true;
  }

  bool NextText(TraceRecord* record) {
    std::string_view line;
    if (!NextNonBlankLine(&line)) return false;
    const std::string_view field = Trim(line);
    if (!ParseUnsigned(field, std::numeric_limits<uint64_t>::max(), &record->key)) {
      throw InputError(Where() + Quote(field) +
                       " is not a key (an unsigned 64-bit number); a text trace holds one "
                       "numeric key per line");
    }
    record->size = 0;
    record->time_us = 0;
    return true;
  }

  bool NextCsv(const CsvColumns& columns, TraceRecord* record) {
    std::string_view line;
    if (columns.has_header && !header_skipped_) {
      header_skipped_ = true;
      if (!NextNonBlankLine(&line)) return false;
    }
    if (!NextNonBlankLine(&line)) return false;
    const uint32_t needed = std::max({columns.key, columns.size, columns.time});
    const size_t count = SplitFields(line, columns.delimiter, &fields_);
    if (count < needed) {
      throw InputError(Where() + "has " + std::to_string(count) +
                       " columns but the column map needs column " + std::to_string(needed) +
                       "; check the column numbers and the delimiter");
    }
    const std::string_view key = Unquote(fields_[columns.key - 1]);
    if (!columns.key_is_numeric) {
      if (key.empty()) {
        throw InputError(Where() + "column " + std::to_string(columns.key) + " (key) is empty");
      }
      record->key = HashString(key);
    } else if (!ParseUnsigned(key, std::numeric_limits<uint64_t>::max(), &record->key)) {
      throw InputError(Where() + "column " + std::to_string(columns.key) + " (key) is " +
                       Quote(key) + ", not a number" +
                       (records_ == 0 && !columns.has_header
                            ? "; if the first line is a header, set header=1"
                            : "; for string keys set key_type=string"));
    }
    record->size = 0;
    if (columns.size != 0) {
      const std::string_view size = Unquote(fields_[columns.size - 1]);
      uint64_t value;
      if (!ParseUnsigned(size, std::numeric_limits<uint32_t>::max(), &value)) {
        throw InputError(Where() + "column " + std::to_string(columns.size) + " (size) is " +
                         Quote(size) + ", not a number of bytes below 4 GiB");
      }
      record->size = static_cast<uint32_t>(value);
    }
    record->time_us = 0;
    if (columns.time != 0) {
      const std::string_view time = Unquote(fields_[columns.time - 1]);
      uint64_t value;
      const uint64_t limit = std::numeric_limits<uint64_t>::max() / columns.time_unit_us;
      if (!ParseUnsigned(time, limit, &value)) {
        throw InputError(Where() + "column " + std::to_string(columns.time) + " (time) is " +
                         Quote(time) + ", not an unsigned number of time_unit");
      }
      record->time_us = value * columns.time_unit_us;
    }
    return true;
  }

  // RocksDB's human-readable block cache trace (block_cache_trace_analyzer
  // -human_readable_trace_file_path): no header, 21 comma-separated fields
  // per access, of which the block id (2) is the key and the block size
  // (4) the size; the block type (3) and the caller (9) are numbers.
  bool NextRocksDb(TraceRecord* record) {
    static constexpr size_t kFields = 21;
    std::string_view line;
    if (!NextNonBlankLine(&line)) return false;
    const size_t count = SplitFields(line, ',', &fields_);
    uint64_t ignored;
    if (count < kFields || !ParseUnsigned(fields_[2], 255, &ignored) ||
        !ParseUnsigned(fields_[8], 255, &ignored)) {
      throw InputError(Where() + "has " + std::to_string(count) +
                       " fields, not RocksDB's 21 (timestamp, block id, block type, block "
                       "size, ...); give a trace written by block_cache_trace_analyzer "
                       "-human_readable_trace_file_path, or read it as csv");
    }
    if (!ParseUnsigned(fields_[1], std::numeric_limits<uint64_t>::max(), &record->key)) {
      throw InputError(Where() + "field 2 (block id) is " + Quote(fields_[1]) +
                       ", not a number");
    }
    uint64_t size;
    if (!ParseUnsigned(fields_[3], std::numeric_limits<uint32_t>::max(), &size)) {
      throw InputError(Where() + "field 4 (block size) is " + Quote(fields_[3]) +
                       ", not a number of bytes below 4 GiB");
    }
    record->size = static_cast<uint32_t>(size);
    if (!ParseUnsigned(fields_[0], std::numeric_limits<uint64_t>::max(), &record->time_us)) {
      throw InputError(Where() + "field 1 (timestamp) is " + Quote(fields_[0]) +
                       ", not a number of microseconds");
    }
    return true;
  }

  // Twitter's cache traces: timestamp, key, key size, value size, client
  // id, operation, TTL. A key may hold commas: it runs from the first
  // comma to the fifth from the right.
  bool NextTwitter(TraceRecord* record, bool* counted) {
    std::string_view line;
    if (!NextNonBlankLine(&line)) return false;
    line = Trim(line);
    const size_t first = line.find(',');
    size_t cut = line.size();
    std::string_view tail[5];  // key size, value size, client, operation, TTL
    bool ok = first != std::string_view::npos;
    for (int i = 4; i >= 0 && ok; i--) {
      const size_t comma = line.rfind(',', cut - 1);
      if (comma == std::string_view::npos || comma <= first) {
        ok = false;
        break;
      }
      tail[i] = Trim(line.substr(comma + 1, cut - comma - 1));
      cut = comma;
    }
    if (!ok) {
      throw InputError(Where() + "has fewer than Twitter's 7 fields (timestamp, key, key size, "
                       "value size, client id, operation, TTL); check the format");
    }
    const std::string_view key = Trim(line.substr(first + 1, cut - first - 1));
    const std::string_view operation = tail[3];
    bool read = false;
    bool write = false;
    for (const char* name : {"get", "gets"}) read = read || SameWord(operation, name);
    for (const char* name : {"set", "add", "replace", "cas", "append", "prepend", "incr", "decr"}) {
      write = write || SameWord(operation, name);
    }
    if (!read && !write && !SameWord(operation, "delete")) {
      throw InputError(Where() + "operation " + Quote(operation) +
                       " is not one of Twitter's (get, gets, set, add, replace, cas, append, "
                       "prepend, incr, decr, delete)");
    }
    uint64_t time = 0;
    uint64_t key_size = 0;
    uint64_t value_size = 0;
    if (!ParseUnsigned(Trim(line.substr(0, first)), std::numeric_limits<uint32_t>::max(), &time)) {
      throw InputError(Where() + "the timestamp " + Quote(Trim(line.substr(0, first))) +
                       " is not a number of seconds");
    }
    if (!ParseUnsigned(tail[0], std::numeric_limits<uint32_t>::max(), &key_size) ||
        !ParseUnsigned(tail[1], std::numeric_limits<uint32_t>::max(), &value_size) ||
        key_size + value_size > std::numeric_limits<uint32_t>::max()) {
      throw InputError(Where() + "the key size " + Quote(tail[0]) + " or value size " +
                       Quote(tail[1]) + " is not a number of bytes (their sum below 4 GiB)");
    }
    if (key.empty()) throw InputError(Where() + "the key is empty");
    *counted = (read && options_.ops.reads) || (write && options_.ops.writes);
    record->key = HashString(key);
    record->size = static_cast<uint32_t>(key_size + value_size);
    record->time_us = time * 1'000'000;
    return true;
  }

  // MSR Cambridge: Timestamp (Windows filetime, 100 ns), Hostname,
  // DiskNumber, Type, Offset, Size, ResponseTime.
  bool NextMsr(TraceRecord* record, bool* counted) {
    std::string_view line;
    if (!NextNonBlankLine(&line)) return false;
    if (SplitFields(line, ',', &fields_) < 7) {
      throw InputError(Where() + "has " + std::to_string(fields_.size()) +
                       " fields, not MSR's 7 (Timestamp, Hostname, DiskNumber, Type, Offset, "
                       "Size, ResponseTime); check the format");
    }
    uint64_t filetime = 0;
    uint64_t disk = 0;
    uint64_t offset = 0;
    uint64_t size = 0;
    if (!ParseUnsigned(fields_[0], std::numeric_limits<uint64_t>::max(), &filetime)) {
      throw InputError(Where() + "the timestamp " + Quote(fields_[0]) +
                       " is not a Windows filetime (a number of 100 ns)");
    }
    if (!ParseUnsigned(fields_[2], std::numeric_limits<uint32_t>::max(), &disk) ||
        !ParseUnsigned(fields_[4], std::numeric_limits<uint64_t>::max(), &offset)) {
      throw InputError(Where() + "the disk " + Quote(fields_[2]) + " or offset " +
                       Quote(fields_[4]) + " is not a number");
    }
    if (!ParseUnsigned(fields_[5], std::numeric_limits<uint32_t>::max(), &size)) {
      throw InputError(Where() + "the size " + Quote(fields_[5]) +
                       " is not a number of bytes below 4 GiB");
    }
    const bool read = SameWord(fields_[3], "read");
    if (!read && !SameWord(fields_[3], "write")) {
      throw InputError(Where() + "the type " + Quote(fields_[3]) + " is not Read or Write");
    }
    *counted = read ? options_.ops.reads : options_.ops.writes;
    record->key = Hash64(Hash64(HashString(fields_[1]), disk), offset);
    record->size = static_cast<uint32_t>(size);
    record->time_us = filetime / 10;
    return true;
  }

  const std::string path_;
  const TraceOptions options_;
  int fd_ = -1;
  std::vector<char> buffer_;
  size_t begin_ = 0;
  size_t end_ = 0;
  bool eof_ = false;
  uint64_t consumed_ = 0;     // the offset of begin_ in the (decompressed) stream
  uint64_t line_start_ = 0;   // the offset of the last line read
  uint64_t range_start_ = 0;
  uint64_t file_bytes_ = 0;
  uint64_t raw_consumed_ = 0;  // bytes read from the file
  bool compressed_ = false;
  ZSTD_DStream* zstd_ = nullptr;
  bool zstd_pending_ = false;  // a frame begun and not ended
  std::vector<char> zin_;
  size_t zin_begin_ = 0;
  size_t zin_end_ = 0;
  bool zin_eof_ = false;
  uint64_t records_ = 0;
  uint64_t skipped_ = 0;
  uint64_t line_number_ = 0;
  bool header_skipped_ = false;
  std::vector<std::string_view> fields_;
};

TraceReader::TraceReader(const std::string& path, const TraceOptions& options)
    : rep_(std::make_unique<Rep>(path, options)) {}

TraceReader::~TraceReader() = default;

bool TraceReader::Next(TraceRecord* record) { return rep_->Next(record); }

size_t TraceReader::Read(size_t max, std::vector<TraceRecord>* records) {
  records->clear();
  TraceRecord r;
  while (records->size() < max && rep_->Next(&r)) records->push_back(r);
  return records->size();
}

uint64_t TraceReader::records() const { return rep_->records(); }
uint64_t TraceReader::skipped() const { return rep_->skipped(); }
uint64_t TraceReader::bytes_consumed() const { return rep_->bytes_consumed(); }
uint64_t TraceReader::file_bytes() const { return rep_->file_bytes(); }

std::vector<TraceRecord> ReadTrace(const std::string& path, const TraceOptions& options) {
  TraceReader reader(path, options);
  std::vector<TraceRecord> records;
  // An oracleGeneral file's size gives its record count: one allocation,
  // where growing by doubling copied the records and faulted in fresh
  // pages log2(n) times (most of the read time of 10M records).
  if (options.format == TraceFormat::kOracleGeneral && reader.file_bytes() > 0) {
    uint64_t count = reader.file_bytes() / kOracleRecordBytes;
    if (options.max_records != 0) count = std::min<uint64_t>(count, options.max_records);
    records.reserve(count);
  }
  TraceRecord r;
  while (reader.Next(&r)) records.push_back(r);
  return records;
}

void WriteOracleGeneral(const std::string& path,
                        const std::vector<TraceRecord>& records) {
  // next_access_vtime is the 1-based position of the next request for the
  // same object, as libCacheSim writes it; found by one backward pass.
  std::vector<int64_t> next_access(records.size());
  std::unordered_map<uint64_t, int64_t> seen_at;
  seen_at.reserve(records.size());
  for (size_t i = records.size(); i-- > 0;) {
    auto [it, inserted] = seen_at.try_emplace(records[i].key, 0);
    next_access[i] = inserted ? -1 : it->second;
    it->second = static_cast<int64_t>(i) + 1;
  }

  std::FILE* out = std::fopen(path.c_str(), "wb");
  if (out == nullptr) {
    throw InputError(path + ": cannot create: " + std::strerror(errno));
  }
  std::vector<char> buffer(kOracleRecordBytes * 4096);
  size_t filled = 0;
  bool ok = true;
  for (size_t i = 0; i < records.size() && ok; i++) {
    const uint32_t clock_time = static_cast<uint32_t>(std::min<uint64_t>(
        records[i].time_us / 1'000'000, std::numeric_limits<uint32_t>::max()));
    char* p = buffer.data() + filled;
    std::memcpy(p, &clock_time, 4);
    std::memcpy(p + 4, &records[i].key, 8);
    std::memcpy(p + 12, &records[i].size, 4);
    std::memcpy(p + 16, &next_access[i], 8);
    filled += kOracleRecordBytes;
    if (filled == buffer.size()) {
      ok = std::fwrite(buffer.data(), 1, filled, out) == filled;
      filled = 0;
    }
  }
  if (ok && filled > 0) ok = std::fwrite(buffer.data(), 1, filled, out) == filled;
  if (std::fclose(out) != 0) ok = false;
  if (!ok) throw InputError(path + ": write failed: " + std::strerror(errno));
}

}  // namespace symbiosis
