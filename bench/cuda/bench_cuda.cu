// The CUDA twins of the wasmgpu bench workloads: the same algorithms, tiles
// and block sizes as bench/kernels/*.c and bench/glsl/*.comp, on the same
// inputs (bench/kernels/bench_inputs.h). Built twice by the Makefile: with
// nvcc -O3 and with -fmad=false (BENCH_NOFMA), which computes the bits of the
// CPU reference and of wasm's exact mode.
//
//   wasmgpu-bench-cuda --workload NAME --size N [--groups G] [--iters I] [--runs R]
//
// runs the workload once, checks the result against the CPU (bit for bit in
// the -fmad=false build, with a tolerance otherwise), then times R samples
// of I back-to-back runs with CUDA events and prints
//
//   result workload=NAME ms=<median ms per run> verified=1 [library_ms=<cuBLAS>]
//
// For --workload launch, --size is the number of back-to-back launches of a
// one-block kernel and ms is the time of all of them. For --workload sync,
// --size synchronous calls (cudaLaunchKernel + cudaDeviceSynchronize each),
// ms the host-clock time of all of them.
//
// The host side (inputs, references, checks) runs on all cores with the
// harness's parallel_for (bench/harness/parallel_for.h): the same inputs and
// results for any thread count (WASMGPU_BENCH_THREADS overrides the count).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "../harness/parallel_for.h"
#include "../kernels/bench_inputs.h"
#include "../kernels/particle_inputs.h"
#include "../kernels/particles.h"

using wasmgpu::bench::parallel_for;

#ifdef BENCH_NOFMA
static const bool kExact = true;
#else
static const bool kExact = false;
#endif

#define CHECK(call)                                                                            \
  do {                                                                                         \
    cudaError_t e_ = (call);                                                                   \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

// Thrown (also from parallel_for's threads); main prints it and exits with 1.
[[noreturn]] static void fail(const std::string& message) { throw std::runtime_error(message); }

// A host array left uninitialized (not zeroed by one thread like a
// std::vector): parallel_for's threads fill it, touching its pages in parallel.
template <class T>
struct HostArray {
  std::unique_ptr<T[]> p;
  size_t n = 0;
  explicit HostArray(size_t count) : p(new T[std::max<size_t>(count, 1)]), n(count) {}
  T& operator[](size_t i) { return p[i]; }
  const T& operator[](size_t i) const { return p[i]; }
  T* data() const { return p.get(); }
  size_t size() const { return n; }
};

// A[i] = gen(i) for every i, in parallel.
template <class T, class Gen>
static HostArray<T> generate(size_t n, const Gen& gen) {
  HostArray<T> a(n);
  parallel_for(n, 1 << 16, [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) a[i] = gen(i);
  });
  return a;
}

template <class T>
struct DeviceArray {
  T* p = nullptr;
  size_t n = 0;
  explicit DeviceArray(size_t count) : n(count) { CHECK(cudaMalloc(&p, std::max<size_t>(count, 1) * sizeof(T))); }
  DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) { upload(host.data()); }
  DeviceArray(const HostArray<T>& host) : DeviceArray(host.size()) { upload(host.data()); }
  ~DeviceArray() { cudaFree(p); }
  void upload(const T* host) { CHECK(cudaMemcpy(p, host, n * sizeof(T), cudaMemcpyHostToDevice)); }
  HostArray<T> download() const {
    HostArray<T> host(n);
    CHECK(cudaMemcpy(host.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
};

static bool same_bits(float a, float b) { return std::memcmp(&a, &b, 4) == 0; }
static bool same_bits(double a, double b) { return std::memcmp(&a, &b, 8) == 0; }
static bool near(double got, double want, double tolerance) {
  return std::fabs(got - want) <= tolerance * std::max(std::fabs(want), 1.0);
}

// ---------------------------------------------------------------- kernels

__global__ void triad(float* a, const float* b, const float* c, float s, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + s * c[i];
}

__global__ void reduce(const float* in, unsigned n, float* partial) {
  __shared__ float sums[256];
  unsigned local = threadIdx.x, stride = gridDim.x * 256u;
  float sum = 0.0f;
  for (unsigned j = blockIdx.x * 256u + local; j < n; j += stride) sum += in[j];
  sums[local] = sum;
  __syncthreads();
  for (unsigned half = 128; half > 0; half >>= 1) {
    if (local < half) sums[local] += sums[local + half];
    __syncthreads();
  }
  if (local == 0) partial[blockIdx.x] = sums[0];
}

__global__ void mandelbrot(unsigned* counts, unsigned width, unsigned max_iterations, float x0, float y0, float step) {
  unsigned px = blockIdx.x * 16 + threadIdx.x, py = blockIdx.y * 16 + threadIdx.y;
  float cx = x0 + (float)px * step, cy = y0 + (float)py * step;
  float x = 0.0f, y = 0.0f;
  unsigned k = 0;
  while (k < max_iterations) {
    float xx = x * x, yy = y * y;
    if (xx + yy > 4.0f) break;
    float xy = x * y;
    x = xx - yy + cx;
    y = xy + xy + cy;
    ++k;
  }
  counts[py * width + px] = k;
}

// bench/kernels/sgemm.c: 128 x 128 tile per block of 256, k steps of 8
// through shared memory, 8 x 8 registers per thread, float4 global loads.
__global__ void __launch_bounds__(256) sgemm(const float* a, const float* b, float* c, unsigned n) {
  __shared__ float a_tile[8][128];
  __shared__ __align__(16) float b_tile[8][128];
  unsigned t = threadIdx.x, tx = t % 16, ty = t / 16;
  unsigned row0 = blockIdx.y * 128, col0 = blockIdx.x * 128;
  unsigned a_row = t >> 1, a_col = (t & 1) * 4, b_row = t >> 5, b_col = (t & 31) * 4;
  const float4* a_src = reinterpret_cast<const float4*>(a + (size_t)(row0 + a_row) * n + a_col);
  const float* b_src = b + (size_t)b_row * n + col0 + b_col;
  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
  for (unsigned k = 0; k < n; k += 8) {
    float4 av = a_src[k / 4];
    float4 bv = *reinterpret_cast<const float4*>(b_src + (size_t)k * n);
    a_tile[a_col + 0][a_row] = av.x;
    a_tile[a_col + 1][a_row] = av.y;
    a_tile[a_col + 2][a_row] = av.z;
    a_tile[a_col + 3][a_row] = av.w;
    *reinterpret_cast<float4*>(&b_tile[b_row][b_col]) = bv;
    __syncthreads();
    for (int kk = 0; kk < 8; ++kk) {
      float ra[8], rb[8];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        ra[q] = a_tile[kk][ty * 4 + q];
        ra[q + 4] = a_tile[kk][64 + ty * 4 + q];
        rb[q] = b_tile[kk][tx * 4 + q];
        rb[q + 4] = b_tile[kk][64 + tx * 4 + q];
      }
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] += ra[i] * rb[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    unsigned row = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      unsigned col = col0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + j - 4);
      c[(size_t)row * n + col] = acc[i][j];
    }
  }
}

