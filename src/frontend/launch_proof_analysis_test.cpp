// The launch proofs (abi/launch_proof.h) end to end: the compiler records
// the accesses of real kernels (the bench's C kernels and small wat ones),
// and abi::proven_params proves them for launches whose buffers hold every
// access, and refuses where one access would leave its buffer.
#include "frontend/launch_proof_analysis.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "spirv/test_util.h"

namespace wasmgpu::frontend {
namespace {

// Checked through what the SPIR-V back end makes of the facts.
using spirv::CompiledKernel;
namespace testing = spirv::testing;

using abi::LaunchRanges;
using abi::ProvenRegion;
using Regions = std::vector<std::optional<ProvenRegion>>;

const std::string kBenchKernels = std::string(WASMGPU_INCLUDE_DIR) + "/../bench/kernels/";

// Export `kernel` (by default the file's own name) of bench/kernels/`file`.c.
CompiledKernel bench_kernel(const std::string& file, const std::string& kernel = "") {
  std::ifstream in(kBenchKernels + file + ".c");
  std::stringstream source;
  source << in.rdbuf();
  EXPECT_FALSE(source.str().empty()) << "cannot read " << file << ".c";
  return testing::expect_compiles(
      testing::c_to_wasm(source.str(), "-O2", "-I" + std::string(WASMGPU_INCLUDE_DIR) + " -I" + kBenchKernels),
      kernel.empty() ? file : kernel);
}

// Buffers at distinct 256 MiB-aligned wasm addresses above kBufferAddressBase.
constexpr uint64_t buffer_address(int i) { return 0x1000'0000ull * uint64_t(i + 1); }
std::optional<ProvenRegion> buffer(int i, uint64_t bytes) { return ProvenRegion{buffer_address(i), bytes}; }

LaunchRanges linear(uint32_t n, uint32_t workgroup) {
  LaunchRanges r;
  r.count = n;
  r.workgroup_size[0] = workgroup;
  r.workgroups[0] = (n + workgroup - 1) / workgroup;
  return r;
}

LaunchRanges grid(uint32_t x, uint32_t y, uint32_t size_x, uint32_t size_y) {
  LaunchRanges r;
  r.grid = true;
  r.count = x * y * size_x * size_y;
  r.workgroup_size[0] = size_x, r.workgroup_size[1] = size_y;
  r.workgroups[0] = x, r.workgroups[1] = y;
  return r;
}

constexpr uint32_t bit(uint32_t param) { return uint32_t(1) << param; }

TEST(LaunchProof, TriadIsProvenForBuffersOfNFloats) {
  // triad(index, a, b, c, s, n): a[i] = b[i] + s * c[i] for i < n.
  CompiledKernel k = bench_kernel("triad");
  ASSERT_EQ(k.info.launch_proof.accesses.size(), 3u);
  const uint32_t n = 1000;
  const std::vector<uint64_t> args = {buffer_address(0), buffer_address(1), buffer_address(2), 0, n};
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, linear(n, 256), args,
                               Regions{buffer(0, 4 * n), buffer(1, 4 * n), buffer(2, 4 * n), {}, {}}),
            bit(1) | bit(2) | bit(3));
  // One float short in c: only c's access is left to its check.
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, linear(n, 256), args,
                               Regions{buffer(0, 4 * n), buffer(1, 4 * n), buffer(2, 4 * n - 4), {}, {}}),
            bit(1) | bit(2));
  // More invocations than n: the kernel's own `i < n` keeps them inside.
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, linear(n + 300, 256), args,
                               Regions{buffer(0, 4 * n), buffer(1, 4 * n), buffer(2, 4 * n), {}, {}}),
            bit(1) | bit(2) | bit(3));
  // n larger than the buffers: nothing is proven.
  const std::vector<uint64_t> long_n = {buffer_address(0), buffer_address(1), buffer_address(2), 0, n + 1};
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, linear(n + 1, 256), long_n,
                               Regions{buffer(0, 4 * n), buffer(1, 4 * n), buffer(2, 4 * n), {}, {}}),
            0u);
  // An argument that points into no buffer proves nothing for it.
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, linear(n, 256), args,
                               Regions{std::nullopt, buffer(1, 4 * n), buffer(2, 4 * n), {}, {}}),
            bit(2) | bit(3));
}

