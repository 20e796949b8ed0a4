// Trace readers: libCacheSim oracleGeneral binary, CSV with a column map,
// plain text with one key per line, and RocksDB's human-readable block
// cache trace. Readers stream: a trace of any length is read through a
// buffer of about a MiB ("-" reads standard input, e.g. from zstd -dc).
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
// In csv and txt, lines that are empty or only blanks are skipped and are
// not records; "\r\n" line ends and a missing final newline are accepted.
//
// Every bad record raises InputError naming the file, the record number
// (1-based; for text formats also the line) and the reason, e.g.
//   "t.csv: record 12 (line 13): column 4 (size) is 'abc', not a number...".
// A trace with no records is an error too.

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

enum class TraceFormat { kOracleGeneral, kCsv, kText, kRocksDbBlockCache };

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
};

// Whether records of this format (and column map) carry their times.
bool TraceHasTimes(const TraceOptions& options);

// "oracleGeneral" (or "oracle"), "csv", "txt" (or "text"), "rocksdb", any
// case.
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
  uint64_t bytes_consumed() const;  // of the file, for progress
  uint64_t file_bytes() const;      // 0 when unknown (a pipe)

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
