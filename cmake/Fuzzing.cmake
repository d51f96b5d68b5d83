# libFuzzer targets (docs/testing.md, "Fuzzing").
#
# Each target is one `<stage>/<name>_fuzz.cpp` beside the code it exercises,
# defining LLVMFuzzerTestOneInput. It is built twice:
#   - always, with the tests: `fuzz_replay_<name>`, the target with a plain main
#     (tests/fuzz/replay_main.cpp) that runs it once on every file it is given,
#     so that CTest replays the seed corpora and the kept regression inputs
#     deterministically, without random fuzzing;
#   - with -DWASMGPU_FUZZ=ON (clang only): `fuzz_<name>`, linked with libFuzzer.
#     The option instruments the whole build for coverage and with ASan+UBSan,
#     so use a build directory of its own (scripts/fuzz.sh makes one).
option(WASMGPU_FUZZ "Build libFuzzer targets, instrumenting everything with ASan+UBSan (clang only)" OFF)

if(WASMGPU_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "WASMGPU_FUZZ needs clang (libFuzzer); configure with CMAKE_CXX_COMPILER=clang++-19")
  endif()
  # A report is a failure: UBSan stops at the first one, as ASan does.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

add_custom_target(fuzz_targets)

# wasmgpu_fuzz_target(<name> <source> <libraries>...)
function(wasmgpu_fuzz_target name source)
  if(WASMGPU_BUILD_TESTS)
    add_executable(fuzz_replay_${name} "${source}" "${PROJECT_SOURCE_DIR}/tests/fuzz/replay_main.cpp")
    target_link_libraries(fuzz_replay_${name} PRIVATE ${ARGN})
    add_dependencies(fuzz_targets fuzz_replay_${name})
  endif()
  if(WASMGPU_FUZZ)
    add_executable(fuzz_${name} "${source}")
    target_link_libraries(fuzz_${name} PRIVATE ${ARGN})
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
    add_dependencies(fuzz_targets fuzz_${name})
  endif()
endfunction()
