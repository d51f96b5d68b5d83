#!/usr/bin/env bash
# Installs the build into a scratch prefix, then compiles a kernel against the
# installed wasmgpu.h only and checks that the installed CLI reads the
# parameters the header recorded.
# Usage: install_test.sh BUILD_DIR CLANG WASM_LD
set -euo pipefail
build="$1" clang="$2" wasm_ld="$3"
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
test -x "$prefix/bin/wasmgpu"
test -f "$prefix/include/wasmgpu.h"
cat > "$prefix/twice.c" <<'KERNEL'
#include <wasmgpu.h>
WASMGPU_DEFINE_KERNEL(twice, WASMGPU_VALUE(int, i), WASMGPU_PTR(float, y)) { y[i] *= 2.0f; }
KERNEL
"$clang" --target=wasm32 -O2 -nostdlib -I "$prefix/include" -c "$prefix/twice.c" -o "$prefix/twice.o"
"$wasm_ld" --no-entry "$prefix/twice.o" -o "$prefix/twice.wasm"
out="$("$prefix/bin/wasmgpu" inspect "$prefix/twice.wasm")"
echo "$out"
grep -q "param 0: int i" <<<"$out"
grep -q "param 1: float \* y (float: 4 bytes, align 4)" <<<"$out"
grep -q "kernel: runnable" <<<"$out"
echo "installed header and CLI work"
