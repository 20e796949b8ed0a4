#include "symbiosis/trace.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include <unordered_set>
#include <vector>

#include <zstd.h>

#include "gtest/gtest.h"
#include "base/hash.h"
#include "symbiosis/error.h"
#include "testing/test_support.h"

namespace symbiosis {
namespace {

namespace fs = std::filesystem;

// A scratch file removed at the end of the test.
class TempFile {
 public:
  explicit TempFile(const std::string& contents) {
    static int counter = 0;
    path_ = (fs::temp_directory_path() /
             ("symbiosis_trace_test_" + std::to_string(::getpid()) + "_" +
              std::to_string(counter++)))
                .string();
    std::ofstream(path_, std::ios::binary) << contents;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TraceOptions Csv(const std::string& columns) {
  TraceOptions options;
  options.format = TraceFormat::kCsv;
  options.csv = ParseCsvColumns(columns);
  return options;
}

TraceOptions Text() {
  TraceOptions options;
  options.format = TraceFormat::kText;
  return options;
}

TraceOptions Oracle() { return TraceOptions{}; }

// Runs `read` and returns the InputError message ("" if none was thrown).
template <typename F>
std::string ErrorOf(F read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string OracleRecord(uint32_t time, uint64_t id, uint32_t size,
                         int64_t next) {
  std::string r(24, '\0');
  std::memcpy(&r[0], &time, 4);
  std::memcpy(&r[4], &id, 8);
  std::memcpy(&r[12], &size, 4);
  std::memcpy(&r[16], &next, 8);
  return r;
}

std::vector<uint64_t> Keys(const std::vector<TraceRecord>& records) {
  std::vector<uint64_t> keys;
  for (const TraceRecord& r : records) keys.push_back(r.key);
  return keys;
}

TEST(ParseTraceFormat, NamesAndAliases) {
  EXPECT_EQ(ParseTraceFormat("oracleGeneral"), TraceFormat::kOracleGeneral);
  EXPECT_EQ(ParseTraceFormat("oracle"), TraceFormat::kOracleGeneral);
  EXPECT_EQ(ParseTraceFormat("csv"), TraceFormat::kCsv);
  EXPECT_EQ(ParseTraceFormat("txt"), TraceFormat::kText);
  EXPECT_EQ(ParseTraceFormat("text"), TraceFormat::kText);
  EXPECT_NE(ErrorOf([] { ParseTraceFormat("parquet"); }).find("'parquet'"),
            std::string::npos);
}

TEST(ParseCsvColumns, AllFields) {
  CsvColumns c = ParseCsvColumns("key=5,size=4,delimiter=tab,header=1");
  EXPECT_EQ(c.key, 5u);
  EXPECT_EQ(c.size, 4u);
  EXPECT_EQ(c.delimiter, '\t');
  EXPECT_TRUE(c.has_header);
  EXPECT_TRUE(c.key_is_numeric);
  EXPECT_FALSE(ParseCsvColumns("key_type=string").key_is_numeric);
  CsvColumns defaults = ParseCsvColumns("");
  EXPECT_EQ(defaults.key, 1u);
  EXPECT_EQ(defaults.delimiter, ',');
}

TEST(ParseCsvColumns, CommaDelimiterSpellings) {
  EXPECT_EQ(ParseCsvColumns("key=5,delimiter=,,header=1").delimiter, ',');
  EXPECT_TRUE(ParseCsvColumns("key=5,delimiter=,,header=1").has_header);
  EXPECT_EQ(ParseCsvColumns("delimiter=,").delimiter, ',');
  EXPECT_EQ(ParseCsvColumns("delimiter=',',key=2").delimiter, ',');
  EXPECT_EQ(ParseCsvColumns("delimiter=comma").delimiter, ',');
  EXPECT_EQ(ParseCsvColumns("delimiter=;").delimiter, ';');
  EXPECT_EQ(ParseCsvColumns("delimiter=semicolon").delimiter, ';');
  EXPECT_EQ(ParseCsvColumns("delimiter=space").delimiter, ' ');
  EXPECT_EQ(ParseCsvColumns("delimiter=|").delimiter, '|');
}

TEST(ParseCsvColumns, Errors) {
  for (const char* bad :
       {"key=0", "key=x", "key=-1", "size=abc", "time=x", "time_unit=min", "delimiter=xy",
        "delimiter=",
        "header=maybe", "key_type=blob", "colour=5", "key5", "key=5;size=4"}) {
    std::string error = ErrorOf([&] { ParseCsvColumns(bad); });
    EXPECT_NE(error.find("column map"), std::string::npos) << bad;
    EXPECT_EQ(error.find('\n'), std::string::npos) << bad;
  }
}

TEST(ReadTrace, Csv) {
  TempFile f("version,time,op,size,lbn\r\n1,5,2a,512,42\r\n\r\n1,6,2a,4096,7");
  std::vector<TraceRecord> r = ReadTrace(f.path(), Csv("key=5,size=4,header=1"));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].key, 42u);
  EXPECT_EQ(r[0].size, 512u);
  EXPECT_EQ(r[1].key, 7u);
  EXPECT_EQ(r[1].size, 4096u);
}

TEST(ReadTrace, CsvStringKeysAreHashedConsistently) {
  TempFile f("GET;\"user:1\"\nGET;user:2\nGET;user:1\nGET;user:10\n");
  std::vector<TraceRecord> r =
      ReadTrace(f.path(), Csv("key=2,delimiter=;,key_type=string"));
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].key, r[2].key);
  EXPECT_NE(r[0].key, r[1].key);
  EXPECT_NE(r[0].key, r[3].key);
}

TEST(ReadTrace, CsvMaxRecords) {
  TempFile f("1\n2\n3\n");
  TraceOptions options = Csv("key=1");
  options.max_records = 2;
  EXPECT_EQ(Keys(ReadTrace(f.path(), options)),
            (std::vector<uint64_t>{1, 2}));
}

TEST(ReadTrace, CsvErrorsNameRecordAndColumn) {
  TempFile bad_size("1,10\n2,20\n3,abc\n");
  std::string e = ErrorOf([&] { ReadTrace(bad_size.path(), Csv("key=1,size=2")); });
  EXPECT_NE(e.find(bad_size.path()), std::string::npos) << e;
  EXPECT_NE(e.find("record 3"), std::string::npos) << e;
  EXPECT_NE(e.find("column 2 (size)"), std::string::npos) << e;
  EXPECT_NE(e.find("'abc'"), std::string::npos) << e;

  TempFile missing("1,10\n2\n");
  e = ErrorOf([&] { ReadTrace(missing.path(), Csv("key=1,size=2")); });
  EXPECT_NE(e.find("record 2"), std::string::npos) << e;
  EXPECT_NE(e.find("has 1 columns"), std::string::npos) << e;

  TempFile header("key,size\n1,2\n");
  e = ErrorOf([&] { ReadTrace(header.path(), Csv("key=1,size=2")); });
  EXPECT_NE(e.find("record 1"), std::string::npos) << e;
  EXPECT_NE(e.find("header=1"), std::string::npos) << e;

  TempFile negative("-5\n");
  EXPECT_NE(ErrorOf([&] { ReadTrace(negative.path(), Csv("key=1")); })
                .find("(key) is '-5'"),
            std::string::npos);
  TempFile overflow("1,4294967296\n");
  EXPECT_NE(ErrorOf([&] { ReadTrace(overflow.path(), Csv("key=1,size=2")); })
                .find("record 1"),
            std::string::npos);
  TempFile key_overflow("18446744073709551616\n");
  EXPECT_NE(ErrorOf([&] { ReadTrace(key_overflow.path(), Csv("key=1")); }),
            "");
  TempFile only_header("a,b\n");
  EXPECT_NE(ErrorOf([&] { ReadTrace(only_header.path(), Csv("header=1")); })
                .find("no records"),
            std::string::npos);
}

TEST(ReadTrace, Text) {
  TempFile f("5\n  6 \r\n\n18446744073709551615");
  EXPECT_EQ(Keys(ReadTrace(f.path(), Text())),
            (std::vector<uint64_t>{5, 6, 18446744073709551615ull}));
}

TEST(ReadTrace, TextErrors) {
  TempFile f("5\n\n6\n7x\n");
  std::string e = ErrorOf([&] { ReadTrace(f.path(), Text()); });
  EXPECT_NE(e.find("record 3 (line 4, byte 5)"), std::string::npos) << e;
  EXPECT_NE(e.find("'7x'"), std::string::npos) << e;

  TempFile binary(std::string("\x01\x02\n", 3));
  e = ErrorOf([&] { ReadTrace(binary.path(), Text()); });
  EXPECT_NE(e.find("\\x01"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;

  TempFile blank("\n  \n");
  EXPECT_NE(ErrorOf([&] { ReadTrace(blank.path(), Text()); }).find("no records"),
            std::string::npos);
}

TEST(ReadTrace, MissingFileAndDirectory) {
  EXPECT_NE(ErrorOf([] { ReadTrace("/nonexistent/t.bin", Oracle()); })
                .find("/nonexistent/t.bin: cannot open"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { ReadTrace("/tmp", Oracle()); }).find("directory"),
            std::string::npos);
}

TEST(ReadTrace, OracleGeneralRoundTrip) {
  std::vector<TraceRecord> in = {
      {7, 100, 0}, {8, 200, 1'000'000}, {7, 100, 1'500'000}, {9, 0, 3'000'000}, {8, 1, 0}};
  TempFile f("");
  WriteOracleGeneral(f.path(), in);
  std::vector<TraceRecord> out = ReadTrace(f.path(), Oracle());
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); i++) {
    EXPECT_EQ(out[i].key, in[i].key);
    EXPECT_EQ(out[i].size, in[i].size);
    EXPECT_EQ(out[i].time_us, in[i].time_us / 1'000'000 * 1'000'000) << i;  // whole seconds
  }
  EXPECT_TRUE(TraceHasTimes(Oracle()));
}

TEST(ReadTrace, CsvTimesInTheirUnit) {
  TempFile f("3,1500\n4,2500\n");
  for (const auto& [unit, scale] : {std::pair<const char*, uint64_t>{"s", 1'000'000},
                                    {"ms", 1'000},
                                    {"us", 1}}) {
    const TraceOptions o = Csv(std::string("key=1,time=2,time_unit=") + unit);
    EXPECT_TRUE(TraceHasTimes(o));
    const std::vector<TraceRecord> r = ReadTrace(f.path(), o);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].time_us, 1500 * scale) << unit;
    EXPECT_EQ(r[1].time_us, 2500 * scale) << unit;
  }
  EXPECT_FALSE(TraceHasTimes(Csv("key=1")));
  TempFile bad("3,soon\n");
  EXPECT_NE(ErrorOf([&] { ReadTrace(bad.path(), Csv("key=1,time=2")); })
                .find("column 2 (time) is 'soon'"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { ParseCsvColumns("time_unit=h"); }).find("time_unit must be s, ms or us"),
            std::string::npos);
}

