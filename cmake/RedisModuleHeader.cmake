# redismodule.h, the header of Redis's module API, from a registry package:
# the crates.io crate redis-module (pinned below) ships it in
# src/include/. cargo fetches the crate into its cache at configure time
# (once; later configures read the cache), and the build includes the
# header from there. No copy is kept in the repository.
#
# Sets SYMBIOSIS_REDISMODULE_H_DIR, or leaves it empty with a warning where
# cargo is missing or the fetch fails (the module is then not built, and
# its tests say so).

set(SYMBIOSIS_REDIS_MODULE_CRATE "redis-module" CACHE INTERNAL "")
set(SYMBIOSIS_REDIS_MODULE_CRATE_VERSION "2.0.7" CACHE INTERNAL "")
set(SYMBIOSIS_REDISMODULE_H_DIR "")

find_program(SYMBIOSIS_CARGO cargo)
if(NOT SYMBIOSIS_CARGO)
  message(WARNING "cargo not found: the Redis module (symbiosis_redis.so) is not built; "
                  "scripts/setup.sh installs cargo, which fetches redismodule.h")
  return()
endif()

set(_fetch_dir "${CMAKE_BINARY_DIR}/redismodule-h")
file(MAKE_DIRECTORY "${_fetch_dir}/src")
file(WRITE "${_fetch_dir}/Cargo.toml"
  "[package]\nname = \"symbiosis-fetch-redismodule-h\"\nversion = \"0.0.0\"\nedition = \"2021\"\n"
  "[dependencies]\n${SYMBIOSIS_REDIS_MODULE_CRATE} = \"=${SYMBIOSIS_REDIS_MODULE_CRATE_VERSION}\"\n")
file(WRITE "${_fetch_dir}/src/lib.rs" "")
execute_process(
  COMMAND "${SYMBIOSIS_CARGO}" metadata --format-version 1
          --manifest-path "${_fetch_dir}/Cargo.toml" --filter-platform x86_64-unknown-linux-gnu
  OUTPUT_VARIABLE _metadata ERROR_VARIABLE _error RESULT_VARIABLE _status)
if(NOT _status EQUAL 0)
  message(WARNING "cargo could not fetch ${SYMBIOSIS_REDIS_MODULE_CRATE} "
                  "${SYMBIOSIS_REDIS_MODULE_CRATE_VERSION} (${_error}): the Redis module is not built")
  return()
endif()
# The crate's manifest path, from the packages cargo resolved.
string(JSON _count LENGTH "${_metadata}" packages)
math(EXPR _last "${_count} - 1")
foreach(_i RANGE ${_last})
  string(JSON _name GET "${_metadata}" packages ${_i} name)
  string(JSON _version GET "${_metadata}" packages ${_i} version)
  if(_name STREQUAL SYMBIOSIS_REDIS_MODULE_CRATE AND
     _version STREQUAL SYMBIOSIS_REDIS_MODULE_CRATE_VERSION)
    string(JSON _manifest GET "${_metadata}" packages ${_i} manifest_path)
    get_filename_component(_crate_dir "${_manifest}" DIRECTORY)
    if(EXISTS "${_crate_dir}/src/include/redismodule.h")
      set(SYMBIOSIS_REDISMODULE_H_DIR "${_crate_dir}/src/include")
    endif()
  endif()
endforeach()
if(NOT SYMBIOSIS_REDISMODULE_H_DIR)
  message(WARNING "${SYMBIOSIS_REDIS_MODULE_CRATE} ${SYMBIOSIS_REDIS_MODULE_CRATE_VERSION} has no "
                  "src/include/redismodule.h: the Redis module is not built")
endif()
