# The environment every test runs in: validation on, the launch-shape
# autotuner off (launches get the device heuristic's size, deterministically;
# the autotuner's own tests turn it on), and the on-disk caches
# (docs/caching.md) in the build tree, so that tests never read or write the
# user's cache. The cache persists between test runs of one build tree;
# tests that need a cold cache make their own directory or turn it off.
set(WASMGPU_TEST_CACHE_DIR "${PROJECT_BINARY_DIR}/test-cache")
set(WASMGPU_TEST_ENVIRONMENT "WASMGPU_VALIDATION=1" "WASMGPU_AUTOTUNE=0" "WASMGPU_CACHE_DIR=${WASMGPU_TEST_CACHE_DIR}")

# gtest_discover_tests for a test executable, with WASMGPU_TEST_ENVIRONMENT
# plus a long launch timeout (lavapipe compiles pipelines inside the first
# launch). gtest_discover_tests splits list-valued PROPERTIES into separate
# arguments, so the environment is set by an include file that ctest reads
# after the discovered tests, using the test list discovery leaves in
# <target>_TESTS.
function(wasmgpu_discover_tests target)
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 60)
  set(environment ${WASMGPU_TEST_ENVIRONMENT} "WASMGPU_LAUNCH_TIMEOUT=600")
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_environment.cmake")
  file(WRITE "${include_file}"
       "set_tests_properties(\${${target}_TESTS} PROPERTIES ENVIRONMENT \"${environment}\")\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()

# A test's time limit, TIMEOUT seconds as written for a normal build, times
# WASMGPU_TEST_TIMEOUT_SCALE (cmake/Sanitizers.cmake: a sanitized build's host
# code runs several times slower). The test itself stays the same.
function(wasmgpu_test_timeout seconds)
  math(EXPR scaled "${seconds} * ${WASMGPU_TEST_TIMEOUT_SCALE}")
  set_tests_properties(${ARGN} PROPERTIES TIMEOUT ${scaled})
endfunction()
