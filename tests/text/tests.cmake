# tests/text/ -- string/record sort of the library, and the GNU-sort-compatible text CLI.
#   test_strings     library string and record sort vs. a reference, every backend present
#   text_cli         tests/text/run_tests.sh: differential tests of `gpusort` against
#                    `LC_ALL=C sort`, the external (spilling) path, cleanup after SIGTERM
#   text_locale      tests/text/locale_tests.sh: the same against `sort` in each installed
#                    locale (scripts/setup.sh generates them), -h/-V/-M/-R; 77 (skipped)
#                    when no locale but C is installed
gpusort_add_test_program(test_strings ${CMAKE_CURRENT_LIST_DIR}/test_strings.c)
add_test(NAME text_strings COMMAND test_strings)
if(TARGET gpusort_cli)
  add_test(NAME text_cli COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_tests.sh $<TARGET_FILE:gpusort_cli>)
  # ~900 runs of gpusort: 15 s on a 2-core machine without a GPU, several minutes where every
  # run starts CUDA (about 0.3-0.5 s each) beside other tests.
  set_tests_properties(text_cli PROPERTIES TIMEOUT 900)
  add_test(NAME text_locale COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/locale_tests.sh $<TARGET_FILE:gpusort_cli>)
  # ~1000 runs of each program: about 1.5 min on a 2-core machine (GNU sort's startup in a
  # locale dominates); more where every gpusort run starts CUDA.
  set_tests_properties(text_locale PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77)
endif()
