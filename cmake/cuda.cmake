# The CUDA toolkit for the CUDA backend plugin (src/backends/cuda), when
# TFHOST_CUDA asks for it: AUTO builds the plugin when nvcc and the toolkit
# are found, ON requires them, OFF skips them. Sets TFHOST_HAVE_CUDA.
#
# The plugin is compiled for sm_80 (A100, A10G, L4 run sm_80 code) and
# sm_90a (H100/H200, with Hopper's architecture-specific features), plus
# compute_90 PTX that newer GPUs compile at load time.
set(TFHOST_HAVE_CUDA OFF)
string(TOUPPER "${TFHOST_CUDA}" _tfhost_cuda)
if(NOT _tfhost_cuda MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "TFHOST_CUDA must be AUTO, ON or OFF, got '${TFHOST_CUDA}'")
endif()
if(NOT _tfhost_cuda STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "80-real;90a-real;90-virtual")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit)
  endif()
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND)
    set(TFHOST_HAVE_CUDA ON)
    message(STATUS "CUDA backend plugin: nvcc ${CMAKE_CUDA_COMPILER_VERSION}, toolkit ${CUDAToolkit_VERSION}, "
                   "architectures ${CMAKE_CUDA_ARCHITECTURES}")
  elseif(_tfhost_cuda STREQUAL "ON")
    message(FATAL_ERROR "TFHOST_CUDA=ON but no CUDA toolkit was found (nvcc: '${CMAKE_CUDA_COMPILER}'); "
                        "install it or set CMAKE_CUDA_COMPILER / CUDAToolkit_ROOT")
  else()
    message(STATUS "CUDA backend plugin: not built (no CUDA toolkit found; TFHOST_CUDA=AUTO)")
  endif()
endif()

# cuDNN 9 for the plugin's convolutions and pools (src/backends/cuda/cudnn_*):
# CMake 3.25's FindCUDAToolkit has no target for it, so an imported one,
# tfhost::cudnn, from the toolkit's folders (or CUDNN_ROOT). Only the plugin
# links it, never tfhost. Without it the plugin is built without those
# kernels (TFHOST_HAVE_CUDNN OFF) and refuses the nodes, saying why.
set(TFHOST_HAVE_CUDNN OFF)
if(TFHOST_HAVE_CUDA)
  find_path(TFHOST_CUDNN_INCLUDE_DIR NAMES cudnn_version.h
    HINTS ${CUDNN_ROOT} $ENV{CUDNN_ROOT} ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_ROOT}
    PATH_SUFFIXES include)
  find_library(TFHOST_CUDNN_LIBRARY cudnn
    HINTS ${CUDNN_ROOT} $ENV{CUDNN_ROOT} ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}
    PATH_SUFFIXES lib64 lib lib/x64)
  set(_tfhost_cudnn_version "")
  if(TFHOST_CUDNN_INCLUDE_DIR AND EXISTS "${TFHOST_CUDNN_INCLUDE_DIR}/cudnn_version.h")
    file(STRINGS "${TFHOST_CUDNN_INCLUDE_DIR}/cudnn_version.h" _tfhost_cudnn_defs
         REGEX "^#define CUDNN_(MAJOR|MINOR|PATCHLEVEL) +[0-9]+")
    foreach(_part MAJOR MINOR PATCHLEVEL)
      string(REGEX MATCH "CUDNN_${_part} +([0-9]+)" _m "${_tfhost_cudnn_defs}")
      list(APPEND _tfhost_cudnn_version "${CMAKE_MATCH_1}")
    endforeach()
    list(JOIN _tfhost_cudnn_version "." _tfhost_cudnn_version)
  endif()
  if(TFHOST_CUDNN_INCLUDE_DIR AND TFHOST_CUDNN_LIBRARY AND _tfhost_cudnn_version MATCHES "^9\\.")
    set(TFHOST_HAVE_CUDNN ON)
    if(NOT TARGET tfhost::cudnn)
      add_library(tfhost::cudnn SHARED IMPORTED)
      set_target_properties(tfhost::cudnn PROPERTIES
        IMPORTED_LOCATION "${TFHOST_CUDNN_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${TFHOST_CUDNN_INCLUDE_DIR}")
    endif()
    message(STATUS "CUDA backend plugin: cuDNN ${_tfhost_cudnn_version} (${TFHOST_CUDNN_LIBRARY}): "
                   "convolutions and pools on the GPU")
  else()
    message(STATUS "CUDA backend plugin: built without cuDNN 9 (found: header "
                   "'${TFHOST_CUDNN_INCLUDE_DIR}', library '${TFHOST_CUDNN_LIBRARY}', version "
                   "'${_tfhost_cudnn_version}'); convolutions and pools stay on the CPU. Set CUDNN_ROOT to point at one")
  endif()
endif()
