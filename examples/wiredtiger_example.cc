// WiredTiger under a 64 MiB budget that Symbiosis splits between its
// cache and the page cache: writes 20,000 values, reads each back (each
// read marked with an AccessScope) and checks it, prints what the
// Controller saw. Usage: wiredtiger_example DIR
//
// Link with -rdynamic (symbiosis::wiredtiger passes it on; pkg-config's
// symbiosis-wiredtiger has it): WiredTiger finds the plugin's file system
// in the executable by name.

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include <sys/stat.h>

#include "symbiosis/wiredtiger.h"

namespace {

int Fail(const char* what, int code) {
  std::fprintf(stderr, "wiredtiger_example: error: %s: %s\n", what, wiredtiger_strerror(code));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR (a folder for the database)\n", argv[0]);
    return 2;
  }
  mkdir(argv[1], 0755);  // WiredTiger wants its home to exist
  symbiosis::wiredtiger::Options options;
  options.engine_config = "create";
  options.memory_bytes = 64ull << 20;  // M
  std::unique_ptr<symbiosis::wiredtiger::Db> db;
  const symbiosis::wiredtiger::Status status = symbiosis::wiredtiger::Open(options, argv[1], &db);
  if (!status.ok()) {
    std::fprintf(stderr, "wiredtiger_example: error: %s\n", status.message.c_str());
    return 1;
  }
  WT_CONNECTION* conn = db->connection();
  WT_SESSION* session = nullptr;
  if (int r = conn->open_session(conn, nullptr, nullptr, &session); r != 0) {
    return Fail("open_session", r);
  }
  if (int r = session->create(session, "table:t", "key_format=S,value_format=S"); r != 0) {
    return Fail("create table:t", r);
  }
  WT_CURSOR* cursor = nullptr;
  if (int r = session->open_cursor(session, "table:t", nullptr, nullptr, &cursor); r != 0) {
    return Fail("open_cursor", r);
  }
  constexpr int kKeys = 20000;
  const std::string filler(1000, 'v');
  for (int i = 0; i < kKeys; i++) {
    const std::string key = "key" + std::to_string(i), value = std::to_string(i) + filler;
    cursor->set_key(cursor, key.c_str());
    cursor->set_value(cursor, value.c_str());
    if (int r = cursor->insert(cursor); r != 0) return Fail("insert", r);
  }
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < kKeys; i++) {
      const std::string key = "key" + std::to_string(i);
      const char* value = nullptr;
      {
        symbiosis::wiredtiger::AccessScope scope(*db, "table:t", key);
        cursor->set_key(cursor, key.c_str());
        if (int r = cursor->search(cursor); r != 0) return Fail("search", r);
      }
      if (int r = cursor->get_value(cursor, &value); r != 0) return Fail("get_value", r);
      if (std::to_string(i) + filler != value) {
        std::fprintf(stderr, "wiredtiger_example: error: %s read back wrong\n", key.c_str());
        return 1;
      }
      cursor->reset(cursor);
    }
  }
  const symbiosis::wiredtiger::Stats stats = db->GetStats();
  std::printf("wiredtiger: M %llu MiB, cache %llu MiB, %llu lookups, %llu hits, state %s\n",
              static_cast<unsigned long long>(stats.memory_bytes >> 20),
              static_cast<unsigned long long>(stats.ma_bytes >> 20),
              static_cast<unsigned long long>(stats.lookups),
              static_cast<unsigned long long>(stats.app_hits),
              symbiosis::ControllerStateName(stats.controller.state));
  session->close(session, nullptr);  // closes the cursor
  return 0;
}
