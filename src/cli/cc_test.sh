#!/usr/bin/env bash
# CTest: `wasmgpu cc` builds kernels that the plain compile line cannot, and
# they run. Usage: cc_test.sh WASMGPU CLANG WASM_LD
# - a C kernel whose struct copy clang turns into a call of memcpy: linked
#   without libc it fails (undefined memcpy); `wasmgpu cc` links the kernels'
#   libc, and the kernel copies every byte;
# - a C++ kernel using libc++'s <algorithm>, linked with libc++.a and run;
# - a C++ kernel (a class template), compiled with -c and linked from its
#   object, its sums checked;
# - --print-flags, flags passed through to clang, and the errors for a
#   missing clang or wasi-libc;
# - printf, puts and a failing assert from a kernel (<stdio.h>, <assert.h>):
#   `wasmgpu run` prints the lines (with --print-invocation, their
#   invocations) and reports the assertion with its file, line and invocation;
# - malloc from the device heap, and --heap's size (a full heap gives NULL).
set -euo pipefail
wasmgpu=$1 clang=$2 wasm_ld=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail() { echo "cc_test: $*" >&2; exit 1; }

cat > copy.c <<'KERNEL'
#include <wasmgpu.h>
struct particle { float position[3], velocity[3], mass; int id[25]; };
WASMGPU_DEFINE_KERNEL(copy_particles, WASMGPU_VALUE(int, i), WASMGPU_CONST_PTR(struct particle, in),
                      WASMGPU_PTR(struct particle, out)) {
  out[i] = in[i];
}
KERNEL
# The first line of the old guide: no libc, so the struct copy does not link.
"$clang" --target=wasm32 -nostdlib -ffreestanding -O2 -I "$(dirname "$0")/../../include" -c copy.c -o plain.o
if "$wasm_ld" --no-entry plain.o -o plain.wasm 2>plain.err; then fail "copy.c linked without libc: no memcpy call to test"; fi
grep -q "undefined symbol: memcpy" plain.err || fail "expected an undefined memcpy: $(cat plain.err)"

"$wasmgpu" cc copy.c -o copy.wasm
inspect=$("$wasmgpu" inspect copy.wasm)
grep -q "param 1: const struct particle \* in (struct particle: 128 bytes, align 4)" <<<"$inspect" ||
  fail "the kernel metadata is missing: $inspect"
grep -q "func copy_particles (i32, i32, i32) -> ()" <<<"$inspect" || fail "copy_particles is not exported as itself: $inspect"
python3 -c "import os; open('particles.bin', 'wb').write(bytes((i * 37 + 11) % 256 for i in range(5 * 128)))"
"$wasmgpu" run copy.wasm copy_particles --n 5 in:particles.bin out:copied.bin:640
cmp particles.bin copied.bin || fail "copy_particles did not copy every byte"

cat > pairs.cpp <<'KERNEL'
#include <wasmgpu.h>
namespace {
template <class T>
struct Pair {
  T a, b;
  T weighted(T w) const { return a * w + b; }
};
}  // namespace
WASMGPU_DEFINE_KERNEL(weigh_pairs, WASMGPU_VALUE(int, i), WASMGPU_VALUE(float, w), WASMGPU_CONST_PTR(float, in),
                      WASMGPU_PTR(float, out)) {
  Pair<float> p{in[2 * i], in[2 * i + 1]};
  out[i] = p.weighted(w) + float(SCALE);
}
KERNEL
"$wasmgpu" cc -c pairs.cpp -O1 -DSCALE=100 -std=c++20 -o pairs.o
test -f pairs.o || fail "-c wrote no object"
"$wasmgpu" cc pairs.o -o pairs.wasm
python3 -c "import struct; open('in.bin', 'wb').write(struct.pack('<16f', *[float(i * i) for i in range(16)]))"
"$wasmgpu" run pairs.wasm weigh_pairs --n 8 3.0 in:in.bin out:out.bin:32
python3 - <<'CHECK'
import struct
values = struct.unpack('<16f', open('in.bin', 'rb').read())
got = struct.unpack('<8f', open('out.bin', 'rb').read())
want = tuple(values[2 * i] * 3.0 + values[2 * i + 1] + 100.0 for i in range(8))
assert got == want, f"weigh_pairs: got {got}, want {want}"
CHECK

# C++ with libc++ (<array>, <algorithm>): std::sort's int instantiation is
# compiled into libc++.a, so the link fails unless cc links libc++.
cat > sorted.cpp <<'KERNEL'
#include <wasmgpu.h>
#include <algorithm>
#include <array>
WASMGPU_KERNEL(heap8) void heap8(int i, const int *in, int *out) {
  std::array<int, 8> a;
  std::copy(in + 8 * i, in + 8 * i + 8, a.begin());
  std::make_heap(a.begin(), a.end());
  std::sort_heap(a.begin(), a.end());
  std::copy(a.begin(), a.end(), out + 8 * i);
}
WASMGPU_KERNEL(intro8) void intro8(int i, int *p) { std::sort(p + 8 * i, p + 8 * i + 8); }
KERNEL
"$wasmgpu" cc sorted.cpp -o sorted.wasm || fail "sorted.cpp (libc++) did not compile and link"
"$wasmgpu" inspect sorted.wasm | grep -q "func intro8" || fail "intro8 is not exported"
python3 -c "import struct; open('ints.bin', 'wb').write(struct.pack('<24i', *[(i * 7919) % 101 - 50 for i in range(24)]))"
"$wasmgpu" run sorted.wasm heap8 --n 3 in:ints.bin out:sorted.bin:96
python3 - <<'CHECK'
import struct
values = struct.unpack('<24i', open('ints.bin', 'rb').read())
got = struct.unpack('<24i', open('sorted.bin', 'rb').read())
want = tuple(v for i in range(3) for v in sorted(values[8 * i:8 * i + 8]))
assert got == want, f"heap8: got {got}, want {want}"
CHECK

