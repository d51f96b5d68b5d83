// The device heap through the public API (docs/kernel-guide.md, "Heap
// allocation"): C's malloc/free/calloc/realloc (tests/kernels-heap/heap.c),
// a Rust Vec through rust/wasmgpu.rs's global allocator (heap_vec.rs) and
// AssemblyScript's `new` through assemblyscript/heap_runtime.ts
// (heap_new.ts), each against a CPU reference, over thousands of
// invocations at once. CTest runs it on the default device (lavapipe in CI)
// and on the cpu device (heap.cpu).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "wasmgpu/wasmgpu.hpp"

namespace wasmgpu {
namespace {

std::string heap_kernel(const std::string& name) {
  const std::string path = std::string(WASMGPU_HEAP_KERNELS_DIR) + "/" + name + ".wasm";
  EXPECT_TRUE(std::filesystem::exists(path))
      << "missing " << path << ": its compiler was not found; run scripts/install-deps.sh and configure again";
  return path;
}

// The heap's geometry as src/api/heap.cpp computes it: 4 KiB pages after
// the metadata (64 bytes and 36 per page, rounded up to a page).
uint32_t pages_of(uint64_t heap_bytes) {
  uint64_t pages = heap_bytes / (4096 + 36);
  while (pages > 0 && (64 + 36 * pages + 4095) / 4096 * 4096 + pages * 4096 > heap_bytes) --pages;
  return uint32_t(pages);
}

class HeapTest : public ::testing::Test {
 public:
  void SetUp() override {
    clear_validation_messages();
    device.emplace(Device::open());
  }
  void TearDown() override {
    device.reset();
    for (const std::string& message : validation_messages()) ADD_FAILURE() << "validation: " << message;
    clear_validation_messages();
  }
  Module load(const std::string& name, std::optional<uint64_t> heap_bytes = std::nullopt) {
    ModuleOptions options;
    options.heap_bytes = heap_bytes;
    return device->load_file(heap_kernel(name), options);
  }

  std::optional<Device> device;
};

// heap.c's block of invocation i: its size in words, and its checksum.
uint32_t words_of(uint32_t i, uint32_t big) { return big && i % 16 == 0 ? 1024 + i % 700 : 1 + i * 7 % 97; }
uint32_t sum_of(uint32_t i, uint32_t big) {
  uint32_t sum = 0;
  for (uint32_t j = 0; j < words_of(i, big); ++j) sum += (i * 2654435761u + j * 40503u) * (j + 1);
  return sum;
}

// Every invocation got a block of its own: inside the heap's pages, at least
// 16-byte aligned, no two live blocks overlapping.
void expect_disjoint_blocks(const std::vector<uint32_t>& addrs, uint32_t big) {
  std::vector<std::pair<uint32_t, uint32_t>> blocks;
  for (uint32_t i = 0; i < addrs.size(); ++i) {
    ASSERT_NE(addrs[i], 0u) << "invocation " << i << " got NULL";
    EXPECT_EQ(addrs[i] % 16, 0u) << "invocation " << i;
    blocks.emplace_back(addrs[i], addrs[i] + 4 * words_of(i, big));
  }
  std::sort(blocks.begin(), blocks.end());
  for (size_t k = 1; k < blocks.size(); ++k)
    ASSERT_LE(blocks[k - 1].second, blocks[k].first)
        << "blocks at 0x" << std::hex << blocks[k - 1].first << " and 0x" << blocks[k].first << " overlap";
}

// 4,096 invocations each allocate, fill and sum a block; a second launch
// sums every block again (an overlap would have changed one) and frees it;
// a third allocation round runs in the freed heap.
void malloc_write_check_free(HeapTest& test, Module& module, uint32_t n, uint32_t big) {
  Buffer<uint32_t> addrs = test.device->buffer<uint32_t>(n), sums = test.device->buffer<uint32_t>(n);
  std::vector<uint32_t> expected(n);
  for (uint32_t i = 0; i < n; ++i) expected[i] = sum_of(i, big);
  for (int round = 0; round < 2; ++round) {
    module.kernel("alloc_write")(n, addrs, sums, n, big);
    const std::vector<uint32_t> at = addrs.read();
    expect_disjoint_blocks(at, big);
    EXPECT_EQ(sums.read(), expected) << "round " << round << ": the sums read back at once";
    sums.write(std::vector<uint32_t>(n, 0));
    module.kernel("check_free")(n, addrs, sums, n, big);
    EXPECT_EQ(sums.read(), expected) << "round " << round << ": the sums in the next launch";
  }
}

TEST_F(HeapTest, CMallocOver4096InvocationsEachWritesItsOwnBlock) {
  Module module = load("heap");
  malloc_write_check_free(*this, module, 4096, 0);
}

TEST_F(HeapTest, CLiveBlocksOfSmallAndWholePageSizesNeverOverlap) {
  Module module = load("heap");
  malloc_write_check_free(*this, module, 2048, 1);
}

TEST_F(HeapTest, CExhaustedHeapGivesNullNotATrap) {
  // 64 KiB: 15 pages of 4 KiB, each four 1 KiB blocks once the class has it.
  const uint64_t heap_bytes = 64 << 10;
  ASSERT_EQ(pages_of(heap_bytes), 15u);
  Module module = load("heap", heap_bytes);
  const uint32_t n = 256;
  Buffer<uint32_t> out = device->buffer<uint32_t>(n);
  module.kernel("exhaust")(n, out, n, 1000u);
  uint64_t total = 0;
  const std::vector<uint32_t> counts = out.read();
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t v = counts[i];
    EXPECT_TRUE(v >> 31) << "invocation " << i << ": malloc(1 GiB) or an overflowing calloc was not NULL";
    total += v & 0x7fffffff;
  }
  EXPECT_EQ(total, 15u * 4) << "the 1 KiB blocks handed out by a 15-page heap";
  // Full still: a second launch gets nothing more, and still no trap.
  module.kernel("exhaust")(n, out, n, 16u);
  const std::vector<uint32_t> again = out.read();
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(again[i], 1u << 31) << "invocation " << i;
}

TEST_F(HeapTest, CFreeReusesBlocks) {
  // 256 KiB: 63 pages. 64 invocations x 30 rounds of 32, 128 and 1024 bytes
  // by turns is 780 KiB, which fits only when freed blocks are reused.
  const uint64_t heap_bytes = 256 << 10;
  ASSERT_EQ(pages_of(heap_bytes), 63u);
  Module module = load("heap", heap_bytes);
  const uint32_t n = 64, rounds = 30;
  Buffer<uint32_t> out = device->buffer<uint32_t>(n);
  for (int launch = 0; launch < 2; ++launch) {
    module.kernel("churn")(n, out, n, rounds);
    EXPECT_EQ(out.read(), std::vector<uint32_t>(n, rounds)) << "launch " << launch;
  }
}

TEST_F(HeapTest, CReallocMovesKeepingTheContentsAndShrinksInPlace) {
  // 128 KiB: 31 pages. 4 launches of 48 invocations' blocks of 32, 128 and
  // 1024 bytes (222 KiB) fit only when realloc frees what it moved from.
  ASSERT_EQ(pages_of(128 << 10), 31u);
  Module module = load("heap", 128 << 10);
  const uint32_t n = 48;
  Buffer<uint32_t> out = device->buffer<uint32_t>(n);
  for (int launch = 0; launch < 4; ++launch) {
    module.kernel("realloc_chain")(n, out, n);
    EXPECT_EQ(out.read(), std::vector<uint32_t>(n, 1)) << "launch " << launch;
  }
}

TEST_F(HeapTest, CCallocZeroesAReusedBlock) {
  Module module = load("heap");
  const uint32_t n = 1024;
  Buffer<uint32_t> out = device->buffer<uint32_t>(n);
  module.kernel("calloc_zeroes")(n, out, n);
  EXPECT_EQ(out.read(), std::vector<uint32_t>(n, 1));
}

TEST_F(HeapTest, HeapSizeOutsideItsBoundsIsRefused) {
  try {
    load("heap", 4096);
    ADD_FAILURE() << "a 4 KiB heap was accepted";
  } catch (const Exception& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("it must hold 8 KiB to 1 GiB"), std::string::npos) << e.what();
  }
}

