#include "symbiosis/trace.h"

#include <fcntl.h>
#include <sys/mman.h>
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
#include <unordered_map>
#include <utility>

#include "symbiosis/error.h"
#include "symbiosis/hash.h"

namespace symbiosis {

namespace {

// oracleGeneral record: uint32 clock_time, uint64 obj_id, uint32 obj_size,
// int64 next_access_vtime; packed, little-endian.
constexpr size_t kOracleRecordBytes = 24;
static_assert(std::endian::native == std::endian::little,
              "oracleGeneral records are decoded with memcpy");

// A whole trace file as one contiguous read-only byte range: mmap for
// regular files (fast, no copy), read() into memory for pipes and devices.
class FileBytes {
 public:
  explicit FileBytes(const std::string& path) : path_(path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) Fail("cannot open: " + std::string(std::strerror(errno)));
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      ::close(fd);
      Fail("cannot stat: " + std::string(std::strerror(errno)));
    }
    if (S_ISDIR(st.st_mode)) {
      ::close(fd);
      Fail("is a directory; give a trace file");
    }
    if (S_ISREG(st.st_mode)) {
      size_ = static_cast<size_t>(st.st_size);
      if (size_ > 0) {
        void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
          ::close(fd);
          Fail("cannot map: " + std::string(std::strerror(errno)));
        }
        ::madvise(p, size_, MADV_SEQUENTIAL);
        mapped_ = static_cast<const char*>(p);
      }
    } else {
      ReadAll(fd);
    }
    ::close(fd);
  }
  ~FileBytes() {
    if (mapped_ != nullptr) ::munmap(const_cast<char*>(mapped_), size_);
  }
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  const char* data() const { return mapped_ != nullptr ? mapped_ : copy_.data(); }
  size_t size() const { return size_; }

 private:
  [[noreturn]] void Fail(const std::string& reason) {
    throw InputError(path_ + ": " + reason);
  }
  void ReadAll(int fd) {
    char buffer[1 << 16];
    for (;;) {
      ssize_t n = ::read(fd, buffer, sizeof(buffer));
      if (n == 0) break;
      if (n < 0) {
        if (errno == EINTR) continue;
        ::close(fd);
        Fail("read failed: " + std::string(std::strerror(errno)));
      }
      copy_.append(buffer, static_cast<size_t>(n));
    }
    size_ = copy_.size();
  }

  std::string path_;
  const char* mapped_ = nullptr;
  std::string copy_;
  size_t size_ = 0;
};

[[noreturn]] void ThrowNoRecords(const std::string& path) {
  throw InputError(path + ": the trace holds no records; check the path and "
                   "the format (--trace-format)");
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

// 64-bit hash of a string key: Hash64 chained over 8-byte words, seeded
// with the length, so keys that differ in any byte or in length differ.
uint64_t HashString(std::string_view s) {
  uint64_t h = Mix64(s.size() + 0x5bd1e9955bd1e995ULL);
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, s.data() + i, 8);
    h = Hash64(h, word);
  }
  if (i < s.size()) {
    uint64_t word = 0;
    std::memcpy(&word, s.data() + i, s.size() - i);
    h = Hash64(h, word);
  }
  return h;
}

// Walks the lines of a text file; counts lines (for messages) and skips
// lines that are empty or only blanks.
class LineCursor {
 public:
  LineCursor(const char* data, size_t size) : p_(data), end_(data + size) {}

  // Sets *line to the next non-blank line, without its end of line.
  bool NextNonBlank(std::string_view* line) {
    while (p_ < end_) {
      const char* eol = static_cast<const char*>(
          std::memchr(p_, '\n', static_cast<size_t>(end_ - p_)));
      if (eol == nullptr) eol = end_;
      std::string_view raw(p_, static_cast<size_t>(eol - p_));
      p_ = eol < end_ ? eol + 1 : end_;
      line_number_++;
      if (!Trim(raw).empty()) {
        *line = raw;
        return true;
      }
    }
    return false;
  }
  uint64_t line_number() const { return line_number_; }

 private:
  const char* p_;
  const char* end_;
  uint64_t line_number_ = 0;
};

uint64_t RecordLimit(const TraceOptions& options) {
  return options.max_records == 0 ? std::numeric_limits<uint64_t>::max()
                                  : options.max_records;
}

std::vector<TraceRecord> ReadOracleGeneral(const std::string& path,
                                           const FileBytes& file,
                                           uint64_t limit) {
  if (file.size() == 0) ThrowNoRecords(path);
  uint64_t whole = file.size() / kOracleRecordBytes;
  if (file.size() % kOracleRecordBytes != 0) {
    throw InputError(path + ": record " + std::to_string(whole + 1) +
                     " is truncated (file size " + std::to_string(file.size()) +
                     " is not a multiple of 24 bytes); the file is cut short "
                     "or is not oracleGeneral");
  }
  uint64_t n = std::min(whole, limit);
  std::vector<TraceRecord> records(n);
  const char* p = file.data();
  for (uint64_t i = 0; i < n; i++, p += kOracleRecordBytes) {
    uint64_t obj_id;
    uint32_t obj_size;
    int64_t next_access_vtime;
    std::memcpy(&obj_id, p + 4, 8);
    std::memcpy(&obj_size, p + 12, 4);
    std::memcpy(&next_access_vtime, p + 16, 8);
    // A next access lies in the future (vtime 1-based as libCacheSim
    // writes it, or 0-based) or is -1; anything else is corruption.
    if (next_access_vtime != -1 &&
        next_access_vtime <= static_cast<int64_t>(i)) {
      throw InputError(path + ": record " + std::to_string(i + 1) +
                       ": next_access_vtime " +
                       std::to_string(next_access_vtime) +
                       " is not in the future; the file is corrupt or is not "
                       "oracleGeneral");
    }
    records[i] = TraceRecord{obj_id, obj_size};
  }
  return records;
}