TEST(LaunchProof, StencilNeighboursAreProvenByItsBoundaryTest) {
  // stencil(index, in, out, w, h) on a grid of 16 x 16 workgroups: the
  // neighbours at - w, at + w, at +- 1 are read only where x and y are
  // inside the boundary, which the analysis takes from the br_ifs.
  CompiledKernel k = bench_kernel("stencil");
  EXPECT_EQ(k.info.launch_proof.accesses.size(), 6u);
  const uint32_t w = 64, h = 48;
  const std::vector<uint64_t> args = {buffer_address(0), buffer_address(1), w, h};
  const Regions exact{buffer(0, 4 * w * h), buffer(1, 4 * w * h), {}, {}};
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, grid(w / 16, h / 16, 16, 16), args, exact), bit(1) | bit(2));
  // A grid wider than w: the centre load of the columns past w leaves `in`
  // (rows wrap into the next), the last row's past the end.
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, grid(w / 16 + 1, h / 16, 16, 16), args, exact), 0u);
  // A grid one row of workgroups taller than h reads and writes past both.
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, grid(w / 16, h / 16 + 1, 16, 16), args, exact), 0u);
}

TEST(LaunchProof, SgemmStagingLoadsAreProvenThroughItsCountedLoop) {
  // sgemm(index, a, b, c, n): the k loop (k = 0; k < n; k += 8) stages
  // a[row][k + q] and b[k + r][col]; the analysis bounds k by n - 8.
  CompiledKernel k = bench_kernel("sgemm");
  const uint32_t n = 256;
  const std::vector<uint64_t> args = {buffer_address(0), buffer_address(1), buffer_address(2), n};
  const uint64_t bytes = 4ull * n * n;
  LaunchRanges shape = grid(n / 128, n / 128, 256, 1);
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, shape, args,
                               Regions{buffer(0, bytes), buffer(1, bytes), buffer(2, bytes), {}}),
            bit(1) | bit(2) | bit(3));
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, shape, args,
                               Regions{buffer(0, bytes), buffer(1, bytes - 4), buffer(2, bytes - 4), {}}),
            bit(1));
  // n not a multiple of 8: the last k step reads past the rows' ends.
  const std::vector<uint64_t> odd = {buffer_address(0), buffer_address(1), buffer_address(2), n - 4};
  const uint64_t odd_bytes = 4ull * (n - 4) * (n - 4);
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, shape, odd,
                               Regions{buffer(0, odd_bytes), buffer(1, odd_bytes), buffer(2, odd_bytes), {}}) &
                bit(2),
            0u);
}

// SGEMM's staging loads are four words of A and of B whose 16-alignment the
// compiler cannot know: the launch proves it (ProofAccess::align), so that
// the shader takes one 16-byte load with no subgroup vote.
TEST(LaunchProof, SgemmStagingLoadsAreProvenAligned) {
  CompiledKernel k = bench_kernel("sgemm");
  std::vector<uint32_t> aligned;
  for (const abi::ProofAccess& access : k.info.launch_proof.accesses)
    if (access.align > 1) {
      aligned.push_back(access.param);
      EXPECT_EQ(access.align, 16u);
    }
  std::sort(aligned.begin(), aligned.end());
  EXPECT_EQ(aligned, (std::vector<uint32_t>{1, 2}));
  const uint32_t n = 256;
  const uint64_t bytes = 4ull * n * n;
  LaunchRanges shape = grid(n / 128, n / 128, 256, 1);
  const std::vector<uint64_t> args = {buffer_address(0), buffer_address(1), buffer_address(2), n};
  Regions regions{buffer(0, bytes), buffer(1, bytes), buffer(2, bytes), {}};
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, shape, args, regions), bit(1) | bit(2) | bit(3));
  // A one float into its buffer: every row of A starts 4 bytes past a
  // multiple of 16, so A keeps its checks and votes.
  const std::vector<uint64_t> shifted = {buffer_address(0) + 4, buffer_address(1), buffer_address(2), n};
  Regions roomy{buffer(0, bytes + 16), buffer(1, bytes), buffer(2, bytes), {}};
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, shape, shifted, roomy), bit(2) | bit(3));
  // The same wasm addresses in a buffer whose device address is 8 bytes off
  // a multiple of 16.
  Regions device_off = regions;
  device_off[1]->device_base = 8;
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, shape, args, device_off), bit(1) | bit(3));
}