__global__ void stencil(const float* in, float* out, unsigned w, unsigned h) {
  unsigned x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  size_t at = (size_t)y * w + x;
  float v = in[at];
  if (x > 0 && y > 0 && x + 1 < w && y + 1 < h) v = 0.25f * (in[at - w] + in[at + w] + in[at - 1] + in[at + 1]);
  out[at] = v;
}

__global__ void horner_f64(const double* x, double* y, const double* coef, unsigned degree) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  double v = x[i];
  double acc = coef[degree];
  for (unsigned k = degree; k-- > 0;) acc = acc * v + coef[k];
  y[i] = acc;
}

__global__ void histogram(const unsigned char* data, unsigned n, int* bins) {
  __shared__ int local_bins[256];
  unsigned local = threadIdx.x;
  local_bins[local] = 0;
  __syncthreads();
  unsigned stride = gridDim.x * 256u;
  for (unsigned j = blockIdx.x * 256u + local; j < n; j += stride) atomicAdd(&local_bins[data[j]], 1);
  __syncthreads();
  int count = local_bins[local];
  if (count != 0) atomicAdd(&bins[local], count);
}

__host__ __device__ inline particle particle_step(particle p) {
  const float k = BENCH_PARTICLE_STIFFNESS, c = BENCH_PARTICLE_DAMPING, dt = BENCH_PARTICLE_DT;
  if (!(p.flags & 1u)) {
    float fx = -k * p.px - c * p.vx;
    float fy = -k * p.py - c * p.vy;
    float fz = -k * p.pz - c * p.vz;
    p.vx += fx * p.inverse_mass * dt;
    p.vy += fy * p.inverse_mass * dt;
    p.vz += fz * p.inverse_mass * dt;
    p.px += p.vx * dt;
    p.py += p.vy * dt;
    p.pz += p.vz * dt;
  }
  p.flags += 2u;
  return p;
}

// Each 32-byte struct moves as two float4s: cudaMalloc'd arrays are 256-byte
// aligned, and nvcc would otherwise read and write it field by field (the
// struct is only 4-aligned), at under half the bandwidth.
__global__ void particles(const particle* in, particle* out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  static_assert(sizeof(particle) == 2 * sizeof(float4));
  const float4* in4 = reinterpret_cast<const float4*>(in) + 2 * i;
  float4 a = in4[0], b = in4[1];
  particle p{a.x, a.y, a.z, a.w, b.x, b.y, b.z, __float_as_uint(b.w)};
  p = particle_step(p);
  float4* out4 = reinterpret_cast<float4*>(out) + 2 * i;
  out4[0] = make_float4(p.px, p.py, p.pz, p.vx);
  out4[1] = make_float4(p.vy, p.vz, p.inverse_mass, __uint_as_float(p.flags));
}

// bench/kernels/jacobi_2d.c: one sweep, 16 x 16 blocks, one point each.
__global__ void jacobi_2d(const float* in, float* out, unsigned n) {
  unsigned j = blockIdx.x * 16 + threadIdx.x, i = blockIdx.y * 16 + threadIdx.y;
  if (i >= 1 && i + 1 < n && j >= 1 && j + 1 < n) {
    size_t at = (size_t)i * n + j;
    out[at] = 0.2f * (in[at] + in[at - 1] + in[at + 1] + in[at + n] + in[at - n]);
  }
}

// bench/kernels/gesummv.c: one block of 256 per row, strided partial sums,
// then a shared-memory tree.
__global__ void __launch_bounds__(256)
    gesummv(const float* a, const float* b, const float* x, float* y, float alpha, float beta, unsigned n) {
  __shared__ float sums_a[256], sums_b[256];
  unsigned local = threadIdx.x, i = blockIdx.x;
  const float* row_a = a + (size_t)i * n;
  const float* row_b = b + (size_t)i * n;
  float sum_a = 0.0f, sum_b = 0.0f;
  for (unsigned j = local; j < n; j += 256) {
    sum_a += row_a[j] * x[j];
    sum_b += row_b[j] * x[j];
  }
  sums_a[local] = sum_a;
  sums_b[local] = sum_b;
  __syncthreads();
  for (unsigned half = 128; half > 0; half >>= 1) {
    if (local < half) {
      sums_a[local] += sums_a[local + half];
      sums_b[local] += sums_b[local + half];
    }
    __syncthreads();
  }
  if (local == 0) y[i] = alpha * sums_a[0] + beta * sums_b[0];
}

// A row of `a` times x as a block of 256 adds it (atax_ax, bicg_q): strided
// partial sums, then a shared-memory tree; one block per row.
__device__ void block_row_dot(const float* a, const float* x, float* out, unsigned n) {
  __shared__ float sums[256];
  unsigned local = threadIdx.x, i = blockIdx.x;
  const float* row = a + (size_t)i * n;
  float sum = 0.0f;
  for (unsigned j = local; j < n; j += 256) sum += row[j] * x[j];
  sums[local] = sum;
  __syncthreads();
  for (unsigned half = 128; half > 0; half >>= 1) {
    if (local < half) sums[local] += sums[local + half];
    __syncthreads();
  }
  if (local == 0) out[i] = sums[0];
}

// bench/kernels/atax.c: tmp = A x (a block of 256 per row), then
// y = A^T tmp (a thread per column, ascending i).
__global__ void __launch_bounds__(256) atax_ax(const float* a, const float* x, float* tmp, unsigned n) {
  block_row_dot(a, x, tmp, n);
}
__global__ void atax_atx(const float* a, const float* tmp, float* y, unsigned n) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (unsigned i = 0; i < n; ++i) sum += a[(size_t)i * n + j] * tmp[i];
  y[j] = sum;
}

// bench/kernels/bicg.c: s = A^T r (a thread per column, ascending i) and
// q = A p (a block of 256 per row).
__global__ void bicg_s(const float* a, const float* r, float* s, unsigned n) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (unsigned i = 0; i < n; ++i) sum += r[i] * a[(size_t)i * n + j];
  s[j] = sum;
}
__global__ void __launch_bounds__(256) bicg_q(const float* a, const float* p, float* q, unsigned n) {
  block_row_dot(a, p, q, n);
}

// bench/kernels/mm2.c: element (row, col) of x y in 16 x 16 shared-memory
// tiles, one element per thread of a 16 x 16 block.
__device__ float tiled_product(const float* x, const float* y, unsigned n, unsigned row, unsigned col) {
  __shared__ float left_tile[16][16], right_tile[16][16];
  unsigned tx = threadIdx.x, ty = threadIdx.y;
  float sum = 0.0f;
  for (unsigned k0 = 0; k0 < n; k0 += 16) {
    left_tile[ty][tx] = x[(size_t)row * n + k0 + tx];
    right_tile[ty][tx] = y[(size_t)(k0 + ty) * n + col];
    __syncthreads();
    for (unsigned k = 0; k < 16; ++k) sum += left_tile[ty][k] * right_tile[k][tx];
    __syncthreads();
  }
  return sum;
}

// tmp = alpha (A B), then out = beta D + tmp C.
__global__ void mm2_tmp(const float* a, const float* b, float* tmp, float alpha, unsigned n) {
  unsigned col = blockIdx.x * 16 + threadIdx.x, row = blockIdx.y * 16 + threadIdx.y;
  tmp[(size_t)row * n + col] = alpha * tiled_product(a, b, n, row, col);
}
__global__ void mm2_out(const float* tmp, const float* c, const float* d, float* out, float beta, unsigned n) {
  unsigned col = blockIdx.x * 16 + threadIdx.x, row = blockIdx.y * 16 + threadIdx.y;
  float product = tiled_product(tmp, c, n, row, col);
  out[(size_t)row * n + col] = beta * d[(size_t)row * n + col] + product;
}

