// The front end alone (front_end_facts.h) over every example and bench
// kernel: the facts it works out, before any back end runs. The values
// checked are the analyses' as golden.spirv pins their effect on the SPIR-V.
#include "frontend/front_end_facts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "frontend/kernel_signature.h"
#include "frontend/test_util.h"
#include "wasm/decoder.h"
#include "wasm/validator.h"

namespace wasmgpu::frontend::testing {
namespace {

struct KernelFacts {
  std::string module;  // "examples/saxpy"
  std::string kernel;
  FrontEndFacts facts;
  const wasm::Module* wasm = nullptr;
};

// Every kernel of every example and bench module, through the front end.
const std::vector<KernelFacts>& all_kernels() {
  static const auto* kernels = [] {
    static std::map<std::string, wasm::Module> modules;
    auto* out = new std::vector<KernelFacts>();
    for (const char* dir : {"examples", "bench"}) {
      const std::filesystem::path folder = std::filesystem::path(WASMGPU_BINARY_DIR) / dir;
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(folder))
        if (entry.path().extension() == ".wasm") files.push_back(entry.path());
      std::sort(files.begin(), files.end());
      for (const std::filesystem::path& file : files) {
        const std::string name = std::string(dir) + "/" + file.stem().string();
        auto decoded = wasm::decode(read_file(file));
        EXPECT_TRUE(decoded.ok()) << name;
        if (!decoded.ok()) continue;
        EXPECT_TRUE(wasm::validate(*decoded).ok()) << name;
        const wasm::Module& module = modules.emplace(name, std::move(*decoded)).first->second;
        for (const wasm::Export& e : module.exports) {
          if (e.kind != wasm::ExternalKind::Func || !check_kernel_signature(module, e.name).ok()) continue;
          uint32_t roots[] = {e.index};
          Result<FrontEndFacts> facts = analyse_module(module, roots, e.index, BackEndLimits{});
          EXPECT_TRUE(facts.ok()) << name << " " << e.name << ": " << facts.error().message;
          if (facts.ok()) out->push_back({name, e.name, std::move(*facts), &module});
        }
      }
    }
    return out;
  }();
  return *kernels;
}

const KernelFacts& kernel(const std::string& module, const std::string& name) {
  for (const KernelFacts& k : all_kernels())
    if (k.module == module && k.kernel == name) return k;
  ADD_FAILURE() << "no kernel " << module << " " << name;
  static const KernelFacts none;
  return none;
}

const wasm::Function& body_of(const KernelFacts& k, uint32_t function) {
  return k.wasm->functions.at(function - k.wasm->imported_functions);
}

TEST(FrontEndFacts, EveryKernelHasFactsForEveryFunctionItReaches) {
  ASSERT_EQ(all_kernels().size(), 35u);  // 21, and the 14 of the PolyBench-style bench modules
  for (const KernelFacts& k : all_kernels()) {
    const FrontEndFacts& f = k.facts;
    ASSERT_TRUE(f.kernel_function) << k.module << " " << k.kernel;
    EXPECT_EQ(f.side_effects.size(), 1u);
    for (uint32_t function : f.graph.functions) {
      const FunctionFacts* facts = f.function(function);
      ASSERT_NE(facts, nullptr) << k.module << " function " << function;
      const size_t size = body_of(k, function).body.size();
      EXPECT_EQ(facts->provenance.size(), size);
      EXPECT_EQ(facts->load_groups.group_of.size(), size);
      EXPECT_EQ(facts->store_groups.group_of.size(), size);
      EXPECT_EQ(facts->ranges.size(), f.ranges ? std::size(kProvenWorkgroupSizes) - 1 : 0u);
      EXPECT_TRUE(facts->flow.reachable(0));
      EXPECT_EQ(facts->launch_proof.has_value(), function == *f.kernel_function);
    }
  }
}

// Per kernel, what the analyses work out (golden.spirv pins the SPIR-V they
// lead to): reachable functions; the shadow stack slot; the kernel's memory
// accesses, those whose address has a parameter as its base, those proven at
// launch; its load and store groups; whether value ranges were made.
struct Expected {
  const char* module;
  const char* kernel;
  size_t functions;
  uint32_t stack_slot;
  size_t accesses, param_based, proven, load_groups, store_groups;
  bool ranges;
};
constexpr Expected kExpected[] = {
    {"examples/blur", "blur_pass", 1, 32, 5, 1, 0, 1, 0, false},
    {"examples/double_precision", "exp_taylor", 1, 0, 7, 4, 4, 1, 1, false},
    {"examples/histogram", "histogram", 1, 0, 3, 1, 1, 0, 0, true},
    {"examples/jacobi", "jacobi_step", 1, 0, 6, 6, 6, 1, 0, false},
    {"examples/mandelbrot", "mandelbrot", 1, 0, 1, 1, 1, 0, 0, false},
    {"examples/matmul", "matmul", 1, 0, 37, 3, 3, 0, 0, true},
    {"examples/particles", "particles_step", 1, 32, 30, 26, 22, 2, 1, false},
    {"examples/reduction", "reduce_sum", 1, 0, 4, 2, 2, 0, 0, true},
    {"examples/saxpy", "saxpy", 1, 0, 3, 3, 3, 0, 0, false},
    {"examples/scan", "scan_block", 1, 0, 8, 3, 3, 0, 0, true},
    {"examples/scan", "add_offsets", 1, 0, 3, 3, 3, 0, 0, true},
    {"bench/big", "big", 2041, 0, 1, 1, 1, 0, 0, false},
    {"bench/bump", "bump", 1, 0, 2, 2, 2, 0, 0, false},
    {"bench/histogram", "histogram", 1, 0, 3, 1, 1, 0, 0, true},
    {"bench/horner_f64", "horner_f64", 1, 0, 8, 8, 3, 1, 0, false},
    {"bench/mandelbrot", "mandelbrot", 1, 0, 1, 1, 1, 0, 0, false},
    {"bench/particles", "particles", 1, 0, 16, 16, 16, 1, 1, false},
    {"bench/reduce", "reduce", 1, 0, 28, 2, 2, 0, 0, true},
    {"bench/sgemm", "sgemm", 1, 0, 96, 72, 72, 6, 16, true},
    {"bench/stencil", "stencil", 1, 0, 6, 6, 6, 1, 0, false},
    {"bench/triad", "triad", 1, 0, 3, 3, 3, 0, 0, false},
};

TEST(FrontEndFacts, KnownKernelsHaveTheirKnownFacts) {
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(std::string(e.module) + " " + e.kernel);
    const KernelFacts& k = kernel(e.module, e.kernel);
    if (!k.wasm) continue;
    const FrontEndFacts& f = k.facts;
    const FunctionFacts& main = *f.function(*f.kernel_function);
    const std::vector<wasm::Instr>& body = body_of(k, *f.kernel_function).body;
    size_t accesses = 0, param_based = 0;
    for (size_t ip = 0; ip < body.size(); ++ip) {
      if (wasm::info(body[ip].op).access.bytes == 0) continue;
      ++accesses;
      param_based += main.provenance[ip].base == PointerFact::Base::Param;
    }
    EXPECT_EQ(f.graph.functions.size(), e.functions);
    EXPECT_TRUE(f.graph.recursive_components.empty());
    EXPECT_TRUE(f.stack.bounded);
    EXPECT_EQ(f.stack.slot_size, e.stack_slot);
    EXPECT_EQ(accesses, e.accesses);
    EXPECT_EQ(param_based, e.param_based);
    ASSERT_TRUE(main.launch_proof);
    EXPECT_EQ(main.launch_proof->accesses.size(), e.proven);
    EXPECT_EQ(main.load_groups.groups.size(), e.load_groups);
    EXPECT_EQ(main.store_groups.groups.size(), e.store_groups);
    EXPECT_EQ(f.ranges, e.ranges);
  }
}

