# tests/core.cmake -- the core tests: the API contract, the cross-backend test, the big test.
# Included by tests/CMakeLists.txt (which defines gpusort_add_test_program and gpusort_skippable).
#
#   test_api                       the API contract; no device needed
#   test_backends_<backend>_<type> the cross-backend test, one ctest test per backend and key type
#                                  (so `ctest -j2` spreads them and a hang costs one timeout);
#                                  backends without a device exit 77 and show as skipped
#   test_big_<backend>             n = 2^32 + 1234 keys: skipped (exit 77) unless
#                                  GPUSORT_BIG_TESTS=1; label "big" 
#
# common/ (data generators and the independent reference) is compiled into each test program.

set(GPUSORT_COMMON_DIR ${PROJECT_SOURCE_DIR}/common)
set(GPUSORT_COMMON_SRC ${GPUSORT_COMMON_DIR}/datagen.c ${GPUSORT_COMMON_DIR}/verify.c)

# Device memory for the tests (tests/cuda_mem.h): its own small library, because
# gpusort_add_test_program's warning flags are for the C compiler and nvcc rejects them.
if(GPUSORT_HAVE_CUDA)
  add_library(gpusort_test_cuda_mem STATIC ${CMAKE_CURRENT_SOURCE_DIR}/cuda_mem.cu)
  target_include_directories(gpusort_test_cuda_mem PRIVATE ${PROJECT_SOURCE_DIR}/include
                             ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(gpusort_test_cuda_mem PUBLIC CUDA::cudart_static)
endif()

# Test programs that use common/ and, with CUDA, device memory.
function(gpusort_add_core_test_program name)
  gpusort_add_test_program(${name} ${ARGN} ${GPUSORT_COMMON_SRC})
  target_include_directories(${name} PRIVATE ${GPUSORT_COMMON_DIR})
  target_compile_definitions(${name} PRIVATE
    $<$<BOOL:${GPUSORT_HAVE_CUDA}>:GPUSORT_HAVE_CUDA>
    $<$<BOOL:${GPUSORT_HAVE_OPENCL}>:GPUSORT_HAVE_OPENCL>)
  target_link_libraries(${name} PRIVATE m)
  if(GPUSORT_HAVE_CUDA)
    target_link_libraries(${name} PRIVATE gpusort_test_cuda_mem)
  endif()
  if(GPUSORT_HAVE_OPENCL)
    # cl_mem buffers on a caller's queue (tests/cl_mem.h)
    target_sources(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cl_mem.c)
    target_compile_definitions(${name} PRIVATE CL_TARGET_OPENCL_VERSION=120)
    target_link_libraries(${name} PRIVATE OpenCL::OpenCL)
  endif()
endfunction()

# ---- the API contract ----
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/test_api.c)
  gpusort_add_core_test_program(test_api test_api.c)
  add_test(NAME test_api COMMAND test_api)
  set_tests_properties(test_api PROPERTIES TIMEOUT 60 LABELS "core")
endif()

# ---- the cross-backend test ----
# Per-test timeouts: CI has 2 cores. The CPU backend runs every size up to 2^20 + 1; PoCL on a
# CPU runs --quick with sizes up to 2^16 + 1 (plus 2^20 for a few distributions is too slow
# there); CUDA runs the full sweep, host and device pointers.
gpusort_add_core_test_program(test_backends test_backends.c)
set(GPUSORT_TEST_TYPES u32 i32 f32 u64 i64 f64)
# Under the sanitizers (5-10x slower) the CPU runs --quick: every size up to 2^16 + 1 and 2^20
# (for the large-n code paths) with fewer distributions above 4097.
set(GPUSORT_TEST_CPU_ARGS "")
if(GPUSORT_SANITIZE)
  set(GPUSORT_TEST_CPU_ARGS --quick)
endif()
foreach(type ${GPUSORT_TEST_TYPES})
  add_test(NAME test_backends_cpu_${type}
           COMMAND test_backends --backend cpu ${GPUSORT_TEST_CPU_ARGS} --filter ${type}/)
  set_tests_properties(test_backends_cpu_${type} PROPERTIES TIMEOUT 900 LABELS "core;cpu")
  add_test(NAME test_backends_opencl_${type}
           COMMAND test_backends --backend opencl --quick --max-n 65537 --filter ${type}/)
  set_tests_properties(test_backends_opencl_${type} PROPERTIES TIMEOUT 900 LABELS "core;opencl")
  add_test(NAME test_backends_cuda_${type}
           COMMAND test_backends --backend cuda --algorithm all --filter ${type}/)
  set_tests_properties(test_backends_cuda_${type} PROPERTIES TIMEOUT 900 LABELS "core;cuda")
  gpusort_skippable(test_backends_cpu_${type} test_backends_opencl_${type}
                    test_backends_cuda_${type})
