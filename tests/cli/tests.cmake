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
  set_tests_properties(cli PROPERTIES TIMEOUT 300 LABELS cli)
endif()
