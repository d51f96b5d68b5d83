# wasmgpu_add_kernel(<target> SOURCES <file>... [OPTIONS <flag>...] [OUTPUT <file.wasm>] [DEPENDS <file>...])
#
# Builds a wasm kernel module from C and C++ sources with `wasmgpu cc`
# (clang-19, wasm-ld-19 and the kernels' libc; `wasmgpu cc --help`), as a
# target <target> of ALL. Each source is compiled on its own (rebuilt when it
# or a header it includes changes), then the objects are linked.
#   SOURCES  C (.c) and C++ (.cc, .cpp, .cxx) files, relative to the current source directory
#   OPTIONS  flags for `wasmgpu cc`, given to every compile and to the link:
#            -O3, -DNAME=1, -matomics, -Wall, -Wl,-z,stack-size=1048576 ... (default -O2)
#   OUTPUT   the module (default: <target>.wasm in the current binary directory)
#   DEPENDS  other files whose change rebuilds the kernel
# The target's property WASMGPU_KERNEL_FILE is the module's path:
#   target_compile_definitions(app PRIVATE KERNEL="$<TARGET_PROPERTY:saxpy,WASMGPU_KERNEL_FILE>")
#
# Installed with the CMake package (find_package(wasmgpu) loads it);
# wasmgpu_EXECUTABLE is the `wasmgpu` tool it runs.
function(wasmgpu_add_kernel target)
  cmake_parse_arguments(PARSE_ARGV 1 K "" "OUTPUT" "SOURCES;OPTIONS;DEPENDS")
  if(K_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "wasmgpu_add_kernel(${target}): unknown arguments ${K_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT K_SOURCES)
    message(FATAL_ERROR "wasmgpu_add_kernel(${target}): no SOURCES")
  endif()
  if(NOT wasmgpu_EXECUTABLE)
    message(FATAL_ERROR "wasmgpu_add_kernel(${target}): wasmgpu_EXECUTABLE is not set (find_package(wasmgpu) sets it)")
  endif()
  if(NOT K_OUTPUT)
    set(K_OUTPUT "${target}.wasm")
  endif()
  get_filename_component(output "${K_OUTPUT}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  set(object_dir "${CMAKE_CURRENT_BINARY_DIR}/${target}.kernel")
  set(objects)
  set(index 0)
  foreach(source IN LISTS K_SOURCES)
    get_filename_component(source "${source}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(name "${source}" NAME)
    # The index keeps a.c and sub/a.c apart.
    set(object "${object_dir}/${index}-${name}.o")
    add_custom_command(
      OUTPUT "${object}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${object_dir}"
      COMMAND "${wasmgpu_EXECUTABLE}" cc -c "${source}" -o "${object}" ${K_OPTIONS} -MD -MF "${object}.d"
      DEPENDS "${source}" ${K_DEPENDS}
      DEPFILE "${object}.d"
      COMMENT "wasmgpu cc: ${target}: ${name}"
      VERBATIM COMMAND_EXPAND_LISTS)
    list(APPEND objects "${object}")
    math(EXPR index "${index} + 1")
  endforeach()
  add_custom_command(
    OUTPUT "${output}"
    COMMAND "${wasmgpu_EXECUTABLE}" cc ${objects} -o "${output}" ${K_OPTIONS}
    DEPENDS ${objects}
    COMMENT "wasmgpu cc: linking ${target}"
    VERBATIM COMMAND_EXPAND_LISTS)
  add_custom_target(${target} ALL DEPENDS "${output}")
  set_target_properties(${target} PROPERTIES WASMGPU_KERNEL_FILE "${output}")
endfunction()