endforeach()
# The CUDA radix sort at the sizes around its tile boundaries, every type and distribution: the
# single-block kernel up to one tile (2304 keys for 64-bit pairs in the compact shapes .. 7680
# for 32-bit keys in the shapes of n <= 2^21: radix.cu's Tune), the passes from one key more, a
# few tiles (4 tiles make a portion multiple), and the larger Hopper tiles above 2^21 keys.
add_test(NAME test_backends_cuda_radix_tiles
         COMMAND test_backends --backend cuda --algorithm radix --sizes
                 2303,2304,2305,3071,3072,3073,4607,4608,4609,5375,5376,5377,6143,6144,6145,7679,7680,7681,9215,9216,9217,10751,10752,10753,15361,18433,21505,30721,36865,43009,100003,2097153,2107393)
set_tests_properties(test_backends_cuda_radix_tiles PROPERTIES TIMEOUT 900 LABELS "core;cuda")
gpusort_skippable(test_backends_cuda_radix_tiles)
# The radix sort's MSD-first path (u64 and i64 keys with values, argsorts with u64 indices
# too; the knob runs it from one tile on, not only from 2^27 keys; f64 stays LSD), at the sizes
# just above one tile (6144 keys in the shapes of 64-bit keys with values) and a few tiles, its
# fallback when a (top, second) bucket overflows the bucket sort (the top2 and top2low
# distributions at 2^22: 8 and 7 LSD passes), and the histogram's copies layout (the column
# layout is the default wherever shared memory allows).
add_test(NAME test_backends_cuda_radix_msd
         COMMAND test_backends --backend cuda --algorithm radix --quick --filter 64/)
add_test(NAME test_backends_cuda_radix_msd_tiles
         COMMAND test_backends --backend cuda --algorithm radix --sizes 6145,6146,12289,100003
                 --filter 64/)
add_test(NAME test_backends_cuda_radix_msd_fallback
         COMMAND test_backends --backend cuda --algorithm radix --sizes 4194305 --filter /top2)
set_tests_properties(test_backends_cuda_radix_msd test_backends_cuda_radix_msd_tiles
                     test_backends_cuda_radix_msd_fallback PROPERTIES
                     ENVIRONMENT "GPUSORT_TEST_RADIX_HYBRID=1" TIMEOUT 900 LABELS "core;cuda")
# At 1 the knob sorts sub-buckets of small sorts by warps; at 2 always by blocks.
add_test(NAME test_backends_cuda_radix_msd_blocks
         COMMAND test_backends --backend cuda --algorithm radix --quick --filter 64/)
set_tests_properties(test_backends_cuda_radix_msd_blocks PROPERTIES
                     ENVIRONMENT "GPUSORT_TEST_RADIX_HYBRID=2" TIMEOUT 900 LABELS "core;cuda")
add_test(NAME test_backends_cuda_radix_hist_copies
         COMMAND test_backends --backend cuda --algorithm radix --quick)
set_tests_properties(test_backends_cuda_radix_hist_copies PROPERTIES
                     ENVIRONMENT "GPUSORT_TEST_RADIX_HIST=0" TIMEOUT 900 LABELS "core;cuda")
# Argsorts of 32-bit keys with u64 indices above 2^21 keys: packed (the default), and with
# narrow indices (knob 0). Every 32-bit key type, every mode (the argsort rows take the path).
add_test(NAME test_backends_cuda_radix_pack
         COMMAND test_backends --backend cuda --algorithm radix --sizes 2097153,3000017 --quick
                 --filter 32/)
add_test(NAME test_backends_cuda_radix_pack_off
         COMMAND test_backends --backend cuda --algorithm radix --sizes 2097153 --quick
                 --filter 32/)
set_tests_properties(test_backends_cuda_radix_pack PROPERTIES TIMEOUT 900 LABELS "core;cuda")
set_tests_properties(test_backends_cuda_radix_pack_off PROPERTIES
                     ENVIRONMENT "GPUSORT_TEST_RADIX_PACK=0" TIMEOUT 900 LABELS "core;cuda")
gpusort_skippable(test_backends_cuda_radix_msd test_backends_cuda_radix_msd_tiles
                  test_backends_cuda_radix_msd_fallback test_backends_cuda_radix_msd_blocks
                  test_backends_cuda_radix_hist_copies test_backends_cuda_radix_pack
                  test_backends_cuda_radix_pack_off)
# The same option on the CPU (so CI runs it): a few sizes, and a malformed list must exit 2.
add_test(NAME test_backends_cpu_sizes
         COMMAND test_backends --backend cpu --algorithm radix --sizes 2305,7681,9217 --filter u32/)