// bench/kernels/fdtd_2d.c: ex and ey from hz (ey's first row is t), then hz
// from them; 16 x 16 blocks, one point each.
__global__ void fdtd_2d_e(float* ex, float* ey, const float* hz, unsigned n, unsigned t) {
  unsigned j = blockIdx.x * 16 + threadIdx.x, i = blockIdx.y * 16 + threadIdx.y;
  size_t at = (size_t)i * n + j;
  if (i == 0)
    ey[at] = (float)t;
  else
    ey[at] = ey[at] - 0.5f * (hz[at] - hz[at - n]);
  if (j > 0) ex[at] = ex[at] - 0.5f * (hz[at] - hz[at - 1]);
}
__global__ void fdtd_2d_h(const float* ex, const float* ey, float* hz, unsigned n) {
  unsigned j = blockIdx.x * 16 + threadIdx.x, i = blockIdx.y * 16 + threadIdx.y;
  size_t at = (size_t)i * n + j;
  if (i + 1 < n && j + 1 < n) hz[at] = hz[at] - 0.7f * (ex[at + 1] - ex[at] + ey[at + n] - ey[at]);
}

// bench/kernels/correlation.c: column means and deviations (a thread per
// column), the normalised data (16 x 16 blocks), then normal^T normal in
// 16 x 16 shared-memory tiles, the tiles on and above the diagonal only,
// each writing its mirror; the diagonal is 1.
__global__ void correlation_mean(const float* data, float* mean, unsigned n) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (unsigned i = 0; i < n; ++i) sum += data[(size_t)i * n + j];
  mean[j] = sum / (float)n;
}
__global__ void correlation_std(const float* data, const float* mean, float* stddev, unsigned n) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  float m = mean[j], sum = 0.0f;
  for (unsigned i = 0; i < n; ++i) {
    float d = data[(size_t)i * n + j] - m;
    sum += d * d;
  }
  float s = sqrtf(sum / (float)n);
  stddev[j] = s <= 0.1f ? 1.0f : s;
}
__global__ void correlation_normalize(const float* data, const float* mean, const float* stddev, float* normal,
                                      unsigned n) {
  unsigned j = blockIdx.x * 16 + threadIdx.x, i = blockIdx.y * 16 + threadIdx.y;
  size_t at = (size_t)i * n + j;
  normal[at] = (data[at] - mean[j]) / (sqrtf((float)n) * stddev[j]);
}
__global__ void correlation_corr(const float* normal, float* corr, unsigned n) {
  __shared__ float left_tile[16][16], right_tile[16][16];
  unsigned tx = threadIdx.x, ty = threadIdx.y;
  unsigned row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;
  if (row0 > col0) return;
  unsigned row = row0 + ty, col = col0 + tx;
  float sum = 0.0f;
  for (unsigned k0 = 0; k0 < n; k0 += 16) {
    left_tile[ty][tx] = normal[(size_t)(k0 + ty) * n + row0 + tx];
    right_tile[ty][tx] = normal[(size_t)(k0 + ty) * n + col0 + tx];
    __syncthreads();
    for (unsigned k = 0; k < 16; ++k) sum += left_tile[k][ty] * right_tile[k][tx];
    __syncthreads();
  }
  if (row == col) sum = 1.0f;
  if (row <= col) {
    corr[(size_t)row * n + col] = sum;
    corr[(size_t)col * n + row] = sum;
  }
}

__global__ void bump(unsigned* counter) {
  if (blockIdx.x == 0 && threadIdx.x == 0) counter[0] += 1u;
}

// ---------------------------------------------------------------- timing

struct Args {
  std::string workload;
  unsigned long long size = 0;
  unsigned groups = 1, iters = 1, runs = 5;
};

