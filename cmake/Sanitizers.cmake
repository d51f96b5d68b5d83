# Sanitized builds (docs/testing.md, "Sanitizers"): -DWASMGPU_SANITIZE=address,undefined
# instruments the library, the CLI, the tests and the bench (the wasm kernels
# are not host code and stay as they are). CMakePresets.json's `asan` preset
# sets it with clang-19.
#
# The sanitizer runtimes are shared libraries (-shared-libsan), so that
# libwasmgpu.so, which the install and package tests link into programs built
# without sanitizers, carries its runtime with it; its directory goes into
# every binary's run path.
set(WASMGPU_SANITIZE "" CACHE STRING "Sanitizers for host code, e.g. address,undefined (clang only)")

# Tests' time limits (wasmgpu_test_timeout, cmake/TestEnvironment.cmake) are
# written for a normal build; sanitized host code runs several times slower
# (docs/testing.md, "Sanitizers", has the measured times), so they are scaled.
set(WASMGPU_TEST_TIMEOUT_SCALE 1)

if(WASMGPU_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "WASMGPU_SANITIZE needs clang; configure with CMAKE_CXX_COMPILER=clang++-19 (the asan preset does)")
  endif()
  execute_process(COMMAND "${CMAKE_CXX_COMPILER}" -print-file-name=libclang_rt.asan-x86_64.so
                  OUTPUT_VARIABLE asan_runtime OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT IS_ABSOLUTE "${asan_runtime}" OR NOT EXISTS "${asan_runtime}")
    message(FATAL_ERROR "no sanitizer runtime for ${CMAKE_CXX_COMPILER}: install libclang-rt-19-dev")
  endif()
  # The runtime itself: python.pytest preloads it (python/CMakeLists.txt).
  set(WASMGPU_SANITIZER_RUNTIME "${asan_runtime}")
  get_filename_component(sanitizer_runtime_dir "${asan_runtime}" DIRECTORY)
  set(flags -fsanitize=${WASMGPU_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer -shared-libsan)
  add_compile_options(${flags})
  add_link_options(${flags} "LINKER:-rpath,${sanitizer_runtime_dir}")
  set(WASMGPU_TEST_TIMEOUT_SCALE 5)
endif()
