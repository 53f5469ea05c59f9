# Helpers that keep each module's CMakeLists.txt to a few lines.
#
# tfhost_module(NAME DEPS ...): a static library from every *.cc in the current
# folder and its subfolders except *_test.cc, *_fuzz.cc and *_bench.cc, plus one
# test executable per *_test.cc registered with ctest (label = module name).
# A subfolder with a CMakeLists.txt of its own is a module of its own and is
# skipped (src/backends/cpu/simd, say).
function(tfhost_module name)
  cmake_parse_arguments(ARG "" "" "DEPS;TEST_DEPS" ${ARGN})
  file(GLOB_RECURSE all_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  set(lib_sources "")
  set(test_sources "")
  foreach(src ${all_sources})
    get_filename_component(dir ${src} DIRECTORY)
    set(own_module FALSE)
    while(NOT dir STREQUAL CMAKE_CURRENT_SOURCE_DIR AND dir MATCHES "^${CMAKE_CURRENT_SOURCE_DIR}/")
      if(EXISTS ${dir}/CMakeLists.txt)
        set(own_module TRUE)
      endif()
      get_filename_component(dir ${dir} DIRECTORY)
    endwhile()
    if(own_module)
      continue()
    endif()
    if(src MATCHES "_test\\.cc$")
      list(APPEND test_sources ${src})
    elseif(NOT src MATCHES "_(fuzz|bench)\\.cc$")
      list(APPEND lib_sources ${src})
    endif()
  endforeach()
  add_library(${name} STATIC ${lib_sources})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  if(TFHOST_BUILD_TESTS)
    foreach(test_src ${test_sources})
      get_filename_component(test_name ${test_src} NAME_WE)
      tfhost_test(${test_name} SOURCES ${test_src} DEPS ${name} ${ARG_TEST_DEPS} LABELS ${name})
    endforeach()
  endif()
endfunction()

# tfhost_test(NAME SOURCES ... DEPS ... LABELS ...): one GoogleTest executable.
# Tests see TFHOST_FIXTURES (default ../shared/fixtures from the repo root) unless
# the environment already sets it.
function(tfhost_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES
    LABELS "${ARG_LABELS}"
    ENVIRONMENT "TFHOST_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
    TIMEOUT 300)
endfunction()

# tfhost_plugin_library(NAME SOURCES ...): a backend plugin (a shared library
# backends/plugin_loader.h loads). It takes tfhost's headers and none of its
# libraries: the executable loading it exports tfhost's symbols.
function(tfhost_plugin_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  add_library(${name} SHARED ${ARG_SOURCES})
  target_include_directories(${name} PRIVATE
    ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/src/proto ${Protobuf_INCLUDE_DIRS})
  # The generated protobuf headers the IR headers include.
  add_dependencies(${name} tfhost_proto)
endfunction()