// Median ms per run of `launch` (iters back to back per sample).
static double time_runs(const Args& args, const std::function<void()>& launch) {
  launch();  // warm-up
  CHECK(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<double> samples;
  for (unsigned r = 0; r < args.runs; ++r) {
    CHECK(cudaEventRecord(start));
    for (unsigned i = 0; i < args.iters; ++i) launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaGetLastError());
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    samples.push_back(double(ms) / args.iters);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(samples.begin(), samples.end());
  size_t n = samples.size();
  return n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

static void report(const Args& args, double ms, double library_ms = 0) {
  std::printf("result workload=%s ms=%.6f verified=1", args.workload.c_str(), ms);
  if (library_ms > 0) std::printf(" library_ms=%.6f", library_ms);
  std::printf("\n");
}

// ---------------------------------------------------------------- workloads

static void run_triad(const Args& args) {
  const unsigned n = unsigned(args.size);
  HostArray<float> b = generate<float>(n, [](uint64_t i) { return bench_unit(uint32_t(i), 1); });
  HostArray<float> c = generate<float>(n, [](uint64_t i) { return bench_unit(uint32_t(i), 2); });
  DeviceArray<float> da(n), db(b), dc(c);
  auto launch = [&] { triad<<<n / 256, 256>>>(da.p, db.p, dc.p, BENCH_TRIAD_SCALAR, n); };
  launch();
  HostArray<float> a = da.download();
  parallel_for(n, 1 << 16, [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) {
      float product = BENCH_TRIAD_SCALAR * c[i];
      float want = b[i] + product;
      if (kExact ? !same_bits(a[i], want) : !near(a[i], want, 1e-6)) fail("triad: wrong a[" + std::to_string(i) + "]");
    }
  });
  report(args, time_runs(args, launch));
}

static void run_reduce(const Args& args) {
  const unsigned n = unsigned(args.size), groups = args.groups;
  HostArray<float> in = generate<float>(n, [](uint64_t i) { return bench_unit(uint32_t(i), 3); });
  DeviceArray<float> din(in), dpartial(groups);
  auto launch = [&] { reduce<<<groups, 256>>>(din.p, n, dpartial.p); };
  launch();
  HostArray<float> partial = dpartial.download();
  const unsigned long long stride = 256ull * groups;
  // One workgroup per chunk; each lane adds its elements in index order.
  parallel_for(groups, 1, [&](uint64_t begin, uint64_t end) {
    for (uint64_t g = begin; g < end; ++g) {
      float sums[256] = {};
      double magnitude = 0;
      for (unsigned long long row = g * 256ull; row < n; row += stride)
        for (unsigned l = 0; l < 256 && row + l < n; ++l) sums[l] += in[row + l], magnitude += std::fabs(in[row + l]);
      for (unsigned half = 128; half > 0; half >>= 1)
        for (unsigned l = 0; l < half; ++l) sums[l] += sums[l + half];
      bool ok = kExact ? same_bits(partial[g], sums[0]) : std::fabs(partial[g] - sums[0]) <= 1e-5 * magnitude + 1e-6;
      if (!ok) fail("reduce: wrong partial[" + std::to_string(g) + "]");
    }
  });
  report(args, time_runs(args, launch));
}

static unsigned escape(float cx, float cy) {
  float x = 0.0f, y = 0.0f;
  unsigned k = 0;
  while (k < BENCH_MANDELBROT_ITERATIONS) {
    float xx = x * x, yy = y * y;
    if (xx + yy > 4.0f) break;
    float xy = x * y;
    x = xx - yy + cx;
    y = xy + xy + cy;
    ++k;
  }
  return k;
}

static void run_mandelbrot(const Args& args) {
  const unsigned w = unsigned(args.size);
  const float step = 2.5f / float(w), x0 = -2.0f, y0 = -1.25f;
  DeviceArray<unsigned> dcounts((size_t)w * w);
  dim3 grid(w / 16, w / 16), block(16, 16);
  auto launch = [&] { mandelbrot<<<grid, block>>>(dcounts.p, w, BENCH_MANDELBROT_ITERATIONS, x0, y0, step); };
  launch();
  HostArray<unsigned> counts = dcounts.download();
  // Evenly spaced rows (up to 2^18 pixels) and the last row.
  const unsigned long long row_stride = std::max<unsigned long long>(1, (unsigned long long)w * w / (1 << 18));
  std::vector<unsigned long long> rows;
  for (unsigned long long y = 0; y < w; y += row_stride) rows.push_back(y);
  if (rows.back() != w - 1) rows.push_back(w - 1);
  std::atomic<unsigned long long> wrong{0};
  parallel_for(rows.size(), 1, [&](uint64_t begin, uint64_t end) {
    unsigned long long my_wrong = 0;
    for (uint64_t r = begin; r < end; ++r)
      for (unsigned x = 0; x < w; ++x)
        if (counts[rows[r] * w + x] != escape(x0 + float(x) * step, y0 + float(rows[r]) * step)) ++my_wrong;
    wrong += my_wrong;
  });
  const unsigned long long checked = rows.size() * (unsigned long long)w;
  if (kExact ? wrong != 0 : wrong * 100 > checked) fail("mandelbrot: " + std::to_string(wrong.load()) + " pixels differ");
  report(args, time_runs(args, launch));
}

static void run_sgemm(const Args& args) {
  const unsigned n = unsigned(args.size);
  const size_t nn = (size_t)n * n;
  HostArray<float> a = generate<float>(nn, [](uint64_t i) { return bench_unit(uint32_t(i), 4); });
  HostArray<float> b = generate<float>(nn, [](uint64_t i) { return bench_unit(uint32_t(i), 5); });
  DeviceArray<float> da(a), db(b), dc(nn);
  dim3 grid(n / 128, n / 128);
  auto launch = [&] { sgemm<<<grid, 256>>>(da.p, db.p, dc.p, n); };
  launch();
  HostArray<float> c = dc.download();
  const size_t samples = std::min<size_t>(nn, 4096);
  parallel_for(samples, 16, [&](uint64_t begin, uint64_t end) {
    for (size_t s = begin; s < end; ++s) {
      size_t at = samples == nn ? s : (s == samples - 1 ? nn - 1 : bench_hash(uint32_t(s)) % nn);
      size_t row = at / n, col = at % n;
      float sum = 0.0f;
      double magnitude = 0;
      for (size_t k = 0; k < n; ++k) {
        float product = a[row * n + k] * b[k * n + col];
        sum += product;
        magnitude += std::fabs(product);
      }
      bool ok = kExact ? same_bits(c[at], sum) : std::fabs(c[at] - sum) <= 1e-5 * magnitude + 1e-6;
      if (!ok) fail("sgemm: wrong C[" + std::to_string(row) + "][" + std::to_string(col) + "]");
    }
  });
  double library_ms = 0;
#ifndef BENCH_NOFMA
  // cuBLAS in FP32 (the default math mode uses no TF32): row-major C = A B
  // is column-major C^T = B^T A^T.
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) fail("cublasCreate failed");
  cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);
  const float one = 1.0f, zero = 0.0f;
  auto library = [&] {
    if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, db.p, n, da.p, n, &zero, dc.p, n) !=
        CUBLAS_STATUS_SUCCESS)
      fail("cublasSgemm failed");
  };
  library_ms = time_runs(args, library);
  HostArray<float> cl = dc.download();
  for (size_t s = 0; s < 64; ++s) {
    size_t at = bench_hash(uint32_t(s)) % nn;
    if (!near(cl[at], c[at], 1e-3)) fail("cuBLAS disagrees with the twin at " + std::to_string(at));
  }
  cublasDestroy(handle);
#endif
  report(args, time_runs(args, launch), library_ms);
}

static void run_stencil(const Args& args) {
  const unsigned w = unsigned(args.size);
  const size_t nn = (size_t)w * w;
  HostArray<float> in = generate<float>(nn, [](uint64_t i) { return bench_unit(uint32_t(i), 6); });
  DeviceArray<float> din(in), dout(nn);
  dim3 grid(w / 16, w / 16), block(16, 16);
  auto launch = [&] { stencil<<<grid, block>>>(din.p, dout.p, w, w); };
  launch();
  HostArray<float> out = dout.download();
  parallel_for(w, 16, [&](uint64_t begin, uint64_t end) {
    for (size_t y = begin; y < end; ++y)
      for (size_t x = 0; x < w; ++x) {
        size_t at = y * w + x;
        float want = in[at];
        if (x > 0 && y > 0 && x + 1 < w && y + 1 < w) want = 0.25f * (in[at - w] + in[at + w] + in[at - 1] + in[at + 1]);
        if (kExact ? !same_bits(out[at], want) : !near(out[at], want, 1e-6))
          fail("stencil: wrong value at (" + std::to_string(x) + ", " + std::to_string(y) + ")");
      }
  });
  report(args, time_runs(args, launch));
}

static void run_horner(const Args& args) {
  const unsigned n = unsigned(args.size);
  HostArray<double> x = generate<double>(n, [](uint64_t i) { return double(bench_unit(uint32_t(i), 7)); });
  std::vector<double> coef(BENCH_HORNER_DEGREE + 1);
  for (unsigned k = 0; k <= BENCH_HORNER_DEGREE; ++k) coef[k] = bench_coefficient(k);
  DeviceArray<double> dx(x), dy(n), dcoef(coef);
  auto launch = [&] { horner_f64<<<n / 256, 256>>>(dx.p, dy.p, dcoef.p, BENCH_HORNER_DEGREE); };
  launch();
  HostArray<double> y = dy.download();
  // Every stride-th element (at most 2^20) and the last.
  const unsigned stride = std::max(1u, n >> 20), checked = (n - 1) / stride + 2;
  parallel_for(checked, 1024, [&](uint64_t begin, uint64_t end) {
    for (uint64_t s = begin; s < end; ++s) {
      const unsigned i = s + 1 == checked ? n - 1 : unsigned(s) * stride;
      double acc = coef[BENCH_HORNER_DEGREE];
      for (unsigned k = BENCH_HORNER_DEGREE; k-- > 0;) {
        double product = acc * x[i];
        acc = product + coef[k];
      }
      if (kExact ? !same_bits(y[i], acc) : !near(y[i], acc, 1e-12)) fail("horner_f64: wrong y[" + std::to_string(i) + "]");
    }
  });
  report(args, time_runs(args, launch));
}

