#include "spirv/test_util.h"

namespace wasmgpu::spirv::testing {
namespace {

TEST(MemoryAccess, EveryLoadAndStoreWidth) {
  CompiledKernel k = compile_wat(R"((module (memory 2)
    (func (export "k") (param $p i32) (param $q i64)
      (i32.store (local.get $p) (i32.load (local.get $p)))
      (i64.store offset=8 (local.get $p) (i64.load offset=16 (local.get $p)))
      (f32.store (local.get $p) (f32.load align=1 (local.get $p)))
      (f64.store (local.get $p) (f64.load (local.get $p)))
      (i32.store8 (local.get $p) (i32.load8_s (local.get $p)))
      (i32.store8 (local.get $p) (i32.load8_u (local.get $p)))
      (i32.store16 (local.get $p) (i32.load16_s (local.get $p)))
      (i32.store16 (local.get $p) (i32.load16_u (local.get $p)))
      (i64.store8 (local.get $p) (i64.load8_s (local.get $p)))
      (i64.store8 (local.get $p) (i64.load8_u (local.get $p)))
      (i64.store16 (local.get $p) (i64.load16_s (local.get $p)))
      (i64.store16 (local.get $p) (i64.load16_u (local.get $p)))
      (i64.store32 (local.get $p) (i64.load32_s offset=0xFFFFFFFF (local.get $p)))
      (i64.store32 (local.get $p) (i64.load32_u (local.get $p)))
      (drop (memory.size))
      (drop (memory.grow (i32.const 1))))))");
  EXPECT_EQ(k.info.memory_bytes, 2u * 65536);
  EXPECT_TRUE(k.info.uses_int8_storage);
  std::string text = disassembly(k);
  EXPECT_NE(text.find("PhysicalStorageBuffer"), std::string::npos);
  EXPECT_NE(text.find("Aligned 8"), std::string::npos);
  EXPECT_NE(text.find("Aligned 1"), std::string::npos);
}

TEST(MemoryAccess, BulkMemory) {
  compile_wat(R"((module (memory 1)
    (func (export "k") (param $p i32) (param $n i32)
      (memory.fill (local.get $p) (i32.const 0xAB) (local.get $n))
      (memory.copy (i32.add (local.get $p) (i32.const 3)) (local.get $p) (local.get $n)))))");
}

// C kernels that touch every access width, unaligned (packed) fields, the
// stack at -O0 and bulk memory (memcpy/memset with -mbulk-memory).
constexpr const char* kCKernels = R"(
typedef struct __attribute__((packed)) { char c; int i; long long l; short s; double d; float f; } Packed;
__attribute__((export_name("unaligned"))) void unaligned(int idx, unsigned char *buf, long long *out) {
  Packed *p = (Packed *)(buf + 40 * idx + (idx % 7));
  p->c = (char)idx; p->i = idx * 3; p->l = idx * 5LL; p->s = (short)idx; p->d = idx * 0.5; p->f = idx;
  out[idx] = p->c + p->i + p->l + p->s + (long long)p->d + (long long)p->f;
}
__attribute__((export_name("widths"))) void widths(int idx, unsigned char *b, short *s, long long *l, float *f) {
  b[idx] = (unsigned char)(b[idx] * 3 + idx);
  s[idx] = (short)(s[idx] - idx * 300);
  l[idx] = l[idx] * -3 + ((long long)idx << 40);
  f[idx] = f[idx] * 0.5f + (float)(signed char)b[idx];
}
__attribute__((export_name("bulk"))) void bulk(int idx, unsigned char *buf) {
  unsigned char *p = buf + 64 * idx;
  __builtin_memset(p + (idx % 5), idx + 1, 20 + idx % 9);
  __builtin_memmove(p + 3, p + 1 + idx % 4, 25 + idx % 6);
}
)";

TEST(MemoryAccess, CKernelsAtEveryOptimisationLevel) {
  for (const char* opt : {"-O0", "-O2", "-Os"}) {
    SCOPED_TRACE(opt);
    auto bytes = c_to_wasm(kCKernels, opt, "-mbulk-memory");
    for (const char* kernel : {"unaligned", "widths", "bulk"}) {
      SCOPED_TRACE(kernel);
      CompiledKernel k = expect_compiles(bytes, kernel);
      EXPECT_TRUE(k.info.uses_int8_storage);
      EXPECT_GT(k.info.memory_bytes, 0u);
    }
  }
}

