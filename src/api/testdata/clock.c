/* WASI clocks in kernels (api/clock_test.cpp): clock_gettime and time() from
 * the kernels' libc, which import wasi_snapshot_preview1.clock_time_get,
 * and the import called directly with a clock the device does not have. */
#include <time.h>
#include <wasi/api.h>
#include <wasmgpu.h>

/* Per invocation i: out[3i] CLOCK_REALTIME and out[3i + 1] CLOCK_MONOTONIC
 * in nanoseconds, out[3i + 2] time(NULL); status[2i] clock_gettime's
 * results (0 when both succeeded), status[2i + 1] the errno that WASI's
 * clock_time_get returns for the process CPU-time clock. */
WASMGPU_DEFINE_KERNEL(read_clocks, WASMGPU_VALUE(int, i), WASMGPU_PTR(unsigned long long, out),
                      WASMGPU_PTR(int, status)) {
  struct timespec t;
  int result = clock_gettime(CLOCK_REALTIME, &t);
  out[3 * i] = (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
  result |= clock_gettime(CLOCK_MONOTONIC, &t);
  out[3 * i + 1] = (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
  out[3 * i + 2] = (unsigned long long)time(0);
  status[2 * i] = result;
  __wasi_timestamp_t cpu = 0;
  status[2 * i + 1] = __wasi_clock_time_get(__WASI_CLOCKID_PROCESS_CPUTIME_ID, 1, &cpu);
}
