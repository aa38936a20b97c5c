# tests/install/tests.cmake -- the installed library as a user meets it (included by
# tests/CMakeLists.txt).
#
# install_test.sh runs `cmake --install` of this build into a temporary prefix, then builds the C
# example of the top-level README.md (extracted from it, so the README cannot drift from the API)
# twice, with pkg-config and with CMake's find_package, runs both, and checks the shared
# library's SONAME against the ABI policy of include/gpusort.h.
# In a sanitizer build the installed library is instrumented: the example is built with the same
# flags, as a user of such a build would.
set(GPUSORT_INSTALL_TEST_CFLAGS "")
if(GPUSORT_SANITIZE)
  set(GPUSORT_INSTALL_TEST_CFLAGS "-fsanitize=address,undefined")
endif()
add_test(NAME install COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/install_test.sh
         ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_VERSION}
         "${GPUSORT_INSTALL_TEST_CFLAGS}")
set_tests_properties(install PROPERTIES TIMEOUT 300 LABELS install
                     SKIP_RETURN_CODE ${GPUSORT_TEST_SKIP_CODE})