add_test(NAME test_backends_bad_sizes COMMAND test_backends --backend cpu --sizes 5,x)
set_tests_properties(test_backends_cpu_sizes PROPERTIES TIMEOUT 300 LABELS "core;cpu")
set_tests_properties(test_backends_bad_sizes PROPERTIES PASS_REGULAR_EXPRESSION "bad --sizes list 5,x" LABELS "core;cpu")
# OpenCL's second algorithm, bitonic (AUTO above runs radix), host pointers.
add_test(NAME test_backends_opencl_bitonic
         COMMAND test_backends --backend opencl --algorithm bitonic --quick --max-n 65537
                 --no-cl-mem)
set_tests_properties(test_backends_opencl_bitonic PROPERTIES TIMEOUT 900 LABELS "core;opencl")
gpusort_skippable(test_backends_opencl_bitonic)
# The OpenCL radix sort with 32 work-groups per compute unit: on a 2-core PoCL device the sorts
# then have more than 16 work-groups per pass, so the 256-work-group digit scan (radix_scan) runs,
# which the default (radix_scan_small below 17 groups) never reaches there.
add_test(NAME test_backends_opencl_radix_wide
         COMMAND test_backends --backend opencl --algorithm radix --quick --max-n 1048577
                 --filter u32/ --no-cl-mem)
set_tests_properties(test_backends_opencl_radix_wide PROPERTIES TIMEOUT 900 LABELS "core;opencl"
                     ENVIRONMENT "GPUSORT_OPENCL_RADIX_GROUPS_PER_CU=32")
gpusort_skippable(test_backends_opencl_radix_wide)
# A device without cl_khr_fp64 (hidden by GPUSORT_OPENCL_NO_FP64=1): f32 sums through the
# float-float kernels, f64 answered "unsupported" (counted as skipped, visibly).
add_test(NAME test_backends_opencl_no_fp64
         COMMAND test_backends --backend opencl --quick --max-n 65537 --filter /special --no-cl-mem)
set_tests_properties(test_backends_opencl_no_fp64 PROPERTIES TIMEOUT 900 LABELS "core;opencl"
                     ENVIRONMENT "GPUSORT_OPENCL_NO_FP64=1")
gpusort_skippable(test_backends_opencl_no_fp64)
# Every named algorithm on the CPU (those it lacks must answer "unsupported", reported visibly).
# (Under the sanitizers, sizes to 4097 only: ASan makes the 65537-key cases of every algorithm
# the longest test of CI, ~6 minutes on 2 cores, and the Release run covers them.)
if(GPUSORT_SANITIZE)
  set(GPUSORT_ALL_ALG_MAX_N 4097)
else()
  set(GPUSORT_ALL_ALG_MAX_N 65537)
endif()
add_test(NAME test_backends_cpu_all_algorithms
         COMMAND test_backends --backend cpu --algorithm all --quick
                 --max-n ${GPUSORT_ALL_ALG_MAX_N})
set_tests_properties(test_backends_cpu_all_algorithms PROPERTIES TIMEOUT 900 LABELS "core;cpu")
gpusort_skippable(test_backends_cpu_all_algorithms)

# ---- the big test (opt-in) ----
# n = 2^32 + 1234 keys (16 GiB of u32, more for the argsort): meant for the GPU machine. The
# program exits 77 ("skipped: set GPUSORT_BIG_TESTS=1 ...") unless GPUSORT_BIG_TESTS=1, so a
# normal ctest run lists these as skipped with the reason. To run them:
#   GPUSORT_BIG_TESTS=1 ctest --test-dir build -L big --output-on-failure
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/test_big.c)
  gpusort_add_core_test_program(test_big test_big.c)
  foreach(backend cpu cuda opencl)
    add_test(NAME test_big_${backend} COMMAND test_big --backend ${backend})
    set_tests_properties(test_big_${backend} PROPERTIES LABELS "big" TIMEOUT 3600)
    gpusort_skippable(test_big_${backend})
  endforeach()
endif()

# ---- top-k (gpusort_topk, gpusort_topk_batch) against the sorted order, per backend ----
# OpenCL has no top-k kernel yet: its host data goes through the CPU backend's (the core's
# fallback), which this test checks too; under the sanitizers and on PoCL, --quick.
gpusort_add_core_test_program(test_topk test_topk.c)
set(GPUSORT_TOPK_CPU_ARGS "")
if(GPUSORT_SANITIZE)
  set(GPUSORT_TOPK_CPU_ARGS --quick --max-n 65537)
endif()
add_test(NAME test_topk_cpu COMMAND test_topk --backend cpu ${GPUSORT_TOPK_CPU_ARGS})
add_test(NAME test_topk_opencl COMMAND test_topk --backend opencl --quick --max-n 65537)
add_test(NAME test_topk_cuda COMMAND test_topk --backend cuda)
set_tests_properties(test_topk_cpu test_topk_opencl test_topk_cuda PROPERTIES TIMEOUT 900
                     LABELS "core")
