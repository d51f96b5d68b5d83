/* A kernel that imports WASI's fd_write itself, under another name, so that
 * the kernels' libc does not define it: the runtime links its own
 * (api/wasi_fd_write.h; print_test.cpp). */
#include <wasmgpu.h>

struct iovec_ {
  const char *bytes;
  unsigned long size;
};

__attribute__((import_module("wasi_snapshot_preview1"), import_name("fd_write"))) int raw_fd_write(
    int fd, const struct iovec_ *iovs, int count, unsigned long *written);

WASMGPU_KERNEL(raw_write) void raw_write(unsigned i, int *status) {
  const struct iovec_ pieces[2] = {{"raw ", 4}, {"fd_write\n", 9}};
  unsigned long written = 0;
  const int result = raw_fd_write(1, pieces, 2, &written);
  unsigned long other = 99;
  const int bad_fd = raw_fd_write(3, pieces, 1, &other);
  status[i] = result * 1000000 + (int)written * 1000 + bad_fd;
}