TEST(FrontEndFacts, SaxpyReadsXAndWritesYThroughItsPointerParameters) {
  // saxpy(i, a, x, y): y[i] = a * x[i] + y[i]; parameters 2 and 3 are the buffers.
  const KernelFacts& k = kernel("examples/saxpy", "saxpy");
  ASSERT_TRUE(k.wasm);
  const FunctionFacts& main = *k.facts.function(*k.facts.kernel_function);
  const std::vector<wasm::Instr>& body = body_of(k, *k.facts.kernel_function).body;
  std::vector<std::pair<wasm::AccessKind, uint32_t>> seen;
  for (size_t ip = 0; ip < body.size(); ++ip) {
    const wasm::MemoryAccess& access = wasm::info(body[ip].op).access;
    if (access.bytes == 0) continue;
    EXPECT_EQ(main.provenance[ip].base, PointerFact::Base::Param);
    EXPECT_GE(main.provenance[ip].alignment(body[ip].imm1), 4u);  // float elements
    seen.push_back({access.kind, main.provenance[ip].param});
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::pair<wasm::AccessKind, uint32_t>>{
                      {wasm::AccessKind::Load, 2}, {wasm::AccessKind::Load, 3}, {wasm::AccessKind::Store, 3}}));
  EXPECT_FALSE(k.facts.side_effects.empty());
  EXPECT_TRUE(k.facts.side_effects.begin()->second);  // it stores
}

TEST(FrontEndFacts, StackFramesOfKernelsThatUseTheShadowStack) {
  for (const char* module : {"examples/blur", "examples/particles"}) {
    SCOPED_TRACE(module);
    for (const KernelFacts& k : all_kernels()) {
      if (k.module != module) continue;
      const StackLayout& stack = k.facts.stack;
      ASSERT_TRUE(stack.stack_pointer);
      EXPECT_EQ(stack.stack_hi - stack.window_lo, 32u);
      EXPECT_EQ(stack.slot_size, 32u);
      EXPECT_LE(stack.stack_lo, stack.window_lo);
    }
  }
}

}  // namespace
}  // namespace wasmgpu::frontend::testing