std::vector<TraceRecord> ReadText(const std::string& path,
                                  const FileBytes& file, uint64_t limit) {
  std::vector<TraceRecord> records;
  LineCursor cursor(file.data(), file.size());
  std::string_view line;
  while (records.size() < limit && cursor.NextNonBlank(&line)) {
    std::string_view field = Trim(line);
    uint64_t key;
    if (!ParseUnsigned(field, std::numeric_limits<uint64_t>::max(), &key)) {
      throw InputError(path + ": record " + std::to_string(records.size() + 1) +
                       " (line " + std::to_string(cursor.line_number()) +
                       "): " + Quote(field) +
                       " is not a key (an unsigned 64-bit number); a text "
                       "trace holds one numeric key per line");
    }
    records.push_back(TraceRecord{key, 0});
  }
  if (records.empty()) ThrowNoRecords(path);
  return records;
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

std::vector<TraceRecord> ReadCsv(const std::string& path, const FileBytes& file,
                                 const CsvColumns& columns, uint64_t limit) {
  if (columns.key == 0) {
    throw InputError(path + ": the column map has no key column; give key=N");
  }
  const uint32_t needed = std::max(columns.key, columns.size);
  std::vector<TraceRecord> records;
  std::vector<std::string_view> fields;
  LineCursor cursor(file.data(), file.size());
  std::string_view line;
  if (columns.has_header) cursor.NextNonBlank(&line);
  while (records.size() < limit && cursor.NextNonBlank(&line)) {
    const std::string where = path + ": record " +
                              std::to_string(records.size() + 1) + " (line " +
                              std::to_string(cursor.line_number()) + "): ";
    size_t count = SplitFields(line, columns.delimiter, &fields);
    if (count < needed) {
      throw InputError(where + "has " + std::to_string(count) +
                       " columns but the column map needs column " +
                       std::to_string(needed) +
                       "; check the column numbers and the delimiter");
    }
    TraceRecord record;
    std::string_view key = Unquote(fields[columns.key - 1]);
    if (!columns.key_is_numeric) {
      if (key.empty()) {
        throw InputError(where + "column " + std::to_string(columns.key) +
                         " (key) is empty");
      }
      record.key = HashString(key);
    } else if (!ParseUnsigned(key, std::numeric_limits<uint64_t>::max(),
                              &record.key)) {
      throw InputError(
          where + "column " + std::to_string(columns.key) + " (key) is " +
          Quote(key) + ", not a number" +
          (records.empty() && !columns.has_header
               ? "; if the first line is a header, set header=1"
               : "; for string keys set key_type=string"));
    }
    if (columns.size != 0) {
      std::string_view size = Unquote(fields[columns.size - 1]);
      uint64_t value;
      if (!ParseUnsigned(size, std::numeric_limits<uint32_t>::max(), &value)) {
        throw InputError(where + "column " + std::to_string(columns.size) +
                         " (size) is " + Quote(size) +
                         ", not a number of bytes below 4 GiB");
      }
      record.size = static_cast<uint32_t>(value);
    }
    records.push_back(record);
  }
  if (records.empty()) ThrowNoRecords(path);
  return records;
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
  throw InputError("unknown trace format " + Quote(name) +
                   "; use oracleGeneral, csv or txt");
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
      if (name == "key" || name == "size") {
        if (!is_number || (name == "key" && number == 0)) {
          ThrowBadColumns(text, std::string(name) + "=" +
                                    std::string(value) +
                                    " is not a column number (1-based" +
                                    (name == "size" ? "; 0 = none)" : ")"));
        }
        (name == "key" ? columns.key : columns.size) =
            static_cast<uint32_t>(number);
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
                                  "; fields are key, size, delimiter, "
                                  "header, key_type");
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

std::vector<TraceRecord> ReadTrace(const std::string& path,
                                   const TraceOptions& options) {
  FileBytes file(path);
  uint64_t limit = RecordLimit(options);
  switch (options.format) {
    case TraceFormat::kOracleGeneral:
      return ReadOracleGeneral(path, file, limit);
    case TraceFormat::kCsv:
      return ReadCsv(path, file, options.csv, limit);
    case TraceFormat::kText:
      return ReadText(path, file, limit);
  }
  throw InputError(path + ": unknown trace format");
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
    // clock_time: the record's position, saturating; TraceRecord has none.
    uint32_t clock_time = static_cast<uint32_t>(
        std::min<uint64_t>(i, std::numeric_limits<uint32_t>::max()));
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
