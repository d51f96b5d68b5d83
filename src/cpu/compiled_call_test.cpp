// run_compiled (kernel_abi.h): a call into code that starts a page after an
// unmapped one, as compiled code may. Under clang's -fsanitize=function
// (the asan preset) a plain indirect call reads the 8 bytes before the
// callee and faults there; run_compiled calls it unchecked.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#include "cpu/kernel_abi.h"

namespace wasmgpu::cpu {
namespace {

#if defined(__x86_64__) || defined(__aarch64__)
// Two pages: the first unmapped, the second holding code that returns at
// once. Returns the second page, nullptr if the system refuses.
uint8_t* code_after_a_hole(size_t page) {
  void* pages = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (pages == MAP_FAILED) return nullptr;
  uint8_t* code = static_cast<uint8_t*>(pages) + page;
#if defined(__x86_64__)
  const uint8_t ret[] = {0xC3};
#else
  const uint8_t ret[] = {0xC0, 0x03, 0x5F, 0xD6};
#endif
  std::memcpy(code, ret, sizeof(ret));
  __builtin___clear_cache(reinterpret_cast<char*>(code), reinterpret_cast<char*>(code + sizeof(ret)));
  if (munmap(pages, page) != 0 || mprotect(code, page, PROT_READ | PROT_EXEC) != 0) return nullptr;
  return code;
}

TEST(RunCompiled, CallsCodeThatStartsAPageAfterAnUnmappedOne) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  uint8_t* code = code_after_a_hole(page);
  ASSERT_NE(code, nullptr) << "mmap/mprotect refused";
  run_compiled(reinterpret_cast<KernelEntry>(code), nullptr, 0, 1);
  uint64_t params[1] = {1}, results[1] = {2};
  run_compiled(reinterpret_cast<CallEntry>(code), nullptr, params, results);
  EXPECT_EQ(results[0], 2u);  // the code returned at once
  EXPECT_EQ(munmap(code, page), 0);
}
#endif

}  // namespace
}  // namespace wasmgpu::cpu
