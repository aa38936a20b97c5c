# tests/mpi/tests.cmake -- the distributed sort (libgpusort_mpi), included by tests/CMakeLists.txt
# when MPI was found. run_mpi.sh starts `mpirun -np P` (Open MPI: --oversubscribe, and
# --allow-run-as-root as root; CI runs as root) and exits 77, skipped, when mpirun is missing.
#
#   mpi_np<P>          test_mpi on P = 1, 2, 3, 4, 7 ranks (CPU backend, 1 thread a rank; the
#                      sanitizer build leaves out 7)
#   mpi_chunked_np3    the same on 3 ranks with GPUSORT_MPI_CHUNK_BYTES=1000: the exchange runs
#                      point to point in pieces of 1000 bytes (the path of volumes over 2^31)
#   mpi_resort_np4     4 ranks with GPUSORT_MPI_MERGE=sort: the received runs combined by the
#                      context's sort (what GPU contexts do), here on the CPU
#   mpi_cli            `gpusort sort --mpi` on files, against the single-process sort
#   mpi_big            opt-in (GPUSORT_BIG_TESTS=1): 2 ranks exchanging more than 2^31 bytes
#                      each way with the default chunk (needs about 20 GiB)
if(NOT GPUSORT_HAVE_MPI)
  return()
endif()
gpusort_add_test_program(test_mpi ${CMAKE_CURRENT_LIST_DIR}/test_mpi.c ${GPUSORT_COMMON_SRC})
target_include_directories(test_mpi PRIVATE ${GPUSORT_COMMON_DIR})
target_link_libraries(test_mpi PRIVATE gpusort_mpi_static m)
if(GPUSORT_HAVE_CUDA)    # --backend cuda --device-data (2 ranks on the device; gpu_check-style runs)
  target_compile_definitions(test_mpi PRIVATE GPUSORT_HAVE_CUDA)
  target_link_libraries(test_mpi PRIVATE gpusort_test_cuda_mem)
endif()
gpusort_add_test_program(test_mpi_big ${CMAKE_CURRENT_LIST_DIR}/test_mpi_big.c ${GPUSORT_COMMON_SRC})
target_include_directories(test_mpi_big PRIVATE ${GPUSORT_COMMON_DIR})
target_link_libraries(test_mpi_big PRIVATE gpusort_mpi_static m)

set(_run ${CMAKE_CURRENT_LIST_DIR}/run_mpi.sh)
# Under the sanitizers Open MPI's own allocations show as leaks; the out-of-memory test asks for
# 2^46 bytes, which ASan must answer with NULL.
set(_env "ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1")
set(_quick "")
if(GPUSORT_SANITIZE)
  set(_quick --quick)
endif()
# Under the sanitizers 7 ranks on CI's 2 cores take a minute: the Release suite runs them.
set(_nps 1 2 3 4 7)
if(GPUSORT_SANITIZE)
  set(_nps 1 2 3 4)
endif()
foreach(np ${_nps})
  add_test(NAME mpi_np${np} COMMAND bash ${_run} ${np} $<TARGET_FILE:test_mpi> --seed 1 ${_quick})
  set_tests_properties(mpi_np${np} PROPERTIES TIMEOUT 300 LABELS mpi ENVIRONMENT "${_env}")
  gpusort_skippable(mpi_np${np})
endforeach()
add_test(NAME mpi_chunked_np3 COMMAND bash ${_run} 3 $<TARGET_FILE:test_mpi> --seed 2 --quick)
set_tests_properties(mpi_chunked_np3 PROPERTIES TIMEOUT 300 LABELS mpi
                     ENVIRONMENT "${_env};GPUSORT_MPI_CHUNK_BYTES=1000")
add_test(NAME mpi_resort_np4 COMMAND bash ${_run} 4 $<TARGET_FILE:test_mpi> --seed 3 --quick)
set_tests_properties(mpi_resort_np4 PROPERTIES TIMEOUT 300 LABELS mpi
                     ENVIRONMENT "${_env};GPUSORT_MPI_MERGE=sort")
add_test(NAME mpi_big COMMAND bash ${_run} 2 $<TARGET_FILE:test_mpi_big>)
set_tests_properties(mpi_big PROPERTIES TIMEOUT 1800 LABELS "mpi;big" ENVIRONMENT "${_env}")
if(TARGET gpusort_cli)
  add_test(NAME mpi_cli COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_mpi.sh $<TARGET_FILE:gpusort_cli>)
  set_tests_properties(mpi_cli PROPERTIES TIMEOUT 300 LABELS mpi ENVIRONMENT "${_env}")
endif()
gpusort_skippable(mpi_chunked_np3 mpi_resort_np4 mpi_big)
if(TARGET gpusort_cli)
  gpusort_skippable(mpi_cli)
endif()