static void run_histogram(const Args& args) {
  const unsigned n = unsigned(args.size), groups = args.groups;
  HostArray<unsigned char> data = generate<unsigned char>(n, [](uint64_t i) { return bench_byte(uint32_t(i)); });
  std::vector<long long> want(256, 0);
  std::mutex want_mutex;
  parallel_for(n, 1 << 22, [&](uint64_t begin, uint64_t end) {
    std::array<long long, 256> bins{};
    for (uint64_t i = begin; i < end; ++i) ++bins[data[i]];
    std::lock_guard<std::mutex> lock(want_mutex);
    for (int b = 0; b < 256; ++b) want[b] += bins[b];
  });
  DeviceArray<unsigned char> ddata(data);
  DeviceArray<int> dbins(256);
  CHECK(cudaMemset(dbins.p, 0, 256 * sizeof(int)));
  auto launch = [&] { histogram<<<groups, 256>>>(ddata.p, n, dbins.p); };
  launch();
  HostArray<int> bins = dbins.download();
  for (int b = 0; b < 256; ++b)
    if ((unsigned)bins[b] != want[b]) fail("histogram: wrong bin " + std::to_string(b));
  report(args, time_runs(args, launch));
}

static void run_particles(const Args& args) {
  const unsigned n = unsigned(args.size);
  HostArray<particle> in = generate<particle>(n, [](uint64_t index) { return bench_particle(uint32_t(index)); });
  DeviceArray<particle> din(in), dout(n);
  auto launch = [&] { particles<<<n / 256, 256>>>(din.p, dout.p); };
  launch();
  HostArray<particle> out = dout.download();
  parallel_for(n, 1 << 16, [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) {
      particle want = particle_step(in[i]);
      const float* g = &out[i].px;
      const float* w = &want.px;
      if (out[i].flags != want.flags) fail("particles: wrong flags at " + std::to_string(i));
      for (int f = 0; f < 7; ++f)
        if (kExact ? !same_bits(g[f], w[f]) : !near(g[f], w[f], 1e-5)) fail("particles: wrong member at " + std::to_string(i));
    }
  });
  report(args, time_runs(args, launch));
}

// One jacobi-2d sweep on the CPU, in the kernel's order of additions.
static void jacobi_sweep(const HostArray<float>& in, HostArray<float>& out, size_t n) {
  parallel_for(n - 2, 16, [&](uint64_t begin, uint64_t end) {
    for (size_t i = begin + 1; i < end + 1; ++i)
      for (size_t j = 1; j + 1 < n; ++j) {
        size_t at = i * n + j;
        out[at] = 0.2f * (in[at] + in[at - 1] + in[at + 1] + in[at + n] + in[at - n]);
      }
  });
}

// A run: BENCH_JACOBI_STEPS time steps of two sweeps, A into B and B into A.
static void run_jacobi_2d(const Args& args) {
  const unsigned n = unsigned(args.size);
  const size_t nn = (size_t)n * n;
  HostArray<float> a = generate<float>(nn, [](uint64_t i) { return bench_unit(uint32_t(i), 8); });
  HostArray<float> b = generate<float>(nn, [](uint64_t i) { return bench_unit(uint32_t(i), 9); });
  DeviceArray<float> da(a), db(b);
  dim3 grid(n / 16, n / 16), block(16, 16);
  auto launch = [&] {
    for (unsigned t = 0; t < BENCH_JACOBI_STEPS; ++t) {
      jacobi_2d<<<grid, block>>>(da.p, db.p, n);
      jacobi_2d<<<grid, block>>>(db.p, da.p, n);
    }
  };
  launch();
  HostArray<float> ga = da.download(), gb = db.download();
  for (unsigned t = 0; t < BENCH_JACOBI_STEPS; ++t) jacobi_sweep(a, b, n), jacobi_sweep(b, a, n);
  parallel_for(nn, 1 << 16, [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) {
      if (kExact ? !same_bits(ga[i], a[i]) : !near(ga[i], a[i], 1e-5)) fail("jacobi_2d: wrong A[" + std::to_string(i) + "]");
      if (kExact ? !same_bits(gb[i], b[i]) : !near(gb[i], b[i], 1e-5)) fail("jacobi_2d: wrong B[" + std::to_string(i) + "]");
    }
  });
  report(args, time_runs(args, launch));
}

#ifndef BENCH_NOFMA
// A cuBLAS handle in FP32 (the default math mode: no TF32).
struct Cublas {
  cublasHandle_t handle;
  Cublas() {
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) fail("cublasCreate failed");
    cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);
  }
  ~Cublas() { cublasDestroy(handle); }
};

static void cublas_check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) fail(std::string(what) + " failed");
}

// Compares a library's vector with the twin's: another order of additions,
// so within 1e-3 of the vector's largest magnitude (an element near zero
// after cancellation may differ far more than 1e-3 of its own size).
static void compare_library(const char* workload, const HostArray<float>& library, const HostArray<float>& twin) {
  double largest = 1.0;
  for (size_t i = 0; i < twin.size(); ++i) largest = std::max(largest, (double)std::fabs(twin[i]));
  for (size_t i = 0; i < twin.size(); ++i)
    if (!(std::fabs(library[i] - twin[i]) <= 1e-3 * largest))
      fail(std::string(workload) + ": cuBLAS disagrees with the twin at " + std::to_string(i));
}

#endif

// sum over j < n of row[j] * x[j] as a block of 256 adds it: thread l sums
// j = l, l + 256, ..., then the 256 sums are added in a tree.
static float block_dot(const float* row, const float* x, size_t n, double& magnitude) {
  float sums[256] = {};
  magnitude = 0;
  for (size_t j = 0; j < n; ++j) {
    float product = row[j] * x[j];
    sums[j % 256] += product;
    magnitude += std::fabs(product);
  }
  for (unsigned half = 128; half > 0; half >>= 1)
    for (unsigned l = 0; l < half; ++l) sums[l] += sums[l + half];
  return sums[0];
}

static void run_gesummv(const Args& args) {
  const unsigned n = unsigned(args.size);
  const size_t nn = (size_t)n * n;
  HostArray<float> a = generate<float>(nn, [](uint64_t i) { return bench_unit(uint32_t(i), 10); });
  HostArray<float> b = generate<float>(nn, [](uint64_t i) { return bench_unit(uint32_t(i), 11); });
  HostArray<float> x = generate<float>(n, [](uint64_t i) { return bench_unit(uint32_t(i), 12); });
  DeviceArray<float> da(a), db(b), dx(x), dy(n);
  auto launch = [&] { gesummv<<<n, 256>>>(da.p, db.p, dx.p, dy.p, BENCH_ALPHA, BENCH_BETA, n); };
  launch();
  HostArray<float> y = dy.download();
  parallel_for(n, 16, [&](uint64_t begin, uint64_t end) {
    for (size_t i = begin; i < end; ++i) {
      double magnitude_a, magnitude_b;
      float sum_a = block_dot(&a[i * n], x.data(), n, magnitude_a);
      float sum_b = block_dot(&b[i * n], x.data(), n, magnitude_b);
      float want = BENCH_ALPHA * sum_a + BENCH_BETA * sum_b;
      double scale = BENCH_ALPHA * magnitude_a + BENCH_BETA * magnitude_b;
      bool ok = kExact ? same_bits(y[i], want) : std::fabs(y[i] - want) <= 1e-5 * scale + 1e-6;
      if (!ok) fail("gesummv: wrong y[" + std::to_string(i) + "]");
    }
  });
  double library_ms = 0;
#ifndef BENCH_NOFMA
  // Two cublasSgemv: the row-major matrices are column-major transposes.
  Cublas cublas;
  const float alpha = BENCH_ALPHA, beta = BENCH_BETA, zero = 0.0f, one = 1.0f;
  DeviceArray<float> dl(n);
  auto library = [&] {
    cublas_check(cublasSgemv(cublas.handle, CUBLAS_OP_T, n, n, &alpha, da.p, n, dx.p, 1, &zero, dl.p, 1),
                 "cublasSgemv");
    cublas_check(cublasSgemv(cublas.handle, CUBLAS_OP_T, n, n, &beta, db.p, n, dx.p, 1, &one, dl.p, 1),
                 "cublasSgemv");
  };
  library();
  compare_library("gesummv", dl.download(), y);
  library_ms = time_runs(args, library);
#endif
  report(args, time_runs(args, launch), library_ms);
}

