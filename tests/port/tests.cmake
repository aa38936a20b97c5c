# tests/port/tests.cmake -- issue 14's tests: device memory from the caller, the scratch query,
# the capability check, the per-architecture tuning rows, and the multi-architecture build.
#
#   test_alloc_api         the new calls' checks and queries on every backend (no device needed)
#   test_alloc_cuda        workspace of the queried size, counting / failing allocator (CUDA)
#   test_alloc_knob        GPUSORT_TEST_FAIL_DEVICE_ALLOC=k for every k of a call (CUDA)
#   test_alloc_tuning      every tuning row forced on the GPU at hand (CUDA)
#   cuda_multiarch_compile radix.cu (the largest kernel file, the one with per-architecture tile
#                          shapes) compiled for one architecture of each code generation the
#                          sources tell apart other than the build's own sm_90 (sm_75: no
#                          programmatic dependent launch; sm_120, and its PTX), so a build of one
#                          architecture (CI) still proves the others compile; the default
#                          GPUSORT_CUDA_ARCHS list builds all
# The CUDA parts exit 77 (skipped) without a CUDA device.

gpusort_add_core_test_program(test_alloc ${CMAKE_CURRENT_LIST_DIR}/test_alloc.c)
foreach(part api cuda knob tuning)
  add_test(NAME test_alloc_${part} COMMAND test_alloc --part ${part})
  set_tests_properties(test_alloc_${part} PROPERTIES TIMEOUT 900 LABELS "core;port")
  gpusort_skippable(test_alloc_${part})
endforeach()
set_tests_properties(test_alloc_cuda test_alloc_knob test_alloc_tuning PROPERTIES
                     LABELS "core;port;cuda")

if(GPUSORT_HAVE_CUDA)
  set(_gencode "")
  foreach(_a 75 120)
    list(APPEND _gencode "--generate-code=arch=compute_${_a},code=sm_${_a}")
  endforeach()
  list(APPEND _gencode "--generate-code=arch=compute_120,code=compute_120")
  add_test(NAME cuda_multiarch_compile
           COMMAND ${CMAKE_CUDA_COMPILER} -std=c++17 -O3 --expt-relaxed-constexpr
                   -DGPUSORT_HAVE_CUDA -D_GNU_SOURCE -I${PROJECT_SOURCE_DIR}/include
                   -I${PROJECT_SOURCE_DIR}/src ${_gencode} --threads 2
                   -c ${PROJECT_SOURCE_DIR}/src/cuda/radix.cu
                   -o ${CMAKE_CURRENT_BINARY_DIR}/radix_multiarch.o)
  set_tests_properties(cuda_multiarch_compile PROPERTIES TIMEOUT 900 LABELS "build")
endif()