TEST(LaunchProof, GridStrideLoopOverBytesIsProven) {
  // histogram(index, data, n, bins): a grid-stride loop over n bytes, by the
  // launch's workgroup count, its bins written through atomics (not recorded).
  CompiledKernel k = bench_kernel("histogram");
  const uint32_t n = 100000;
  const std::vector<uint64_t> args = {buffer_address(0), n, buffer_address(1)};
  EXPECT_EQ(
      abi::proven_params(k.info.launch_proof, linear(64 * 256, 256), args, Regions{buffer(0, n), {}, buffer(1, 1024)}),
      bit(1));
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, linear(64 * 256, 256), args,
                               Regions{buffer(0, n - 1), {}, buffer(1, 1024)}),
            0u);
  // The bench launches it as a grid of 64 workgroups: the same stride.
  EXPECT_EQ(
      abi::proven_params(k.info.launch_proof, grid(64, 1, 256, 1), args, Regions{buffer(0, n), {}, buffer(1, 1024)}),
      bit(1));
}

TEST(LaunchProof, PointerSteppedWithTheLoopCounterIsProven) {
  // reduce(index, in, n, partial): a grid-stride loop whose pointer (clang's
  // strength reduction) steps by 4 times its index's stride: the analysis
  // relates the two (in + 4 * i), so the loads are bounded by i < n.
  CompiledKernel k = bench_kernel("reduce");
  const uint32_t n = 100000, groups = 64;
  const std::vector<uint64_t> args = {buffer_address(0), n, buffer_address(1)};
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, grid(groups, 1, 256, 1), args,
                               Regions{buffer(0, 4 * n), {}, buffer(1, 4 * groups)}),
            bit(1) | bit(3));
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, grid(groups, 1, 256, 1), args,
                               Regions{buffer(0, 4 * n - 4), {}, buffer(1, 4 * groups)}),
            bit(3));
}

TEST(LaunchProof, CompanionsNeedAStepInProportion) {
  // $p steps by 8 while $i steps by 2, and $q by $s: $p is $p0 + 4 * ($i - 0)
  // (its loads proven for i < n); $s need not be even, so $q is no
  // companion and its store is not recorded.
  CompiledKernel k = testing::compile_wat(R"((module (memory 1)
    (func (export "k") (param $x i32) (param $a i32) (param $n i32) (param $b i32) (param $s i32)
      (local $i i32) (local $p i32) (local $q i32)
      (local.set $p (local.get $a))
      (local.set $q (local.get $b))
      (loop $l
        (i64.store (local.get $q) (i64.load (local.get $p)))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (local.set $q (i32.add (local.get $q) (local.get $s)))
        (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 2))) (local.get $n)))))))");
  ASSERT_EQ(k.info.launch_proof.accesses.size(), 1u);
  // i takes 0, 2, .., 8 for n = 10: five loads, the last at a + 32.
  const std::vector<uint64_t> args = {buffer_address(0), 10, buffer_address(1), 8};
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, linear(4, 4), args, Regions{buffer(0, 40), {}, buffer(1, 80), {}}),
            bit(1));
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, linear(4, 4), args, Regions{buffer(0, 39), {}, buffer(1, 80), {}}),
            0u);
}

TEST(LaunchProof, CompanionsMayStepByAnArgument) {
  // $q steps by the argument $s while $i steps by 1: $q is $b + $s * $i on
  // every trip, a product the launch bounds with the argument's value.
  // The test reads `n i ne`, the operands the other way round.
  CompiledKernel k = testing::compile_wat(R"((module (memory 1)
    (func (export "k") (param $x i32) (param $a i32) (param $n i32) (param $b i32) (param $s i32)
      (local $i i32) (local $q i32)
      (local.set $q (local.get $b))
      (loop $l
        (i32.store (local.get $q) (i32.const 1))
        (local.set $q (i32.add (local.get $q) (local.get $s)))
        (br_if $l (i32.ne (local.get $n) (local.tee $i (i32.add (local.get $i) (i32.const 1)))))))))");
  ASSERT_EQ(k.info.launch_proof.accesses.size(), 1u);
  // n = 10 stores, s = 12 bytes apart: the last at b + 108, ending at b + 112.
  const std::vector<uint64_t> args = {0, 10, buffer_address(1), 12};
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, linear(4, 4), args, Regions{{}, {}, buffer(1, 112), {}}), bit(3));
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, linear(4, 4), args, Regions{{}, {}, buffer(1, 111), {}}), 0u);
  // A stride that wraps past 2^32 proves nothing.
  const std::vector<uint64_t> huge = {0, 10, buffer_address(1), 0x2000'0000};
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, linear(4, 4), huge, Regions{{}, {}, buffer(1, 112), {}}), 0u);
}