TEST(WriteOracleGeneral, NextAccessTimesAreOneBasedOrMinusOne) {
  TempFile f("");
  WriteOracleGeneral(f.path(), {{7, 1}, {8, 1}, {7, 1}, {9, 1}, {8, 1}});
  std::ifstream in(f.path(), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), 5u * 24);
  std::vector<int64_t> next;
  for (size_t i = 0; i < 5; i++) {
    int64_t v;
    std::memcpy(&v, bytes.data() + 24 * i + 16, 8);
    next.push_back(v);
  }
  EXPECT_EQ(next, (std::vector<int64_t>{3, 5, -1, -1, -1}));
}

TEST(ReadTrace, OracleGeneralErrors) {
  TempFile empty("");
  EXPECT_NE(ErrorOf([&] { ReadTrace(empty.path(), Oracle()); })
                .find("no records"),
            std::string::npos);

  TempFile truncated(OracleRecord(0, 1, 1, -1) + OracleRecord(0, 2, 1, -1) +
                     "12345");
  std::string e = ErrorOf([&] { ReadTrace(truncated.path(), Oracle()); });
  EXPECT_NE(e.find("record 3 (byte 48): truncated"), std::string::npos) << e;

  TempFile corrupt(OracleRecord(0, 1, 1, 2) + OracleRecord(0, 2, 1, 1));
  e = ErrorOf([&] { ReadTrace(corrupt.path(), Oracle()); });
  EXPECT_NE(e.find("record 2 (byte 24): next_access_vtime 1"), std::string::npos) << e;
}

