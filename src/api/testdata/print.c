/* Kernels that print (printf, puts, putchar, write), assert and abort
 * (print_test.cpp; docs/kernel-guide.md, "Printing and assert"). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <wasi/api.h>
#include <wasmgpu.h>

WASMGPU_KERNEL(print_values) void print_values(unsigned i) {
  printf(
      "inv %d: u=%u x=%x X=%X o=%o c=%c s=%s [%5s] [%-6s|] f=%f g=%g e=%.2e w=[%8.3f] [%-4d|] [%04d] [%+d] "
      "ll=%lld llu=%llu p=%%\n",
      (int)i, i * 3u, 255u + i, 0xabcu + i, 8u + i, 'a' + (int)i, "text", "ab", "cd", i * 0.5, i * 1.25, 1234.5 + i,
      3.14159 * i, (int)i, (int)i, (int)i, -(1LL << 40) - (long long)i, 18446744073709551615ull - i);
  float f = 0.1f * (float)i;
  printf("float %.3f, width from an argument [%*d], precision [%.*f]\n", f, 5, (int)i, 2, 2.71828);
  puts("puts from a kernel");
  if (i == 0) {
    putchar('<');
    putchar('A' + (int)i);
    putchar('>');
    putchar('\n');
  }
}

WASMGPU_KERNEL(print_flood) void print_flood(unsigned i) { printf("flood %u\n", i); }

WASMGPU_KERNEL(check_not) void check_not(unsigned i, int bad, int *out) {
  out[i] = 1;
  assert((int)i != bad);
  out[i] = 2;
}

WASMGPU_KERNEL(abort_at) void abort_at(unsigned i, int at) {
  if ((int)i == at) abort();
}

WASMGPU_KERNEL(write_fds) void write_fds(unsigned i) {
  static const char line[] = "written to fd 1\n";
  if (write(1, line, sizeof line - 1) != (long)(sizeof line - 1)) abort();
  if (i == 0) write(2, "to fd 2\n", 8);
  /* WASI's fd_write itself: two iovecs, one record. */
  const __wasi_ciovec_t pieces[2] = {{(const uint8_t *)"fd_write ", 9}, {(const uint8_t *)"in two pieces\n", 14}};
  __wasi_size_t written = 0;
  if (__wasi_fd_write(1, pieces, 2, &written) != 0 || written != 23) abort();
}

/* A printf that never runs (the cost of one that is not taken). */
WASMGPU_KERNEL(scale_quiet) void scale_quiet(unsigned i, int *out, int flag) {
  if (flag == 12345) printf("never %d\n", (int)i);
  out[i] = (int)i * 2;
}