gpusort_skippable(test_topk_cpu test_topk_opencl test_topk_cuda)

# ---- gpusort__sort_stream and the host-data pipeline (src/hoststream.c, src/hostdata.c) ----
# Memory callbacks that check the contract, knobs that make pieces, runs and chunks small,
# failing callbacks; per backend (the CPU takes the memory path; OpenCL, here PoCL, runs
# hostdata.c's pipeline and its runs + host merge; CUDA also its chunks + device merge).
gpusort_add_core_test_program(test_hoststream test_hoststream.c)
foreach(backend cpu opencl cuda)
  add_test(NAME test_hoststream_${backend} COMMAND test_hoststream --backend ${backend})
  set_tests_properties(test_hoststream_${backend} PROPERTIES TIMEOUT 600 LABELS "core;${backend}")
  gpusort_skippable(test_hoststream_${backend})
endforeach()
# CUDA with the radix sort named: the small sizes (AUTO gives them to the CPU) on the device too.
add_test(NAME test_hoststream_cuda_radix COMMAND test_hoststream --backend cuda --algorithm radix)
set_tests_properties(test_hoststream_cuda_radix PROPERTIES TIMEOUT 600 LABELS "core;cuda")
gpusort_skippable(test_hoststream_cuda_radix)
# Host arrays through the pipeline with small pieces, few threads and runs of 3000 keys
# (keys, pairs, argsort's host-made indices; f64, the widest key): the cross-backend test on
# PoCL (~5 s here; the other types take the same code path).
add_test(NAME test_backends_opencl_hostdata
         COMMAND test_backends --backend opencl --quick --no-cl-mem --max-n 20000 --filter f64/)
set_tests_properties(test_backends_opencl_hostdata PROPERTIES TIMEOUT 900 LABELS "core;opencl"
                     ENVIRONMENT "GPUSORT_OPENCL_HOST_RUN_KEYS=3000;GPUSORT_HOSTDATA_PIECE_BYTES=4000;GPUSORT_HOSTDATA_THREADS=3")
gpusort_skippable(test_backends_opencl_hostdata)

# ---- several contexts as one sequence (gpusort_multi_sort) ----
#   test_multi_cpu            3 CPU contexts, host pieces, and host allocation faults at every k
#   test_multi_cpu_one        one context (the call is the context's own sort)
#   test_multi_opencl         2 OpenCL contexts (PoCL here), host pieces
#   test_multi_cuda           the GPUs' contexts (2 sharing one GPU where there is one), host
#   test_multi_cuda_device    the same with the pieces in device memory: the count kernel, the
#                             exchange (NCCL across GPUs where it loads; peer copies otherwise)
#                             and the device merge
#   test_multi_cuda_radix     device pieces through the radix path (GPUSORT_MULTI_RADIX=1: the
#                             scatter pass, the segmented passes, the buckets merged across GPUs)
gpusort_add_core_test_program(test_multi test_multi.c)
set(GPUSORT_TEST_MULTI_ARGS "")
if(GPUSORT_SANITIZE OR GPUSORT_TSAN)
  set(GPUSORT_TEST_MULTI_ARGS --quick)
endif()
add_test(NAME test_multi_cpu COMMAND test_multi --backend cpu --contexts 3 ${GPUSORT_TEST_MULTI_ARGS})
add_test(NAME test_multi_cpu_one COMMAND test_multi --backend cpu --contexts 1 --quick)
add_test(NAME test_multi_opencl COMMAND test_multi --backend opencl --contexts 2 --quick)
add_test(NAME test_multi_cuda COMMAND test_multi --backend cuda --quick)
add_test(NAME test_multi_cuda_device COMMAND test_multi --backend cuda --device-data)
add_test(NAME test_multi_cuda_radix COMMAND test_multi --backend cuda --device-data --contexts 3)
set_tests_properties(test_multi_cuda_radix PROPERTIES ENVIRONMENT "GPUSORT_MULTI_RADIX=1")
set_tests_properties(test_multi_cpu test_multi_cpu_one PROPERTIES TIMEOUT 600 LABELS "core;cpu;multi")
set_tests_properties(test_multi_opencl PROPERTIES TIMEOUT 600 LABELS "core;opencl;multi")
set_tests_properties(test_multi_cuda test_multi_cuda_device test_multi_cuda_radix PROPERTIES
                     TIMEOUT 600 LABELS "core;cuda;multi")
gpusort_skippable(test_multi_cpu test_multi_cpu_one test_multi_opencl test_multi_cuda
                  test_multi_cuda_device test_multi_cuda_radix)
