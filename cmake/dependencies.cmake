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

# Serving: Boost.Beast/Asio (header-only) for HTTP, gRPC C++ for the gRPC API.
find_package(Boost 1.74 REQUIRED)
add_library(tfhost_boost INTERFACE)
target_include_directories(tfhost_boost INTERFACE ${Boost_INCLUDE_DIRS})
target_compile_definitions(tfhost_boost INTERFACE BOOST_ASIO_NO_DEPRECATED BOOST_BEAST_USE_STD_STRING_VIEW)
target_link_libraries(tfhost_boost INTERFACE Threads::Threads)

# TLS for the REST API (--ssl_config_file; Debian's libssl-dev).
find_package(OpenSSL REQUIRED)

find_package(PkgConfig REQUIRED)
pkg_check_modules(TFHOST_GRPCPP REQUIRED IMPORTED_TARGET grpc++)
find_program(GRPC_CPP_PLUGIN grpc_cpp_plugin REQUIRED)

# TensorFlow Lite models (src/loaders/tflite): flatc compiles tfhost's own
# schema at build time; the generated reader and its Verifier need only
# flatbuffers' headers, so nothing is linked (and nothing ships in dist/).
find_program(FLATC flatc REQUIRED)
find_path(FLATBUFFERS_INCLUDE_DIR flatbuffers/flatbuffers.h REQUIRED)
add_library(tfhost_flatbuffers INTERFACE)
target_include_directories(tfhost_flatbuffers INTERFACE ${FLATBUFFERS_INCLUDE_DIR})
# FlexBuffers' number readers would otherwise use a locale object defined in
# libflatbuffers; the C library's strtod is enough for custom options.
target_compile_definitions(tfhost_flatbuffers INTERFACE FLATBUFFERS_LOCALE_INDEPENDENT=0)

# StringToHashBucketFast: FarmHash Fingerprint64, bucket for bucket as TensorFlow.
find_path(FARMHASH_INCLUDE_DIR farmhash.h REQUIRED)
find_library(FARMHASH_LIBRARY NAMES libfarmhash.a farmhash REQUIRED)
add_library(tfhost_farmhash INTERFACE)
target_include_directories(tfhost_farmhash INTERFACE ${FARMHASH_INCLUDE_DIR})
target_link_libraries(tfhost_farmhash INTERFACE ${FARMHASH_LIBRARY})

# tensorflow-text's ops (src/ops/text): ICU for Unicode normalization, case
# folding and character properties, RE2 for the regex split (and TensorFlow's
# regex ops), with the syntax and semantics TensorFlow itself links.
pkg_check_modules(TFHOST_ICU REQUIRED IMPORTED_TARGET icu-uc)
pkg_check_modules(TFHOST_RE2 REQUIRED IMPORTED_TARGET re2)

# Host probing (NUMA/PCIe topology) and the object-store cache (HTTP + SigV4).
pkg_check_modules(TFHOST_HWLOC REQUIRED IMPORTED_TARGET hwloc)
find_package(CURL REQUIRED)

# The onednn backend (src/backends/cpu/onednn): oneDNN 2.6 with its OpenMP
# runtime. Its CMake package also demands OpenCL for a GPU runtime tfhost
# never uses, so the library is found directly.
if(TFHOST_BACKEND_ONEDNN)
  find_path(DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp REQUIRED)
  find_library(DNNL_LIBRARY dnnl REQUIRED)
  find_package(OpenMP REQUIRED COMPONENTS CXX)
  add_library(tfhost_dnnl INTERFACE)
  target_include_directories(tfhost_dnnl INTERFACE ${DNNL_INCLUDE_DIR})
  # Only the runtime library: -fopenmp on every dependent target would change
  # (and recompile) the whole tree for no use.
  target_link_libraries(tfhost_dnnl INTERFACE ${DNNL_LIBRARY} ${OpenMP_CXX_LIBRARIES})
endif()

# CPU collectives for `tfhost bench allreduce`: Gloo (its TCP transport) and
# OpenMPI. Only the C bindings of MPI are used.
find_package(Gloo REQUIRED CONFIG)
find_package(MPI REQUIRED COMPONENTS C)