// The column maps docs/mrc.md gives for two public layouts. Twitter's
// cache traces (twitter/cache-trace): timestamp, anonymized key, key size,
// value size, client id, operation, TTL. MSR Cambridge block traces:
// timestamp, hostname, disk number, type, offset, size, response time.
TEST(ReadTrace, TwitterAndMsrCambridgeLayouts) {
  TempFile twitter("0,q:q:1:8WTfjZU,19,42,1,get,0\n0,q:q:1:8WTfjZU,19,42,1,get,0\n"
                   "1,a:b:xyz,10,300,2,set,3600\n");
  const auto t = ReadTrace(twitter.path(), Csv("key=2,size=4,key_type=string"));
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].key, t[1].key);
  EXPECT_NE(t[0].key, t[2].key);
  EXPECT_EQ(t[2].size, 300u);
  TempFile msr("128166372003061629,hm,1,Read,3608576000,4096,1337\n"
               "128166372016382155,hm,1,Write,3608580096,512,2214\n");
  const auto m = ReadTrace(msr.path(), Csv("key=5,size=6"));
  EXPECT_EQ(Keys(m), (std::vector<uint64_t>{3608576000u, 3608580096u}));
  EXPECT_EQ(m[1].size, 512u);
}

TraceOptions Format(const char* name, const char* ops = "reads,writes") {
  TraceOptions options;
  options.format = ParseTraceFormat(name);
  options.ops = ParseTraceOps(ops);
  return options;
}