// y[j] = sum over i of a[i][j] * v[i] in ascending i, checked against
// `got` (columns in chunks: the rows walked once per chunk).
static void check_columns(const char* what, const HostArray<float>& a, const float* v, const HostArray<float>& got,
                          size_t n) {
  parallel_for(n, 256, [&](uint64_t begin, uint64_t end) {
    std::vector<float> want(end - begin, 0.0f);
    std::vector<double> scale(end - begin, 0.0);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = begin; j < end; ++j) {
        float product = a[i * n + j] * v[i];
        want[j - begin] += product;
        scale[j - begin] += std::fabs(product);
      }
    for (size_t j = begin; j < end; ++j) {
      bool ok = kExact ? same_bits(got[j], want[j - begin])
                       : std::fabs(got[j] - want[j - begin]) <= 1e-5 * scale[j - begin] + 1e-6;
      if (!ok) fail(std::string(what) + "[" + std::to_string(j) + "] is wrong");
    }
  });
}

// Each row of `a` times x, as a block of 256 adds it.
static void check_rows(const char* what, const HostArray<float>& a, const HostArray<float>& x,
                       const HostArray<float>& got, size_t n) {
  parallel_for(n, 16, [&](uint64_t begin, uint64_t end) {
    for (size_t i = begin; i < end; ++i) {
      double magnitude;
      float want = block_dot(&a[i * n], x.data(), n, magnitude);
      bool ok = kExact ? same_bits(got[i], want) : std::fabs(got[i] - want) <= 1e-5 * magnitude + 1e-6;
      if (!ok) fail(std::string(what) + "[" + std::to_string(i) + "] is wrong");
    }
  });
}

static void run_atax(const Args& args) {
  const unsigned n = unsigned(args.size);
  const size_t nn = (size_t)n * n;
  HostArray<float> a = generate<float>(nn, [](uint64_t i) { return bench_unit(uint32_t(i), 13); });
  HostArray<float> x = generate<float>(n, [](uint64_t i) { return bench_unit(uint32_t(i), 14); });
  DeviceArray<float> da(a), dx(x), dtmp(n), dy(n);
  auto launch = [&] {
    atax_ax<<<n, 256>>>(da.p, dx.p, dtmp.p, n);
    atax_atx<<<n / 256, 256>>>(da.p, dtmp.p, dy.p, n);
  };
  launch();
  HostArray<float> tmp = dtmp.download(), y = dy.download();
  check_rows("atax: tmp", a, x, tmp, n);
  // y against A^T times the twin's own tmp (checked above; in the -fmad
  // build its rounding would otherwise add up in y past the tolerance).
  check_columns("atax: y", a, tmp.data(), y, n);
  double library_ms = 0;
#ifndef BENCH_NOFMA
  Cublas cublas;
  const float one = 1.0f, zero = 0.0f;
  DeviceArray<float> dltmp(n), dly(n);
  auto library = [&] {
    cublas_check(cublasSgemv(cublas.handle, CUBLAS_OP_T, n, n, &one, da.p, n, dx.p, 1, &zero, dltmp.p, 1),
                 "cublasSgemv");
    cublas_check(cublasSgemv(cublas.handle, CUBLAS_OP_N, n, n, &one, da.p, n, dltmp.p, 1, &zero, dly.p, 1),
                 "cublasSgemv");
  };
  library();
  compare_library("atax", dly.download(), y);
  library_ms = time_runs(args, library);
#endif
  report(args, time_runs(args, launch), library_ms);
}

static void run_bicg(const Args& args) {
  const unsigned n = unsigned(args.size);
  const size_t nn = (size_t)n * n;
  HostArray<float> a = generate<float>(nn, [](uint64_t i) { return bench_unit(uint32_t(i), 15); });
  HostArray<float> r = generate<float>(n, [](uint64_t i) { return bench_unit(uint32_t(i), 16); });
  HostArray<float> p = generate<float>(n, [](uint64_t i) { return bench_unit(uint32_t(i), 17); });
  DeviceArray<float> da(a), dr(r), dp(p), ds(n), dq(n);
  auto launch = [&] {
    bicg_s<<<n / 256, 256>>>(da.p, dr.p, ds.p, n);
    bicg_q<<<n, 256>>>(da.p, dp.p, dq.p, n);
  };
  launch();
  HostArray<float> s = ds.download(), q = dq.download();
  check_columns("bicg: s", a, r.data(), s, n);
  check_rows("bicg: q", a, p, q, n);
  double library_ms = 0;
#ifndef BENCH_NOFMA
  Cublas cublas;
  const float one = 1.0f, zero = 0.0f;
  DeviceArray<float> dls(n), dlq(n);
  auto library = [&] {
    cublas_check(cublasSgemv(cublas.handle, CUBLAS_OP_N, n, n, &one, da.p, n, dr.p, 1, &zero, dls.p, 1),
                 "cublasSgemv");
    cublas_check(cublasSgemv(cublas.handle, CUBLAS_OP_T, n, n, &one, da.p, n, dp.p, 1, &zero, dlq.p, 1),
                 "cublasSgemv");
  };
  library();
  compare_library("bicg", dls.download(), s);
  compare_library("bicg", dlq.download(), q);
  library_ms = time_runs(args, library);
#endif
  report(args, time_runs(args, launch), library_ms);
}

