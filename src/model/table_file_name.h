// The number in a storage engine's table file name: LevelDB and RocksDB
// name each table "<number>.<suffix>" (000123.ldb, 000123.sst) and never
// reuse a number, which makes it the file's stable id across reopens.

#ifndef SYMBIOSIS_TABLE_FILE_NAME_H_
#define SYMBIOSIS_TABLE_FILE_NAME_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>

namespace symbiosis {

// The decimal number before the first '.' of the path's last component, if
// what follows is one of `suffixes` (".ldb") and the number fits 64 bits;
// nullopt otherwise.
std::optional<uint64_t> TableFileNumber(std::string_view path,
                                        std::initializer_list<std::string_view> suffixes);

}  // namespace symbiosis

#endif  // SYMBIOSIS_TABLE_FILE_NAME_H_
