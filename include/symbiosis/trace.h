// Trace readers: libCacheSim oracleGeneral binary, CSV with a column map,
// plain text with one key per line, RocksDB's human-readable block cache
// trace, Twitter's cache traces and MSR Cambridge's block traces. Readers
// stream: a trace of any length is read through a buffer of about a MiB
// ("-" reads standard input). A zstd-compressed file or stream (known by
// its magic number) is decompressed as it is read.
//
// Formats:
//   oracleGeneral  packed little-endian 24-byte records: uint32 clock_time
//                  (the time, in seconds), uint64 obj_id (the key), uint32
//                  obj_size (the size),
//                  int64 next_access_vtime (-1 = never again). A file whose
//                  size is not a multiple of 24, or a next_access_vtime that
//                  is neither -1 nor in the future, is an error.
//   csv            one record per line; fields split at the delimiter and
//                  trimmed of blanks; a field wrapped in double quotes loses
//                  them (quoted delimiters are not supported). Numeric keys
//                  are unsigned 64-bit decimals; string keys (key_type=string)
//                  are hashed to 64 bits. An optional time column holds
//                  unsigned decimals in time_unit (s, ms or us).
//   txt            one unsigned 64-bit decimal key per line; size is 0.
//   rocksdb        block_cache_trace_analyzer's human-readable trace: no
//                  header, 21 comma-separated fields per access; the key is
//                  field 2 (block id), the size field 4 (block size), the
//                  time field 1 (microseconds).
//   twitter        Twitter's cache traces (github.com/twitter/cache-trace):
//                  timestamp (s), anonymized key, key size, value size,
//                  client id, operation, TTL. The key (hashed) is the
//                  object, its size key size + value size. get and gets
//                  are reads; set, add, replace, cas, append, prepend, incr
//                  and decr writes; delete is neither and never counts.
//   msr            MSR Cambridge's block traces: Timestamp (Windows
//                  filetime, 100 ns), Hostname, DiskNumber, Type (Read or
//                  Write), Offset, Size, ResponseTime. The object is
//                  (host, disk, offset) and its size Size, as libCacheSim
//                  reads them.
// In text formats, lines that are empty or only blanks are skipped and are
// not records; "\r\n" line ends and a missing final newline are accepted.
// In twitter and msr, TraceOptions::ops chooses whether reads, writes or
// both are records; the others are skipped (and counted).
//
// Every bad record raises InputError naming the file, the record number
// (1-based; for text formats also the line), its byte offset (in the
// decompressed stream of a zstd file) and the reason, e.g.
//   "t.csv: record 12 (line 13, byte 310): column 4 (size) is 'abc', not a
//   number...".
// In a byte range (TraceOptions::start_byte) records and lines are not
// counted from the file's start, and the message gives the byte alone:
//   "t.csv: the record at byte 1048890: column 4 (size) is 'abc', ...".
// A trace with no records is an error too; a range may hold none (a line
// longer than the range), and is then read as empty.

#ifndef SYMBIOSIS_TRACE_H_
#define SYMBIOSIS_TRACE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace symbiosis {

struct TraceRecord {
  uint64_t key = 0;
  uint32_t size = 0;     // bytes; 0 when the format has no size
  uint64_t time_us = 0;  // on the trace's clock; 0 when the format has no time
};

enum class TraceFormat { kOracleGeneral, kCsv, kText, kRocksDbBlockCache, kTwitter, kMsr };

// Which requests of a format that names its operations are records.
struct TraceOps {
  bool reads = true;
  bool writes = true;
};

struct CsvColumns {
  uint32_t key = 1;    // 1-based column numbers; 0 = absent
  uint32_t size = 0;
  uint32_t time = 0;
  uint64_t time_unit_us = 1'000'000;  // one unit of the time column
  char delimiter = ',';
  bool has_header = false;
  bool key_is_numeric = true;  // otherwise keys are hashed strings
};

struct TraceOptions {
  TraceFormat format = TraceFormat::kOracleGeneral;
  CsvColumns csv;
  uint64_t max_records = 0;  // 0 = all
  TraceOps ops;              // twitter, msr
  // A byte range of the file, so that several readers split one file: the
  // records that start in [start_byte, end_byte) (end_byte 0: to the end).
  // A text range begins at the first line that starts at or after
  // start_byte, an oracleGeneral range at the first whole record; so the
  // ranges [0, b) and [b, c) hold every record once. A csv header is the
  // first range's. REQUIRES for start_byte > 0 or end_byte > 0: a file,
  // not compressed (the constructor throws InputError otherwise).
  uint64_t start_byte = 0;
  uint64_t end_byte = 0;
};

// Whether `path` is zstd-compressed (by its magic number); false for "-"
// and files that cannot be read.
bool TraceIsCompressed(const std::string& path);

// "reads", "writes" or "reads,writes" (also "all"). Throws InputError.
TraceOps ParseTraceOps(std::string_view text);

// Whether records of this format (and column map) carry their times.
bool TraceHasTimes(const TraceOptions& options);

// "oracleGeneral" (or "oracle"), "csv", "txt" (or "text"), "rocksdb",
// "twitter", "msr", any case.
// Throws InputError.
TraceFormat ParseTraceFormat(std::string_view name);

// Parses a column map: comma-separated name=value fields, any subset, in
// any order; absent fields keep the CsvColumns defaults ("" = defaults).
//   key=N          1-based key column (N >= 1)
//   size=N         1-based size column; 0 = none
//   time=N         1-based time column; 0 = none
//   time_unit=s|ms|us  the time column's unit (default s)
//   delimiter=D    comma|tab|space|semicolon|pipe, a quoted character
//                  (',' or ","), or one literal character, which may be the
//                  comma itself: "key=5,delimiter=,,header=1"
//   header=1|0     skip the first non-blank line (also true/false, yes/no)
//   key_type=numeric|string
// Example: "key=5,size=4,delimiter=comma,header=1". Throws InputError.
CsvColumns ParseCsvColumns(std::string_view text);

// Reads a trace record by record (the first max_records if set). Every
// call may throw InputError: a missing file, an empty trace (at the first
// Next), a truncated record or a bad field.
class TraceReader {
 public:
  TraceReader(const std::string& path, const TraceOptions& options);
  ~TraceReader();
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  // The next record; false at the end of the trace.
  bool Next(TraceRecord* record);
  // Replaces *records with up to `max` next records; returns how many (0
  // at the end).
  size_t Read(size_t max, std::vector<TraceRecord>* records);

  uint64_t records() const;         // returned so far
  uint64_t skipped() const;         // left out by TraceOptions::ops so far
  // Of the file (compressed bytes for a zstd file), for progress: from the
  // range's start, and the range's bytes (0 when unknown: a pipe).
  uint64_t bytes_consumed() const;
  uint64_t file_bytes() const;

 private:
  class Rep;
  std::unique_ptr<Rep> rep_;
};

// The whole trace in memory (the first max_records if set), for traces
// that fit. Throws InputError as TraceReader.
std::vector<TraceRecord> ReadTrace(const std::string& path,
                                   const TraceOptions& options);

// Writes records in oracleGeneral format, for tests and benchmarks:
// next_access_vtime is the 1-based position of the next request for the
// same key (-1 when none), as libCacheSim writes it; clock_time is the
// record's time in whole seconds. Throws InputError if the file cannot be
// written.
void WriteOracleGeneral(const std::string& path,
                        const std::vector<TraceRecord>& records);

}  // namespace symbiosis

#endif  // SYMBIOSIS_TRACE_H_
