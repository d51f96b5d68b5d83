# Compiles C kernels to wasm32 at build time with clang-19 and wasm-ld-19.
# Compiling and linking are separate steps on purpose: the clang driver runs
# binaryen's wasm-opt after linking whenever it finds it on the PATH, which
# would make the output depend on the machine.
find_program(WASMGPU_CLANG NAMES clang-19 REQUIRED)
find_program(WASMGPU_WASM_LD NAMES wasm-ld-19 REQUIRED)


# wasi-libc (Debian's wasi-libc package, or a wasi-sdk sysroot) gives kernels
# <string.h>, <math.h> and a wasm32 libc.a: memset, memcpy and libm link in as
# plain wasm code. Its headers come after clang's own; only the objects a
# kernel references are linked.
set(WASMGPU_WASI_SYSROOT "/usr" CACHE PATH "wasi-libc sysroot (holds include/wasm32-wasi and lib/wasm32-wasi)")
find_path(WASMGPU_WASI_INCLUDE_DIR NAMES math.h string.h
          PATHS "${WASMGPU_WASI_SYSROOT}/include/wasm32-wasi" NO_DEFAULT_PATH REQUIRED)
find_file(WASMGPU_WASI_LIBC NAMES libc.a
          PATHS "${WASMGPU_WASI_SYSROOT}/lib/wasm32-wasi" NO_DEFAULT_PATH REQUIRED)
# -D__wasi__: wasi-libc's <stdio.h> includes <wasi/api.h>, which wants it.
set(WASMGPU_KERNEL_CFLAGS --target=wasm32 -D__wasi__ -nostdlib -ffreestanding -Wall -Wextra
    -idirafter "${WASMGPU_WASI_INCLUDE_DIR}")

# The libc kernels link against: wasi-libc without exit.o, and with the
# kernel side of printf, puts, putchar, fd_write, assert and abort
# (include/wasmgpu_runtime.c) in place of wasi-libc's printf.o, puts.o,
# putchar.o, assert.o and abort.o. exit.o defines __wasm_call_dtors, and when
# wasm-ld finds it, it wraps every export in a "command" wrapper that calls
# it; kernels never exit, so leave it out. `wasmgpu cc` prepares the same
# (src/cli/command_cc.cpp).
set(WASMGPU_KERNEL_LIBC "${PROJECT_BINARY_DIR}/wasm32-libc/libc.a")
set(WASMGPU_KERNEL_RUNTIME_OBJECT "${PROJECT_BINARY_DIR}/wasm32-libc/wasmgpu_runtime.o")
add_custom_command(
  OUTPUT "${WASMGPU_KERNEL_LIBC}"
  COMMAND "${WASMGPU_CLANG}" ${WASMGPU_KERNEL_CFLAGS} -O2 -I "${PROJECT_SOURCE_DIR}/include"
          -c "${PROJECT_SOURCE_DIR}/include/wasmgpu_runtime.c" -o "${WASMGPU_KERNEL_RUNTIME_OBJECT}"
  COMMAND "${CMAKE_COMMAND}" -E copy "${WASMGPU_WASI_LIBC}" "${WASMGPU_KERNEL_LIBC}"
  COMMAND "${CMAKE_AR}" d "${WASMGPU_KERNEL_LIBC}" exit.o printf.o puts.o putchar.o assert.o abort.o
  COMMAND "${CMAKE_AR}" r "${WASMGPU_KERNEL_LIBC}" "${WASMGPU_KERNEL_RUNTIME_OBJECT}"
  DEPENDS "${WASMGPU_WASI_LIBC}" "${PROJECT_SOURCE_DIR}/include/wasmgpu_runtime.c"
          "${PROJECT_SOURCE_DIR}/include/wasmgpu.h"
  COMMENT "wasm32 libc for kernels"
  VERBATIM)
add_custom_target(wasmgpu_kernel_libc DEPENDS "${WASMGPU_KERNEL_LIBC}")

# wasmgpu_wasm_kernel(OUTPUT <file.wasm> SOURCE <file.c> [OPT <-O2>] [FLAGS ...] [DEPENDS headers...])
# Rebuilt when the source, wasmgpu.h or a listed header changes (Ninja ignores
# IMPLICIT_DEPENDS).
function(wasmgpu_wasm_kernel)
  cmake_parse_arguments(K "" "OUTPUT;SOURCE;OPT" "FLAGS;DEPENDS" ${ARGN})
  if(NOT K_OPT)
    set(K_OPT -O2)
  endif()
  get_filename_component(source "${K_SOURCE}" ABSOLUTE)
  set(object "${K_OUTPUT}.o")
  add_custom_command(
    OUTPUT "${K_OUTPUT}"
    COMMAND "${WASMGPU_CLANG}" ${WASMGPU_KERNEL_CFLAGS} ${K_OPT} ${K_FLAGS}
            -I "${PROJECT_SOURCE_DIR}/include" -c "${source}" -o "${object}"
    COMMAND "${WASMGPU_WASM_LD}" --no-entry "${object}" "${WASMGPU_KERNEL_LIBC}" -o "${K_OUTPUT}"
    DEPENDS "${source}" "${WASMGPU_KERNEL_LIBC}" "${PROJECT_SOURCE_DIR}/include/wasmgpu.h" ${K_DEPENDS}
    IMPLICIT_DEPENDS C "${source}"
    COMMENT "wasm32 ${K_OPT}: ${K_SOURCE}"
    VERBATIM)
endfunction()