// Sampled, as the bench checks it: tmp at 4096 elements (both corners
// included) against the CPU's alpha (A B); out at 64 rows x 64 columns (the
// first and last of each included) against beta D + the twin's own tmp row
// times C.
static void run_2mm(const Args& args) {
  const unsigned n = unsigned(args.size);
  const size_t nn = (size_t)n * n;
  HostArray<float> a = generate<float>(nn, [](uint64_t i) { return bench_unit(uint32_t(i), 18); });
  HostArray<float> b = generate<float>(nn, [](uint64_t i) { return bench_unit(uint32_t(i), 19); });
  HostArray<float> c = generate<float>(nn, [](uint64_t i) { return bench_unit(uint32_t(i), 20); });
  HostArray<float> d = generate<float>(nn, [](uint64_t i) { return bench_unit(uint32_t(i), 21); });
  DeviceArray<float> da(a), db(b), dc(c), dd(d), dtmp(nn), dout(nn);
  dim3 grid(n / 16, n / 16), block(16, 16);
  auto launch = [&] {
    mm2_tmp<<<grid, block>>>(da.p, db.p, dtmp.p, BENCH_ALPHA, n);
    mm2_out<<<grid, block>>>(dtmp.p, dc.p, dd.p, dout.p, BENCH_BETA, n);
  };
  launch();
  HostArray<float> tmp = dtmp.download(), out = dout.download();
  const size_t samples = std::min<size_t>(nn, 4096);
  parallel_for(samples, 16, [&](uint64_t begin, uint64_t end) {
    for (size_t s = begin; s < end; ++s) {
      size_t at = samples == nn ? s : (s == samples - 1 ? nn - 1 : bench_hash(uint32_t(s)) % nn);
      size_t row = at / n, col = at % n;
      float sum = 0.0f;
      double magnitude = 0;
      for (size_t k = 0; k < n; ++k) {
        float product = a[row * n + k] * b[k * n + col];
        sum += product;
        magnitude += std::fabs(product);
      }
      float want = BENCH_ALPHA * sum;
      bool ok = kExact ? same_bits(tmp[at], want) : std::fabs(tmp[at] - want) <= 1e-5 * BENCH_ALPHA * magnitude + 1e-6;
      if (!ok) fail("2mm: wrong tmp[" + std::to_string(row) + "][" + std::to_string(col) + "]");
    }
  });
  const size_t rows = std::min<size_t>(n, 64), columns = std::min<size_t>(n, 64);
  parallel_for(rows * columns, 16, [&](uint64_t begin, uint64_t end) {
    for (size_t s = begin; s < end; ++s) {
      size_t r = s / columns, q = s % columns;
      size_t row = rows == n ? r : r * (n - 1) / (rows - 1);
      size_t col = columns == n ? q : (q == columns - 1 ? n - 1 : bench_hash(uint32_t(q)) % n);
      float sum = 0.0f;
      double magnitude = 0;
      for (size_t k = 0; k < n; ++k) {
        float product = tmp[row * n + k] * c[k * n + col];
        sum += product;
        magnitude += std::fabs(product);
      }
      float scaled = BENCH_BETA * d[row * n + col], want = scaled + sum;
      size_t at = row * n + col;
      bool ok = kExact ? same_bits(out[at], want)
                       : std::fabs(out[at] - want) <= 1e-5 * (magnitude + std::fabs(scaled)) + 1e-6;
      if (!ok) fail("2mm: wrong out[" + std::to_string(row) + "][" + std::to_string(col) + "]");
    }
  });
  double library_ms = 0;
#ifndef BENCH_NOFMA
  // Two cublasSgemm in FP32 (row-major X Y is column-major Y^T X^T); the
  // second accumulates into a copy of D (cublasSgemm's C = alpha op(A)
  // op(B) + beta C is in place), so each run copies D first (2 n^2 floats
  // moved: under 1% of the run from n = 1024).
  Cublas cublas;
  const float alpha = BENCH_ALPHA, beta = BENCH_BETA, one = 1.0f, zero = 0.0f;
  DeviceArray<float> dltmp(nn), dlout(nn);
  auto library = [&] {
    cublas_check(cublasSgemm(cublas.handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, db.p, n, da.p, n, &zero,
                             dltmp.p, n),
                 "cublasSgemm");
    CHECK(cudaMemcpyAsync(dlout.p, dd.p, nn * sizeof(float), cudaMemcpyDeviceToDevice));
    cublas_check(cublasSgemm(cublas.handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, dc.p, n, dltmp.p, n, &beta,
                             dlout.p, n),
                 "cublasSgemm");
  };
  library();
  HostArray<float> lout = dlout.download();
  double largest = 1.0;
  for (size_t s = 0; s < 4096; ++s) largest = std::max(largest, (double)std::fabs(out[bench_hash(uint32_t(s)) % nn]));
  for (size_t s = 0; s < 4096; ++s) {
    size_t at = bench_hash(uint32_t(s)) % nn;
    if (!(std::fabs(lout[at] - out[at]) <= 1e-3 * largest)) fail("2mm: cuBLAS disagrees with the twin at " + std::to_string(at));
  }
  library_ms = time_runs(args, library);
#endif
  report(args, time_runs(args, launch), library_ms);
}

// A run: BENCH_FDTD_STEPS time steps t = 0, 1, ... of the two launches.
static void run_fdtd_2d(const Args& args) {
  const unsigned n = unsigned(args.size);
  const size_t nn = (size_t)n * n;
  HostArray<float> ex = generate<float>(nn, [](uint64_t i) { return bench_unit(uint32_t(i), 22); });
  HostArray<float> ey = generate<float>(nn, [](uint64_t i) { return bench_unit(uint32_t(i), 23); });
  HostArray<float> hz = generate<float>(nn, [](uint64_t i) { return bench_unit(uint32_t(i), 24); });
  DeviceArray<float> dex(ex), dey(ey), dhz(hz);
  dim3 grid(n / 16, n / 16), block(16, 16);
  auto launch = [&] {
    for (unsigned t = 0; t < BENCH_FDTD_STEPS; ++t) {
      fdtd_2d_e<<<grid, block>>>(dex.p, dey.p, dhz.p, n, t);
      fdtd_2d_h<<<grid, block>>>(dex.p, dey.p, dhz.p, n);
    }
  };
  launch();
  HostArray<float> gex = dex.download(), gey = dey.download(), ghz = dhz.download();
  for (unsigned t = 0; t < BENCH_FDTD_STEPS; ++t) {
    parallel_for(n, 16, [&](uint64_t begin, uint64_t end) {
      for (size_t i = begin; i < end; ++i)
        for (size_t j = 0; j < n; ++j) {
          size_t at = i * n + j;
          ey[at] = i == 0 ? float(t) : ey[at] - 0.5f * (hz[at] - hz[at - n]);
          if (j > 0) ex[at] = ex[at] - 0.5f * (hz[at] - hz[at - 1]);
        }
    });
    parallel_for(n - 1, 16, [&](uint64_t begin, uint64_t end) {
      for (size_t i = begin; i < end; ++i)
        for (size_t j = 0; j + 1 < n; ++j) {
          size_t at = i * n + j;
          hz[at] = hz[at] - 0.7f * (ex[at + 1] - ex[at] + ey[at + n] - ey[at]);
        }
    });
  }
  parallel_for(nn, 1 << 16, [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) {
      if (kExact ? !same_bits(gex[i], ex[i]) : !near(gex[i], ex[i], 1e-5)) fail("fdtd_2d: wrong ex[" + std::to_string(i) + "]");
      if (kExact ? !same_bits(gey[i], ey[i]) : !near(gey[i], ey[i], 1e-5)) fail("fdtd_2d: wrong ey[" + std::to_string(i) + "]");
      if (kExact ? !same_bits(ghz[i], hz[i]) : !near(ghz[i], hz[i], 1e-5)) fail("fdtd_2d: wrong hz[" + std::to_string(i) + "]");
    }
  });
  report(args, time_runs(args, launch));
}

