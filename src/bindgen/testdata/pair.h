// The element type of the api test kernel swap_pairs (src/api/testdata/kernels.c),
// for the header bindgen generates from that module (--include pair.h): the
// generated static_assert checks it is as large as the kernel's.
#pragma once

struct pair {
  float first;
  float second;
};
