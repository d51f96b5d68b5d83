# Compiles C kernels to wasm32 at build time with clang-19 and wasm-ld-19.
# Compiling and linking are separate steps on purpose: the clang driver runs
# binaryen's wasm-opt after linking whenever it finds it on the PATH, which
# would make the output depend on the machine.
find_program(WASMGPU_CLANG NAMES clang-19 REQUIRED)
find_program(WASMGPU_WASM_LD NAMES wasm-ld-19 REQUIRED)

set(WASMGPU_KERNEL_CFLAGS --target=wasm32 -nostdlib -ffreestanding -fno-builtin-memset -Wall -Wextra)

# wasmgpu_wasm_kernel(OUTPUT <file.wasm> SOURCE <file.c> [OPT <-O2>] [FLAGS ...])
function(wasmgpu_wasm_kernel)
  cmake_parse_arguments(K "" "OUTPUT;SOURCE;OPT" "FLAGS" ${ARGN})
  if(NOT K_OPT)
    set(K_OPT -O2)
  endif()
  get_filename_component(source "${K_SOURCE}" ABSOLUTE)
  set(object "${K_OUTPUT}.o")
  add_custom_command(
    OUTPUT "${K_OUTPUT}"
    COMMAND "${WASMGPU_CLANG}" ${WASMGPU_KERNEL_CFLAGS} ${K_OPT} ${K_FLAGS}
            -I "${PROJECT_SOURCE_DIR}/include" -c "${source}" -o "${object}"
    COMMAND "${WASMGPU_WASM_LD}" --no-entry "${object}" -o "${K_OUTPUT}"
    DEPENDS "${source}"
    IMPLICIT_DEPENDS C "${source}"
    COMMENT "wasm32 ${K_OPT}: ${K_SOURCE}"
    VERBATIM)
endfunction()