flags=$("$wasmgpu" cc --print-flags)
grep -q -- "--target=wasm32" <<<"$flags" || fail "--print-flags: no target: $flags"
grep -q -- "-idirafter [^ ]*wasm32-wasi" <<<"$flags" || fail "--print-flags: no wasi include: $flags"
# shellcheck disable=SC2086
"$clang" $flags -O2 -c copy.c -o flags.o
"$wasmgpu" cc flags.o -o flags.wasm
"$wasmgpu" inspect flags.wasm | grep -q "kernel: runnable" || fail "the --print-flags object did not link to a kernel"

cat > hello.c <<'KERNEL'
#include <assert.h>
#include <stdio.h>
#include <wasmgpu.h>
WASMGPU_DEFINE_KERNEL(hello, WASMGPU_VALUE(int, i), WASMGPU_VALUE(int, bad)) {
  printf("hello from %d: %.2f %s\n", i, i * 0.5, "static");
  puts("bye");
  assert(i != bad);
}
KERNEL
"$wasmgpu" cc hello.c -o hello.wasm
"$wasmgpu" run hello.wasm hello --n 3 --print-invocation 99 >hello.out 2>hello.err || fail "hello: $(cat hello.err)"
python3 - <<'CHECK'
got = sorted(line for line in open('hello.out').read().splitlines() if line.startswith('['))
want = sorted([f"[{i}] hello from {i}: {i * 0.5:.2f} static" for i in range(3)] + [f"[{i}] bye" for i in range(3)])
assert got == want, f"hello: got {got}, want {want}"
CHECK
if "$wasmgpu" run hello.wasm hello --n 3 1 >hello.out 2>hello.err; then fail "the assert did not trap"; fi
grep -qF "trapped: unreachable executed at invocation 1 (1 invocation trapped): assertion failed: i != bad (hello.c:7, in function 'hello') at invocation 1" hello.err ||
  fail "no assertion in: $(cat hello.err)"
test "$(grep -c '^hello from' hello.out)" = 3 || fail "the lines printed before the trap are missing: $(cat hello.out)"

# malloc and free from the device heap (wasmgpu_heap.c in place of dlmalloc):
# each invocation copies its input into a block of its own and back; with
# --heap 8k (one page of 4 KiB) only 64 of the 100 blocks of 64 bytes fit,
# and the others get NULL (-1 written). On the cpu device: lavapipe's
# compile of allocating kernels is heap_test's to pay for.
cat > alloc.c <<'KERNEL'
#include <stdlib.h>
#include <string.h>
#include <wasmgpu.h>
WASMGPU_DEFINE_KERNEL(through_heap, WASMGPU_VALUE(int, i), WASMGPU_CONST_PTR(int, in), WASMGPU_PTR(int, out)) {
  int *block = malloc(64);
  if (!block) {
    out[i] = -1;
    return;
  }
  memset(block, 0, 64);
  block[15] = in[i] * 3;
  out[i] = block[15] + block[0];
}
KERNEL
"$wasmgpu" cc alloc.c -o alloc.wasm
python3 -c "import struct; open('vals.bin', 'wb').write(struct.pack('<100i', *range(100)))"
"$wasmgpu" run alloc.wasm through_heap --device cpu --n 100 in:vals.bin out:tripled.bin:400
python3 -c "
import struct
got = struct.unpack('<100i', open('tripled.bin', 'rb').read())
assert got == tuple(3 * v for v in range(100)), f'through_heap: {got}'"
"$wasmgpu" run alloc.wasm through_heap --device cpu --heap 8k --n 100 in:vals.bin out:tripled.bin:400
python3 -c "
import struct
got = struct.unpack('<100i', open('tripled.bin', 'rb').read())
assert sum(v == -1 for v in got) == 36 and all(v in (-1, 3 * i) for i, v in enumerate(got)), f'--heap 8k: {got}'"
expect_heap_error() {
  if "$wasmgpu" run alloc.wasm through_heap --device cpu --heap "$1" --n 1 in:vals.bin out:x.bin:4 2>err.txt; then
    fail "--heap $1 was accepted"
  fi
  grep -qF -- "$2" err.txt || fail "--heap $1: expected '$2' in: $(cat err.txt)"
}
expect_heap_error 4k "it must hold 8 KiB to 1 GiB"
expect_heap_error 12q "--heap 12q: not a byte count"

expect_error() {  # expect_error TEXT COMMAND...: fails, and standard error says TEXT
  local text=$1
  shift
  if "$@" 2>err.txt; then fail "$* succeeded"; fi
  grep -qF -- "$text" err.txt || fail "$*: expected '$text' in: $(cat err.txt)"
}
expect_error "install Debian's wasi-libc package" "$wasmgpu" cc --wasi-sysroot "$dir/none" copy.c
expect_error "Debian's clang-19 package" "$wasmgpu" cc --clang "$dir/none/clang-19" copy.c
expect_error "Debian's lld-19 package" "$wasmgpu" cc --wasm-ld "$dir/none/wasm-ld-19" copy.c
expect_error "missing.c: no such file" "$wasmgpu" cc missing.c
printf 'int broken = ;\n' > broken.c
expect_error "broken.c:1:14: error: expected expression" "$wasmgpu" cc broken.c
grep -q "clang-19 failed (exit status 1)" err.txt || fail "no exit status line: $(cat err.txt)"
"$wasmgpu" cc --help | grep -q -- "--print-flags" || fail "--help does not list --print-flags"
echo "cc_test: ok"