// Every mean, deviation and normalised element, and the correlation matrix
// at 4096 elements (both corners and the last diagonal element included),
// as the bench checks them: bit for bit in the -fmad=false build (CUDA's
// division and sqrtf are correctly rounded by default), else with a
// tolerance.
static void run_correlation(const Args& args) {
  const unsigned n = unsigned(args.size);
  const size_t nn = (size_t)n * n;
  HostArray<float> data = generate<float>(nn, [](uint64_t i) { return bench_unit(uint32_t(i), 25); });
  DeviceArray<float> ddata(data), dmean(n), dstd(n), dnormal(nn), dcorr(nn);
  dim3 tiles(n / 16, n / 16), block(16, 16);
  auto launch = [&] {
    correlation_mean<<<n / 256, 256>>>(ddata.p, dmean.p, n);
    correlation_std<<<n / 256, 256>>>(ddata.p, dmean.p, dstd.p, n);
    correlation_normalize<<<tiles, block>>>(ddata.p, dmean.p, dstd.p, dnormal.p, n);
    correlation_corr<<<tiles, block>>>(dnormal.p, dcorr.p, n);
  };
  launch();
  HostArray<float> mean = dmean.download(), stddev = dstd.download(), normal = dnormal.download(), corr = dcorr.download();
  std::vector<float> want_mean(n), want_std(n);
  parallel_for(n, 256, [&](uint64_t begin, uint64_t end) {
    std::vector<float> sums(end - begin, 0.0f);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = begin; j < end; ++j) sums[j - begin] += data[i * n + j];
    for (size_t j = begin; j < end; ++j) want_mean[j] = sums[j - begin] / float(n);
    std::fill(sums.begin(), sums.end(), 0.0f);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = begin; j < end; ++j) {
        float d = data[i * n + j] - want_mean[j];
        sums[j - begin] += d * d;
      }
    for (size_t j = begin; j < end; ++j) {
      float s = std::sqrt(sums[j - begin] / float(n));
      want_std[j] = s <= 0.1f ? 1.0f : s;
    }
  });
  for (size_t j = 0; j < n; ++j) {
    if (kExact ? !same_bits(mean[j], want_mean[j]) : !(std::fabs(mean[j] - want_mean[j]) <= 1e-5))
      fail("correlation: wrong mean[" + std::to_string(j) + "]");
    if (kExact ? !same_bits(stddev[j], want_std[j]) : !near(stddev[j], want_std[j], 1e-5))
      fail("correlation: wrong stddev[" + std::to_string(j) + "]");
  }
  auto want_normal = [&](size_t at) {
    size_t j = at % n;
    return (data[at] - want_mean[j]) / (std::sqrt(float(n)) * want_std[j]);
  };
  const float unit = 1.0f / std::sqrt(float(n));
  parallel_for(nn, 1 << 16, [&](uint64_t begin, uint64_t end) {
    for (uint64_t at = begin; at < end; ++at) {
      float want = want_normal(at);
      bool ok = kExact ? same_bits(normal[at], want) : std::fabs(normal[at] - want) <= 1e-4 * std::max(std::fabs(want), unit);
      if (!ok) fail("correlation: wrong normal[" + std::to_string(at) + "]");
    }
  });
  const size_t samples = std::min<size_t>(nn, 4096);
  parallel_for(samples, 16, [&](uint64_t begin, uint64_t end) {
    for (size_t s = begin; s < end; ++s) {
      size_t at = samples == nn ? s : (s + 2 >= samples ? (s + 2 == samples ? n - 1 : nn - 1) : bench_hash(uint32_t(s)) % nn);
      size_t row = at / n, col = at % n, i = std::min(row, col), j = std::max(row, col);
      float want = 1.0f;
      if (i != j) {
        want = 0.0f;
        for (size_t k = 0; k < n; ++k) want += want_normal(k * n + i) * want_normal(k * n + j);
      }
      if (kExact ? !same_bits(corr[at], want) : !(std::fabs(corr[at] - want) <= 1e-4))
        fail("correlation: wrong corr[" + std::to_string(row) + "][" + std::to_string(col) + "]");
    }
  });
  report(args, time_runs(args, launch));
}

static void run_launch(const Args& args) {
  const unsigned launches = unsigned(args.size);
  DeviceArray<unsigned> counter(1);
  CHECK(cudaMemset(counter.p, 0, 4));
  auto all = [&] {
    for (unsigned i = 0; i < launches; ++i) bump<<<1, 64>>>(counter.p);
  };
  all();
  if (counter.download()[0] != launches) fail("launch: the counter is wrong");
  report(args, time_runs(args, all));
}

// The synchronous call: --size calls of one bump launch, each a
// cudaLaunchKernel followed by cudaDeviceSynchronize, timed on the host's
// clock (host overhead included, as the bench's sync row times kernel(...)
// and a raw Vulkan submit-and-wait); ms is the median of --runs samples of
// all the calls.
static void run_sync(const Args& args) {
  const unsigned calls = unsigned(args.size);
  DeviceArray<unsigned> counter(1);
  CHECK(cudaMemset(counter.p, 0, 4));
  void* kernel_args[] = {&counter.p};
  auto call = [&] {
    CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(&bump), dim3(1), dim3(64), kernel_args, 0, nullptr));
    CHECK(cudaDeviceSynchronize());
  };
  call();  // warm-up
  std::vector<double> samples;
  for (unsigned r = 0; r < args.runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (unsigned i = 0; i < calls; ++i) call();
    samples.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  CHECK(cudaGetLastError());
  if (counter.download()[0] != 1 + calls * args.runs) fail("sync: the counter is wrong");
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  report(args, n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]));
}

static int run(int argc, char** argv) {
  Args args;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string key = argv[i], value = argv[i + 1];
    if (key == "--workload") args.workload = value;
    else if (key == "--size") args.size = std::strtoull(value.c_str(), nullptr, 10);
    else if (key == "--groups") args.groups = unsigned(std::strtoul(value.c_str(), nullptr, 10));
    else if (key == "--iters") args.iters = unsigned(std::strtoul(value.c_str(), nullptr, 10));
    else if (key == "--runs") args.runs = unsigned(std::strtoul(value.c_str(), nullptr, 10));
    else fail("unknown option " + key);
  }
  if (args.size == 0 || args.iters == 0 || args.runs == 0 || args.groups == 0) fail("bad or missing --size/--iters/--runs/--groups");
  const std::string& w = args.workload;
  if (w == "triad") run_triad(args);
  else if (w == "reduce") run_reduce(args);
  else if (w == "mandelbrot") run_mandelbrot(args);
  else if (w == "sgemm") run_sgemm(args);
  else if (w == "stencil") run_stencil(args);
  else if (w == "horner_f64") run_horner(args);
  else if (w == "histogram") run_histogram(args);
  else if (w == "particles") run_particles(args);
  else if (w == "jacobi_2d") run_jacobi_2d(args);
  else if (w == "gesummv") run_gesummv(args);
  else if (w == "atax") run_atax(args);
  else if (w == "bicg") run_bicg(args);
  else if (w == "2mm") run_2mm(args);
  else if (w == "fdtd_2d") run_fdtd_2d(args);
  else if (w == "correlation") run_correlation(args);
  else if (w == "launch") run_launch(args);
  else if (w == "sync") run_sync(args);
  else fail("unknown workload '" + w + "'");
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wasmgpu-bench-cuda: %s\n", e.what());
    return 1;
  }
}
