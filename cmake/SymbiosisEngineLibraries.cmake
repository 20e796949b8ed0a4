# The engines' libraries from the distribution as imported targets, for
# the build and for the installed package (symbiosisConfig.cmake) alike.
# LevelDB ships a CMake package (leveldb::leveldb); Debian's RocksDB's
# drags in its static library's dependencies and WiredTiger has none, so
# their shared libraries are found directly.
if(CMAKE_FIND_PACKAGE_NAME)  # from symbiosisConfig.cmake
  include(CMakeFindDependencyMacro)
  find_dependency(Threads)
  find_dependency(leveldb CONFIG)
else()
  find_package(Threads REQUIRED)
  find_package(leveldb CONFIG REQUIRED)
endif()

if(NOT TARGET symbiosis_engine::rocksdb)
  find_library(SYMBIOSIS_ROCKSDB_LIBRARY NAMES rocksdb REQUIRED)
  find_path(SYMBIOSIS_ROCKSDB_INCLUDE_DIR rocksdb/db.h REQUIRED)
  add_library(symbiosis_engine::rocksdb UNKNOWN IMPORTED)
  set_target_properties(symbiosis_engine::rocksdb PROPERTIES
    IMPORTED_LOCATION "${SYMBIOSIS_ROCKSDB_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${SYMBIOSIS_ROCKSDB_INCLUDE_DIR}")
endif()

if(NOT TARGET symbiosis_engine::wiredtiger)
  find_library(SYMBIOSIS_WIREDTIGER_LIBRARY NAMES wiredtiger REQUIRED)
  find_path(SYMBIOSIS_WIREDTIGER_INCLUDE_DIR wiredtiger.h REQUIRED)
  add_library(symbiosis_engine::wiredtiger UNKNOWN IMPORTED)
  set_target_properties(symbiosis_engine::wiredtiger PROPERTIES
    IMPORTED_LOCATION "${SYMBIOSIS_WIREDTIGER_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${SYMBIOSIS_WIREDTIGER_INCLUDE_DIR}")
endif()

# Not an engine's: libzstd (Debian's libzstd-dev), with which the trace
# reader decompresses zstd traces as it reads them.
if(NOT TARGET symbiosis_dep::zstd)
  find_library(SYMBIOSIS_ZSTD_LIBRARY NAMES zstd REQUIRED)
  find_path(SYMBIOSIS_ZSTD_INCLUDE_DIR zstd.h REQUIRED)
  add_library(symbiosis_dep::zstd UNKNOWN IMPORTED)
  set_target_properties(symbiosis_dep::zstd PROPERTIES
    IMPORTED_LOCATION "${SYMBIOSIS_ZSTD_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${SYMBIOSIS_ZSTD_INCLUDE_DIR}")
endif()
