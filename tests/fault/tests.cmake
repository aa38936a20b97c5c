# tests/fault/ -- fault injection and concurrency (tests/fault/README.md):
#   fault_alloc_<backend>  every host allocation of every library call fails in turn
#                          (test_fault_alloc.c; src/alloc.c's hook)
#   fault_cli              the program under failing allocations, full disks, files over
#                          RLIMIT_FSIZE and SIGKILL during `-o INPUT` (cli_fault.sh)
#   threads_<backend>      many threads, one context each, and the thread-safe queries at once
#                          (test_threads.c); the TSan build (GPUSORT_TSAN=ON) is where they count
gpusort_add_core_test_program(test_fault_alloc ${CMAKE_CURRENT_LIST_DIR}/test_fault_alloc.c)
foreach(b cpu opencl)
  add_test(NAME fault_alloc_${b} COMMAND test_fault_alloc --backend ${b})
  set_tests_properties(fault_alloc_${b} PROPERTIES TIMEOUT 600 LABELS fault)
  gpusort_skippable(fault_alloc_${b})
endforeach()
if(TARGET gpusort_cli)
  add_test(NAME fault_cli COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_fault.sh $<TARGET_FILE:gpusort_cli>)
  set_tests_properties(fault_cli PROPERTIES TIMEOUT 600 LABELS fault)
endif()
gpusort_add_core_test_program(test_threads ${CMAKE_CURRENT_LIST_DIR}/test_threads.c)
foreach(b cpu opencl cuda)
  if(b STREQUAL "opencl")   # PoCL 3.1 can abort on a race of its own: once more then (pocl_retry.sh)
    add_test(NAME threads_${b} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/pocl_retry.sh
             $<TARGET_FILE:test_threads> --backend ${b})
  else()
    add_test(NAME threads_${b} COMMAND test_threads --backend ${b})
  endif()
  # use_sigaltstack=0: PoCL's LLVM gives a thread that first touches OpenCL an alternate signal
  # stack from malloc, which ASan then fails to unmap when the thread ends (a CHECK failure in
  # ASan, not a defect here); leaks stay checked.
  set_tests_properties(threads_${b} PROPERTIES TIMEOUT 900 LABELS "threads;fault"
                       ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1:use_sigaltstack=0")
  gpusort_skippable(threads_${b})
endforeach()
# Several processes sharing one device (the GPU machine; skipped where there is none).
add_test(NAME threads_cuda_processes COMMAND test_threads --backend cuda --processes 4 --workers 4)
set_tests_properties(threads_cuda_processes PROPERTIES TIMEOUT 900 LABELS "threads;fault")
gpusort_skippable(threads_cuda_processes)
