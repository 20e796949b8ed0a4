// Trace readers: libCacheSim oracleGeneral binary, CSV with a column map,
// and plain text with one key per line.
//
// Formats:
//   oracleGeneral  packed little-endian 24-byte records: uint32 clock_time,
//                  uint64 obj_id (the key), uint32 obj_size (the size),
//                  int64 next_access_vtime (-1 = never again). A file whose
//                  size is not a multiple of 24, or a next_access_vtime that
//                  is neither -1 nor in the future, is an error.
//   csv            one record per line; fields split at the delimiter and
//                  trimmed of blanks; a field wrapped in double quotes loses
//                  them (quoted delimiters are not supported). Numeric keys
//                  are unsigned 64-bit decimals; string keys (key_type=string)
//                  are hashed to 64 bits.
//   txt            one unsigned 64-bit decimal key per line; size is 0.
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
#include <string>
#include <string_view>
#include <vector>

namespace symbiosis {

struct TraceRecord {
  uint64_t key = 0;
  uint32_t size = 0;  // bytes; 0 when the format has no size
};

enum class TraceFormat { kOracleGeneral, kCsv, kText };

struct CsvColumns {
  uint32_t key = 1;    // 1-based column numbers; 0 = absent
  uint32_t size = 0;
  char delimiter = ',';
  bool has_header = false;
  bool key_is_numeric = true;  // otherwise keys are hashed strings
};

struct TraceOptions {
  TraceFormat format = TraceFormat::kOracleGeneral;
  CsvColumns csv;
  uint64_t max_records = 0;  // 0 = all
};

// "oracleGeneral" (or "oracle"), "csv", "txt" (or "text"), any case.
// Throws InputError.
TraceFormat ParseTraceFormat(std::string_view name);

// Parses a column map: comma-separated name=value fields, any subset, in
// any order; absent fields keep the CsvColumns defaults ("" = defaults).
//   key=N          1-based key column (N >= 1)
//   size=N         1-based size column; 0 = none
//   delimiter=D    comma|tab|space|semicolon|pipe, a quoted character
//                  (',' or ","), or one literal character, which may be the
//                  comma itself: "key=5,delimiter=,,header=1"
//   header=1|0     skip the first non-blank line (also true/false, yes/no)
//   key_type=numeric|string
// Example: "key=5,size=4,delimiter=comma,header=1". Throws InputError.
CsvColumns ParseCsvColumns(std::string_view text);

// Reads the whole trace (the first max_records if set). Throws InputError
// (missing file, empty trace, truncated record, bad field).
std::vector<TraceRecord> ReadTrace(const std::string& path,
                                   const TraceOptions& options);

// Writes records in oracleGeneral format, for tests and benchmarks:
// next_access_vtime is the 1-based position of the next request for the
// same key (-1 when none), as libCacheSim writes it; clock_time is the
// record's 0-based position. Throws InputError if the file cannot be written.
void WriteOracleGeneral(const std::string& path,
                        const std::vector<TraceRecord>& records);

}  // namespace symbiosis

#endif  // SYMBIOSIS_TRACE_H_
