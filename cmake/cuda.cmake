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