// Twitter's format read natively: the key (which may hold commas) hashed,
// the size key + value, reads and writes chosen, deletes never counted.
TEST(ReadTrace, TwitterCacheTrace) {
  TempFile f("0,q:q:1:8WTfjZU,19,42,1,get,0\n"
             "1,a,b:xyz,10,300,2,set,3600\n"
             "2,q:q:1:8WTfjZU,19,42,1,delete,0\n"
             "3,a,b:xyz,10,0,2,GETS,0\n");
  TraceReader reader(f.path(), Format("twitter"));
  std::vector<TraceRecord> r;
  reader.Read(10, &r);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].key, HashString("q:q:1:8WTfjZU"));
  EXPECT_EQ(r[0].size, 61u);
  EXPECT_EQ(r[1].key, HashString("a,b:xyz"));
  EXPECT_EQ(r[1].size, 310u);
  EXPECT_EQ(r[1].time_us, 1'000'000u);
  EXPECT_EQ(r[2].key, r[1].key);
  EXPECT_EQ(reader.skipped(), 1u);  // the delete

  EXPECT_EQ(ReadTrace(f.path(), Format("twitter", "reads")).size(), 2u);
  const auto writes = ReadTrace(f.path(), Format("twitter", "writes"));
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].size, 310u);

  TempFile bad("0,k,1,2,3,fetch,0\n");
  std::string e = ErrorOf([&] { ReadTrace(bad.path(), Format("twitter")); });
  EXPECT_NE(e.find("record 1 (line 1, byte 0): operation 'fetch'"), std::string::npos) << e;
  TempFile short_line("0,k,1,2,get\n");
  e = ErrorOf([&] { ReadTrace(short_line.path(), Format("twitter")); });
  EXPECT_NE(e.find("fewer than Twitter's 7 fields"), std::string::npos) << e;
  TempFile only_deletes("0,k,1,2,3,delete,0\n");
  e = ErrorOf([&] { ReadTrace(only_deletes.path(), Format("twitter")); });
  EXPECT_NE(e.find("none of the trace's 1 requests"), std::string::npos) << e;
  EXPECT_NE(ErrorOf([] { ParseTraceOps("reads,deletes"); }).find("'deletes' is not reads"),
            std::string::npos);
}