// Which accesses take which path (access_path.h): constant addresses inside
// the initial memory are plain accesses, with no call of the translate helper.
TEST(MemoryAccess, ConstantAddressesInTheModuleMemorySkipTranslation) {
  CompiledKernel k = compile_wat(R"((module (memory 1)
    (func (export "k") (param $i i32)
      (i32.store8 (i32.const 11) (i32.load8_u (i32.const 10)))
      (i64.store offset=8 (i32.const 0) (i64.load (i32.const 24)))
      (i32.store (i32.const 65532) (i32.load (i32.const 5)))
      (memory.fill (i32.const 100) (i32.const 7) (i32.const 50))
      (memory.copy (i32.const 200) (i32.const 100) (i32.const 50)))))");
  EXPECT_EQ(k.info.memory_access_paths.direct, 8u);
  EXPECT_EQ(k.info.memory_access_paths.bounds_checked, 0u);
  EXPECT_EQ(k.info.memory_access_paths.translated, 0u);
  std::string text = disassembly(k);
  EXPECT_EQ(text.find("wasmgpu.translate"), std::string::npos);
  EXPECT_NE(text.find("wasmgpu.fill_bytes"), std::string::npos);
  EXPECT_NE(text.find("Aligned 8"), std::string::npos);  // the i64 at 8 is one typed access
}

TEST(MemoryAccess, ConstantAddressesPastTheInitialSizeAreBoundsChecked) {
  CompiledKernel k = compile_wat(R"((module (memory 1 4)
    (func (export "k") (param $i i32)
      (drop (memory.grow (i32.const 1)))
      (i32.store (i32.const 65534) (i32.const 1))
      (i32.store (i32.const 70000) (i32.load (i32.const 131072)))
      (memory.fill (i32.const 65000) (i32.const 0) (i32.const 1000))
      (memory.copy (i32.const 0) (i32.const 65000) (i32.const 1000)))))");
  EXPECT_EQ(k.info.memory_access_paths.direct, 0u);
  EXPECT_EQ(k.info.memory_access_paths.bounds_checked, 5u);
  EXPECT_EQ(k.info.memory_access_paths.translated, 0u);
  EXPECT_EQ(disassembly(k).find("wasmgpu.translate"), std::string::npos);
}

TEST(MemoryAccess, DynamicAndBufferAddressesAreTranslated) {
  CompiledKernel k = compile_wat(R"((module (memory 1)
    (func (export "k") (param $i i32) (param $p i32)
      (i32.store (i32.mul (local.get $p) (local.get $i)) (i32.const 1))
      (i32.store (i32.const 0x10000000) (i32.const 2))
      (memory.fill (i32.const 0) (i32.const 0) (local.get $i))
      (memory.copy (i32.const 0) (local.get $p) (i32.const 4))
      (i32.store (i32.const 0) (i32.const 3)))))");
  EXPECT_EQ(k.info.memory_access_paths.direct, 1u);
  // p * i: a number (maybe static data) of unknown alignment: the indexed path, unaligned form.
  EXPECT_EQ(k.info.memory_access_paths.indexed_unaligned, 1u);
  EXPECT_EQ(k.info.memory_access_paths.translated, 3u);
  EXPECT_NE(disassembly(k).find("wasmgpu.translate"), std::string::npos);
}

// A constant address inside the shadow stack's region is per-invocation
// stack memory, not module memory: it stays on the translated path.
TEST(MemoryAccess, ConstantStackAddressesAreTranslated) {
  CompiledKernel k = compile_wat(R"((module (memory 2)
    (global $__stack_pointer (mut i32) (i32.const 66560))
    (func (export "k") (param $x i32)
      (i32.store (i32.const 0) (local.get $x))
      (i32.store offset=66400 (i32.const 0) (local.get $x)))))");
  ASSERT_GT(k.info.stack_slot_size, 0u);
  EXPECT_EQ(k.info.memory_access_paths.direct, 1u);
  EXPECT_EQ(k.info.memory_access_paths.translated, 1u);
}

TEST(MemoryAccess, NoMemoryNoInt8) {
  CompiledKernel k = compile_wat(R"((module (func (export "k") (param i32))))");
  EXPECT_FALSE(k.info.uses_int8_storage);
  EXPECT_EQ(disassembly(k).find("StorageBuffer8BitAccess"), std::string::npos);
}

}  // namespace
}  // namespace wasmgpu::spirv::testing
