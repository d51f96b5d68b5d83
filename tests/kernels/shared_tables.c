/* Reads of workgroup-shared tiles (4- and 8-byte words) next to reads of
 * static tables in the module memory. At -O2 all of them are on the Indexed
 * path: the shared words are read speculatively at a clamped index, and a
 * table read, which lies outside the shared range, must take the module
 * memory's value instead (tests/e2e/shared_tables_test.cpp computes the
 * expected values on the CPU). */
#include <wasmgpu.h>

#define GROUP 64 /* the workgroup size the test launches with */

static const float kScale[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const double kOffset[8] = {0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5};

WASMGPU_SHARED float tile[GROUP];
WASMGPU_SHARED double wide[GROUP];

WASMGPU_KERNEL(shared_tables) void shared_tables(int i, const float *in, double *out) {
  unsigned l = wasmgpu_local_index();
  tile[l] = in[i] * kScale[(unsigned)i % 16];
  wide[l] = (double)in[i] + kOffset[(unsigned)i % 8];
  wasmgpu_barrier();
  out[i] = (double)tile[(l * 5 + 3) % GROUP] + wide[GROUP - 1 - l] * kOffset[l % 8];
}