TEST(ReadTrace, MsrCambridgeTrace) {
  TempFile f("128166372003061629,hm,1,Read,3608576000,4096,1337\n"
             "128166372016382155,hm,1,Write,3608576000,512,2214\n"
             "128166372016382155,hm,2,Read,3608576000,512,2214\n");
  const auto r = ReadTrace(f.path(), Format("msr"));
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].key, r[1].key);  // one block, read then written
  EXPECT_NE(r[0].key, r[2].key);  // the same offset on another disk
  EXPECT_EQ(r[1].size, 512u);
  EXPECT_EQ(r[0].time_us, 12816637200306162u);
  EXPECT_EQ(ReadTrace(f.path(), Format("msr", "reads")).size(), 2u);
  TempFile bad("1,hm,1,Trim,0,4096,1\n");
  const std::string e = ErrorOf([&] { ReadTrace(bad.path(), Format("msr")); });
  EXPECT_NE(e.find("the type 'Trim' is not Read or Write"), std::string::npos) << e;
}

// Byte ranges split one file among readers: for every cut, [0, cut) and
// [cut, end) hold every record once, in order, whatever the cut falls on
// (inside a record or line, on its first byte, on a blank line).
TEST(TraceReader, ByteRangesHoldEveryRecordOnce) {
  std::string oracle, csv = "key,size\n";
  std::vector<uint64_t> keys;
  for (uint64_t i = 0; i < 40; i++) {
    keys.push_back(i * 37 % 11);
    oracle += OracleRecord(static_cast<uint32_t>(i), keys.back(), 100, -1);
    csv += std::to_string(keys.back()) + ",100\n" + (i % 7 == 0 ? "\n" : "");
  }
  TempFile oracle_file(oracle), csv_file(csv);
  for (const auto& [path, options, bytes] :
       {std::tuple{oracle_file.path(), Oracle(), oracle.size()},
        std::tuple{csv_file.path(), Csv("key=1,size=2,header=1"), csv.size()}}) {
    for (uint64_t cut = 1; cut < bytes; cut++) {
      TraceOptions first = options, second = options;
      first.end_byte = cut;
      second.start_byte = cut;
      std::vector<uint64_t> read;
      for (const TraceOptions& o : {first, second}) {
        TraceReader reader(path, o);  // a range may hold none
        TraceRecord r;
        while (reader.Next(&r)) read.push_back(r.key);
      }
      ASSERT_EQ(read, keys) << path << " cut at byte " << cut;
    }
  }
  // A bad record in a range is named by its byte offset in the file.
  TempFile bad("1\n2\nx\n4\n");
  TraceOptions range = Text();
  range.start_byte = 3;
  const std::string e = ErrorOf([&] { ReadTrace(bad.path(), range); });
  EXPECT_NE(e.find(": the record at byte 4: 'x'"), std::string::npos) << e;
  range.start_byte = 5;
  range.end_byte = 5;
  EXPECT_NE(ErrorOf([&] { ReadTrace(bad.path(), range); }).find("is empty"), std::string::npos);
}

