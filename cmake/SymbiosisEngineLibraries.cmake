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

# symbiosis_import_library(TARGET NAME HEADER): TARGET, an imported target
# of the system's library NAME, whose include directory holds HEADER.
function(symbiosis_import_library target name header)
  if(TARGET ${target})
    return()
  endif()
  string(TOUPPER ${name} upper)
  find_library(SYMBIOSIS_${upper}_LIBRARY NAMES ${name} REQUIRED)
  find_path(SYMBIOSIS_${upper}_INCLUDE_DIR ${header} REQUIRED)
  add_library(${target} UNKNOWN IMPORTED)
  set_target_properties(${target} PROPERTIES
    IMPORTED_LOCATION "${SYMBIOSIS_${upper}_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${SYMBIOSIS_${upper}_INCLUDE_DIR}")
endfunction()

symbiosis_import_library(symbiosis_engine::rocksdb rocksdb rocksdb/db.h)
symbiosis_import_library(symbiosis_engine::wiredtiger wiredtiger wiredtiger.h)
# Not an engine's: libzstd (Debian's libzstd-dev), with which the trace
# reader decompresses zstd traces as it reads them.
symbiosis_import_library(symbiosis_dep::zstd zstd zstd.h)