TEST(LaunchProof, ColumnSumsAreProvenDownTheirColumn) {
  // atax_atx(index, a, tmp, y, n): y[j] = sum over i < n of a[i * n + j] * tmp[i].
  // clang steps a pointer down column j by 4 * n (8 * n, unrolled by two)
  // and folds the counter's increment into the loop's test.
  CompiledKernel k = bench_kernel("atax", "atax_atx");
  const uint32_t n = 512;
  const std::vector<uint64_t> args = {buffer_address(0), buffer_address(1), buffer_address(2), n};
  const Regions exact{buffer(0, 4ull * n * n), buffer(1, 4 * n), buffer(2, 4 * n), {}};
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, linear(n, 256), args, exact), bit(1) | bit(2) | bit(3));
  // One float short in a: the column walk's last load leaves it.
  const Regions short_a{buffer(0, 4ull * n * n - 4), buffer(1, 4 * n), buffer(2, 4 * n), {}};
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, linear(n, 256), args, short_a), bit(2) | bit(3));
}

TEST(LaunchProof, UnknownAddressesAreNotRecorded) {
  // The second address comes from memory: that access keeps its check,
  // and does not keep the first one's parameter from being proven.
  CompiledKernel k = testing::compile_wat(R"((module (memory 1)
    (func (export "k") (param $i i32) (param $p i32) (param $q i32)
      (i32.store (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 2))) (i32.const 1))
      (i32.store (i32.load (local.get $q)) (i32.const 2)))))");
  ASSERT_EQ(k.info.launch_proof.accesses.size(), 2u);  // p's store and q's load
  const std::vector<uint64_t> args = {buffer_address(0), buffer_address(1)};
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, linear(64, 64), args, Regions{buffer(0, 256), buffer(1, 16)}),
            bit(1) | bit(2));
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, linear(65, 64), args, Regions{buffer(0, 256), buffer(1, 16)}),
            bit(2));
  // The proof is the shader's: its checks test the specialization constant.
  EXPECT_NE(testing::disassembly(k).find("SpecId 5"), std::string::npos);
}

TEST(LaunchProof, AnElseArmKnowsTheConditionFailed) {
  // p[i] for i < n, p[i - n] otherwise: both inside 4n bytes for 2n invocations.
  CompiledKernel k = testing::compile_wat(R"((module (memory 1)
    (func (export "k") (param $i i32) (param $p i32) (param $n i32)
      (if (i32.lt_u (local.get $i) (local.get $n))
        (then (i32.store (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 2))) (i32.const 1)))
        (else (i32.store (i32.add (local.get $p) (i32.shl (i32.sub (local.get $i) (local.get $n)) (i32.const 2)))
                         (i32.const 2)))))))");
  ASSERT_EQ(k.info.launch_proof.accesses.size(), 2u);
  const uint32_t n = 50;
  const std::vector<uint64_t> args = {buffer_address(0), n};
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, linear(2 * n, 64), args, Regions{buffer(0, 4 * n), {}}), bit(1));
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, linear(2 * n + 1, 64), args, Regions{buffer(0, 4 * n), {}}), 0u);
}

TEST(LaunchProof, BranchFactsEndWithTheirConstruct) {
  // Past its block, the br_if's `i < n` no longer holds: the second store
  // reaches p[n] when n + 1 invocations run.
  CompiledKernel k = testing::compile_wat(R"((module (memory 1)
    (func (export "k") (param $i i32) (param $p i32) (param $n i32)
      (block
        (br_if 0 (i32.ge_u (local.get $i) (local.get $n)))
        (i32.store (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 2))) (i32.const 1)))
      (i32.store offset=0 (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 2))) (i32.const 2)))))");
  ASSERT_EQ(k.info.launch_proof.accesses.size(), 2u);
  const uint32_t n = 50;
  const std::vector<uint64_t> args = {buffer_address(0), n};
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, linear(n, 64), args, Regions{buffer(0, 4 * n), {}}), bit(1));
  EXPECT_EQ(abi::proven_params(k.info.launch_proof, linear(n + 1, 64), args, Regions{buffer(0, 4 * n), {}}), 0u);
}

TEST(LaunchProof, LoopsForgetWhatTheyWrite) {
  // $a is set to a bad address inside the loop: after it, it is unknown,
  // however the loop was left.
  CompiledKernel k = testing::compile_wat(R"((module (memory 1)
    (func (export "k") (param $i i32) (param $p i32) (param $n i32) (local $a i32) (local $j i32)
      (local.set $a (local.get $p))
      (loop $l
        (local.set $a (i32.add (local.get $p) (i32.const 4096)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br_if $l (i32.lt_u (local.get $j) (local.get $n))))
      (i32.store (local.get $a) (i32.const 1)))))");
  EXPECT_TRUE(k.info.launch_proof.accesses.empty());
}

}  // namespace
}  // namespace wasmgpu::frontend
