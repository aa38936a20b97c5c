# tests/cli/tests.cmake -- the gpusort program's tests (included by tests/CMakeLists.txt).
#
# cli_test.sh drives the built gpusort through every binary-mode command and error path and
# judges the results with clitool, an independent checker that shares no code with gpusort.
# It prints "N passed, N failed" and exits non-zero on a failure (about 10-20 s on 2 cores).
if(TARGET gpusort_cli)
  add_executable(gpusort_clitool ${CMAKE_CURRENT_LIST_DIR}/clitool.c)
  target_compile_options(gpusort_clitool PRIVATE -Wall -Wextra)
  target_link_libraries(gpusort_clitool PRIVATE m)
  add_test(NAME cli COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_test.sh
           $<TARGET_FILE:gpusort_cli> $<TARGET_FILE:gpusort_clitool>)
  set_tests_properties(cli PROPERTIES TIMEOUT 600 LABELS cli)
endif()

# topk_test.sh: `gpusort topk` against the head of the stable sort, and its error paths.
if(TARGET gpusort_cli)
  add_test(NAME cli_topk COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/topk_test.sh
           $<TARGET_FILE:gpusort_cli>)
  set_tests_properties(cli_topk PROPERTIES TIMEOUT 600 LABELS cli)
endif()