// With a checksum per frame, as the zstd tool writes.
std::string Zstd(const std::string& data) {
  ZSTD_CCtx* ctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(ctx, ZSTD_c_checksumFlag, 1);
  std::string out(ZSTD_compressBound(data.size()), '\0');
  out.resize(ZSTD_compress2(ctx, out.data(), out.size(), data.data(), data.size()));
  ZSTD_freeCCtx(ctx);
  return out;
}

// A zstd file (several frames, as zstd writes concatenated files) reads
// as the plain one; a cut one, or one asked for by ranges, is an error.
TEST(TraceReader, ReadsZstdCompressedTraces) {
  std::string first, second;
  std::vector<uint64_t> keys;
  for (uint64_t i = 0; i < 150'000; i++) {  // 3.6 MB: several refills
    keys.push_back(i % 977);
    (i < 100'000 ? first : second) += OracleRecord(static_cast<uint32_t>(i), keys.back(), 8, -1);
  }
  TempFile compressed(Zstd(first) + Zstd(second));
  EXPECT_TRUE(TraceIsCompressed(compressed.path()));
  TraceReader reader(compressed.path(), Oracle());
  std::vector<TraceRecord> batch;
  std::vector<uint64_t> read;
  while (reader.Read(4096, &batch) > 0) {
    for (const TraceRecord& r : batch) read.push_back(r.key);
  }
  EXPECT_EQ(read, keys);
  EXPECT_EQ(reader.file_bytes(), reader.bytes_consumed());  // the compressed bytes

  TempFile text(Zstd("1\n2\n3\n"));
  EXPECT_EQ(Keys(ReadTrace(text.path(), Text())), (std::vector<uint64_t>{1, 2, 3}));

  const std::string whole = Zstd(first);
  TempFile cut(whole.substr(0, whole.size() / 2));
  std::string e = ErrorOf([&] { ReadTrace(cut.path(), Oracle()); });
  EXPECT_NE(e.find("cut short"), std::string::npos) << e;
  std::string flipped = whole;
  flipped[flipped.size() / 2] ^= 0x5a;
  flipped[flipped.size() / 2 + 1] ^= 0x5a;
  TempFile corrupt(flipped);
  e = ErrorOf([&] { ReadTrace(corrupt.path(), Oracle()); });
  EXPECT_FALSE(e.empty());
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  TraceOptions range = Oracle();
  range.start_byte = 24;
  e = ErrorOf([&] { ReadTrace(compressed.path(), range); });
  EXPECT_NE(e.find("not by byte ranges"), std::string::npos) << e;
}

// block_cache_trace_analyzer -human_readable_trace_file_path writes one
// line per access with this printf layout (RocksDB 7.8,
// trace_replay/block_cache_tracer.cc): timestamp, block id, block type,
// block size, cf id, cf name, level, SST number, caller, no_insert, get
// id, get key id, referenced data size, hit, key exists, keys in block,
// table id, sequence number, block key size, referenced key size, offset.
std::string RocksDbLine(uint64_t block_id, uint32_t type, uint64_t size) {
  return "1574879811000000," + std::to_string(block_id) + "," + std::to_string(type) + "," +
         std::to_string(size) + ",0,default,0,12,1,0,3,4,100,0,1,20,7,0,18,24,4096\n";
}

TEST(ReadTrace, RocksDbHumanReadableBlockCacheTrace) {
  TempFile f(RocksDbLine(5, 9, 4096) + RocksDbLine(6, 7, 512) + RocksDbLine(5, 9, 4096));
  TraceOptions options;
  options.format = ParseTraceFormat("rocksdb");
  const std::vector<TraceRecord> r = ReadTrace(f.path(), options);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(Keys(r), (std::vector<uint64_t>{5, 6, 5}));
  EXPECT_EQ(r[0].size, 4096u);
  EXPECT_EQ(r[1].size, 512u);
  EXPECT_EQ(r[0].time_us, 1574879811000000u);

  // A csv of another layout read as rocksdb: one line naming the layout.
  TempFile other("version,time,op,size,lbn\n1,2,3,4,5\n");
  const std::string e = ErrorOf([&] { ReadTrace(other.path(), options); });
  EXPECT_NE(e.find("record 1 (line 1, byte 0)"), std::string::npos) << e;
  EXPECT_NE(e.find("21"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

// The reader streams through a buffer of about a MiB: records that span
// refills, and a line longer than the buffer, read the same as whole.
TEST(TraceReader, StreamsAcrossBufferRefills) {
  std::string oracle, text;
  std::vector<uint64_t> keys;
  for (uint64_t i = 0; i < 100'000; i++) {  // 2.4 MB: three refills
    const uint64_t key = (i * 7919) % 1000;
    keys.push_back(key);
    oracle += OracleRecord(static_cast<uint32_t>(i), key, 4096, -1);
    text += std::to_string(key) + (i % 3 == 0 ? "\r\n" : "\n");
  }
  TempFile oracle_file(oracle), text_file(text);
  TraceReader reader(oracle_file.path(), Oracle());
  std::vector<TraceRecord> batch;
  std::vector<uint64_t> read;
  while (reader.Read(4096, &batch) > 0) {
    for (const TraceRecord& r : batch) read.push_back(r.key);
  }
  EXPECT_EQ(read, keys);
  EXPECT_EQ(reader.records(), keys.size());
  EXPECT_EQ(reader.bytes_consumed(), oracle.size());
  EXPECT_EQ(reader.file_bytes(), oracle.size());
  EXPECT_EQ(Keys(ReadTrace(text_file.path(), Text())), keys);

  // One csv line of 3 MB (a long string key) between two short ones.
  TempFile long_line("1,a\n2," + std::string(3 << 20, 'x') + "\n3,b");
  const std::vector<TraceRecord> r = ReadTrace(long_line.path(), Csv("key=1"));
  EXPECT_EQ(Keys(r), (std::vector<uint64_t>{1, 2, 3}));
}

TEST(TraceReader, StopsAtMaxRecordsAndAfterTheEnd) {
  TempFile f("1\n2\n3\n");
  TraceOptions options = Text();
  options.max_records = 2;
  TraceReader reader(f.path(), options);
  TraceRecord r;
  ASSERT_TRUE(reader.Next(&r));
  ASSERT_TRUE(reader.Next(&r));
  EXPECT_EQ(r.key, 2u);
  EXPECT_FALSE(reader.Next(&r));
  EXPECT_FALSE(reader.Next(&r));
}

TEST(ReadTrace, SharedCloudPhysicsTracesAgree) {
  fs::path dir = testing::SharedTraceDir();
  if (dir.empty()) {
    GTEST_SKIP() << "no shared/traces/cloudPhysicsIO.* beside the repository (the csv and "
                    "text forms are not in tests/data)";
  }
  std::vector<TraceRecord> oracle =
      ReadTrace((dir / "cloudPhysicsIO.oracleGeneral.bin").string(), Oracle());
  std::vector<TraceRecord> csv = ReadTrace(
      (dir / "cloudPhysicsIO.csv").string(), Csv("key=5,size=4,header=1"));
  std::vector<TraceRecord> text =
      ReadTrace((dir / "cloudPhysicsIO.txt").string(), Text());
  ASSERT_EQ(oracle.size(), 113872u);
  EXPECT_EQ(Keys(csv), Keys(oracle));
  EXPECT_EQ(Keys(text), Keys(oracle));
  // Sizes are not compared: the oracleGeneral conversion of this trace
  // records different object sizes than the csv's size column.
  std::vector<uint64_t> keys = Keys(oracle);
  std::unordered_set<uint64_t> distinct(keys.begin(), keys.end());
  EXPECT_EQ(distinct.size(), 48974u);
  EXPECT_EQ(csv[0].size, 512u);
}

}  // namespace
}  // namespace symbiosis
