#!/usr/bin/env bash
# CTest: what the CLI says about a trap beyond its kind. Usage:
# trap_text_test.sh WASMGPU KERNELS_DIR (the api tests' kernels)
# - a Rust kernel's panic location (rust_panic.wasm) in `wasmgpu run`'s error;
# - --trap-sites: `wasmgpu call` names the callee and the module offset of
#   the trapping instruction (trap_sites.wasm), `wasmgpu run` too; without
#   the flag neither names a site.
set -euo pipefail
wasmgpu=$1 kernels=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail() { echo "trap_text_test: $*" >&2; exit 1; }

python3 -c "import struct, sys; sys.stdout.buffer.write(struct.pack('<4i', 1, 2, 3, 9))" > x.bin
if "$wasmgpu" run "$kernels/rust_panic.wasm" checked_double --n 4 in:x.bin out:y.bin:16 4 9 \
    >run.out 2>run.err; then
  fail "the panic did not trap"
fi
grep -qE "trapped: unreachable executed at invocation 3 \(1 invocation trapped\): panicked at .*tests/kernels-lang/rust_panic\.rs:[0-9]+:[0-9]+ \(the message shows when the kernel is built with --cfg wasmgpu_panic_message\) at invocation 3" run.err ||
  fail "no panic location in: $(cat run.err)"

# The offsets, as wasm-objdump would print them, from the module itself.
if "$wasmgpu" call "$kernels/trap_sites.wasm" quotient 7 0 --trap-sites >call.out 2>call.err; then
  fail "the division by zero did not trap"
fi
grep -qx "trap: integer divide by zero" call.out || fail "no trap line in: $(cat call.out)"
grep -qE "^  in function 'divide' \(function 1\) at module offset 0x[0-9a-f]+$" call.out ||
  fail "no trap site in: $(cat call.out)"
"$wasmgpu" call "$kernels/trap_sites.wasm" quotient 7 0 >plain.out 2>&1 || true
if grep -q "module offset" plain.out; then fail "a site without --trap-sites: $(cat plain.out)"; fi

python3 -c "import sys; sys.stdout.buffer.write(bytes(32))" > out.bin
if WASMGPU_TRAP_SITES=1 "$wasmgpu" run "$kernels/trap_sites.wasm" gather --n 8 inout:out.bin 1048576 \
    >gather.out 2>gather.err; then
  fail "the gather did not trap"
fi
grep -qE "out of bounds memory access at invocation 1 \(7 invocations trapped\); invocation [1-7] trapped in function 'read' \(function 0\) at module offset 0x[0-9a-f]+" gather.err ||
  fail "no trap site in: $(cat gather.err)"
echo "trap_text_test: passed"
