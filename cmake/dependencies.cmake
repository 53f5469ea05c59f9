# Third-party libraries, all from Debian 12 packages (installed by `make deps`).
find_package(Threads REQUIRED)
find_package(Protobuf REQUIRED)
find_package(ZLIB REQUIRED)
find_package(GTest REQUIRED)
find_package(benchmark QUIET)

find_path(LEVELDB_INCLUDE_DIR leveldb/table.h REQUIRED)
find_library(LEVELDB_LIBRARY leveldb REQUIRED)
add_library(tfhost_leveldb INTERFACE)
target_include_directories(tfhost_leveldb INTERFACE ${LEVELDB_INCLUDE_DIR})
target_link_libraries(tfhost_leveldb INTERFACE ${LEVELDB_LIBRARY})

find_path(RAPIDJSON_INCLUDE_DIR rapidjson/document.h REQUIRED)
add_library(tfhost_rapidjson INTERFACE)
target_include_directories(tfhost_rapidjson INTERFACE ${RAPIDJSON_INCLUDE_DIR})