// heap_vec.rs: 3 to 40 values pushed into a Vec (grown by realloc), the
// odd ones kept, their count and weighted sum.
TEST_F(HeapTest, RustVecThroughTheGlobalAllocator) {
  Module module = load("heap_vec");
  const uint32_t n = 4096;
  std::vector<uint32_t> seeds(n);
  for (uint32_t i = 0; i < n; ++i) seeds[i] = i * 2246822519u + 374761393u;
  Buffer<uint32_t> in = device->upload(seeds), out = device->buffer<uint32_t>(2 * n);
  std::vector<uint32_t> expected(2 * n);
  for (uint32_t i = 0; i < n; ++i) {
    std::vector<uint32_t> values;
    uint32_t x = seeds[i];
    for (uint32_t k = 0; k < 3 + seeds[i] % 38; ++k) {
      x = x * 1664525u + 1013904223u;
      if ((x >> 8) & 1) values.push_back(x >> 8);
    }
    uint32_t sum = 0;
    for (uint32_t k = 0; k < values.size(); ++k) sum += values[k] * (k + 1);
    expected[2 * i] = uint32_t(values.size());
    expected[2 * i + 1] = sum;
  }
  for (int launch = 0; launch < 3; ++launch) {  // each Vec is freed: the heap is reused
    out.write(std::vector<uint32_t>(2 * n, 0xdeadbeef));
    module.kernel("vec_sums")(n, in, out, n);
    EXPECT_EQ(out.read(), expected) << "launch " << launch;
  }
}

// heap_new.ts: `new Vec2(...)` three times and a `new Array<f32>(4)` per
// invocation, over 2,048 invocations.
TEST_F(HeapTest, AssemblyScriptNewOver2048Invocations) {
  Module module = load("heap_new");
  const uint32_t n = 2048;
  std::vector<float> xs(2 * n);
  for (uint32_t i = 0; i < 2 * n; ++i) xs[i] = float(int(i % 97) - 48) * 0.25f;
  Buffer<float> in = device->upload(xs), out = device->buffer<float>(2 * n);
  Buffer<uint32_t> where = device->buffer<uint32_t>(n);
  module.kernel("vec2")(n, in, out, where, n);
  std::vector<float> expected(2 * n);
  for (uint32_t i = 0; i < n; ++i) {
    const float x = xs[2 * i], y = xs[2 * i + 1];
    float sum = 0;
    for (int k = 0; k < 4; ++k) sum += float(k) * x;
    expected[2 * i] = (x + 1.0f) * 3.0f + sum;
    expected[2 * i + 1] = (y + 2.0f) * 3.0f;
  }
  const std::vector<float> got = out.read();
  for (uint32_t i = 0; i < 2 * n; ++i) ASSERT_EQ(got[i], expected[i]) << "value " << i;
  // Each invocation's result object is its own (16-byte aligned, 8 bytes of
  // fields after the header, 32-byte blocks apart at least).
  const std::vector<uint32_t> objects = where.read();
  std::set<uint32_t> distinct(objects.begin(), objects.end());
  EXPECT_EQ(distinct.size(), n);
  for (uint32_t a : objects) EXPECT_EQ(a % 16, 0u);
}

}  // namespace
}  // namespace wasmgpu
