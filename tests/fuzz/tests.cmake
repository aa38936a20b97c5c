# tests/fuzz/ -- fuzz targets (one per file, fuzz_<name>.c; see tests/fuzz/README.md).
#
# With -DGPUSORT_FUZZ=ON (clang only) each target is a libFuzzer program: the whole tree is then
# compiled with -fsanitize=fuzzer-no-link,address,undefined (top-level CMakeLists.txt) and
#   build-fuzz/tests/fuzz_text_args -max_total_time=60 tests/fuzz/corpus/text_args
# fuzzes. Otherwise (gcc, CI) the same file is linked with replay.c's main(), and ctest runs
#   fuzz_<name>   the committed corpus tests/fuzz/corpus/<name>/ and 2000 random mutations of
#                 it (seed printed; --seed S replays)
# With GPUSORT_FUZZ=ON ctest runs the corpus through libFuzzer (-runs=0 replays and stops).
set(GPUSORT_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})
set(GPUSORT_FUZZ_CLI_TARGETS text_args text_lines bin_args records diff)  # call tools/ code
set(GPUSORT_FUZZ_LIB_TARGETS api)                                 # the library API only

foreach(t ${GPUSORT_FUZZ_CLI_TARGETS} ${GPUSORT_FUZZ_LIB_TARGETS})
  if(NOT EXISTS ${GPUSORT_FUZZ_DIR}/fuzz_${t}.c)
    continue()
  endif()
  if(t IN_LIST GPUSORT_FUZZ_CLI_TARGETS AND NOT TARGET gpusort_cli_lib)
    continue()
  endif()
  set(src ${GPUSORT_FUZZ_DIR}/fuzz_${t}.c)
  if(NOT GPUSORT_FUZZ)
    list(APPEND src ${GPUSORT_FUZZ_DIR}/replay.c)   # its random generator is common/datagen.c's
    if(NOT t IN_LIST GPUSORT_FUZZ_CLI_TARGETS)      # (gpusort_cli_lib holds datagen.c already)
      list(APPEND src ${PROJECT_SOURCE_DIR}/common/datagen.c)
    endif()
  endif()
  add_executable(fuzz_${t} ${src})
  target_include_directories(fuzz_${t} PRIVATE ${GPUSORT_FUZZ_DIR} ${PROJECT_SOURCE_DIR}/src
                             ${PROJECT_SOURCE_DIR}/common)
  target_compile_definitions(fuzz_${t} PRIVATE _GNU_SOURCE)
  target_compile_options(fuzz_${t} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  if(t IN_LIST GPUSORT_FUZZ_CLI_TARGETS)
    target_link_libraries(fuzz_${t} PRIVATE gpusort_cli_lib)
  else()
    target_link_libraries(fuzz_${t} PRIVATE gpusort_static)
  endif()
  if(GPUSORT_HAVE_CUDA)
    set_target_properties(fuzz_${t} PROPERTIES LINKER_LANGUAGE CUDA)
  endif()
  if(GPUSORT_FUZZ)
    target_link_options(fuzz_${t} PRIVATE -fsanitize=fuzzer)
    add_test(NAME fuzz_${t} COMMAND fuzz_${t} -runs=0 ${GPUSORT_FUZZ_DIR}/corpus/${t})
  else()
    add_test(NAME fuzz_${t} COMMAND fuzz_${t} ${GPUSORT_FUZZ_DIR}/corpus/${t})
  endif()
  # The CLI targets leave what a refused command line had allocated (cli_fail longjmps back
  # into the target: tests/fuzz/fuzz.h), so LeakSanitizer is off for them; the fault tests
  # (tests/fault/) check the program's leaks instead, process by process.
  if(t IN_LIST GPUSORT_FUZZ_CLI_TARGETS)
    set_tests_properties(fuzz_${t} PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0;LC_ALL=C")
  endif()
  set_tests_properties(fuzz_${t} PROPERTIES TIMEOUT 300 LABELS fuzz)
endforeach()
