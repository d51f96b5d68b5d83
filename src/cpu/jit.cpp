#include "cpu/jit.h"

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <mutex>

#include "cpu/ir_lowering.h"

namespace wasmgpu::cpu {

struct NativeKernel::Jit {
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

NativeKernel::~NativeKernel() = default;

namespace {

std::string to_text(llvm::Error error) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  stream << error;
  return stream.str();
}

void initialise_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

// -O2 over the whole module (new pass manager).
void optimise(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  passes.run(module, modules);
}

}  // namespace

std::string native_target_fingerprint() {
  std::string text = std::string("llvm ") + LLVM_VERSION_STRING + " " + llvm::sys::getProcessTriple() + " " +
                     llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  std::vector<std::string> names;
  for (const auto& feature : features) names.push_back((feature.second ? "+" : "-") + feature.first().str());
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) text += " " + name;
  return text;
}

Result<std::unique_ptr<NativeKernel>> compile_native(const wasm::Module& module, const frontend::FrontEndFacts& facts,
                                                     const LoweringOptions& options, std::span<const uint32_t> calls,
                                                     const std::vector<uint8_t>* cached_object,
                                                     std::vector<uint8_t>* object_out, bool keep_ir) {
  const frontend::FloatMode float_mode = options.float_mode;
  initialise_llvm();
  auto fail = [](const std::string& what, llvm::Error error) {
    return make_error(ErrorCode::Internal, "cpu device: " + what + ": " + to_text(std::move(error)));
  };
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> target = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!target) return fail("detecting the host CPU", target.takeError());
  // Exact mode: never fuse a*b + c (docs/float-modes.md); fast mode may.
  target->getOptions().AllowFPOpFusion =
      float_mode == frontend::FloatMode::Exact ? llvm::FPOpFusion::Strict : llvm::FPOpFusion::Fast;
  target->setCodeGenOptLevel(llvm::CodeGenOptLevel::Default);
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine = target->createTargetMachine();
  if (!machine) return fail("creating the target machine", machine.takeError());

  auto kernel = std::unique_ptr<NativeKernel>(new NativeKernel());
  llvm::SmallVector<char, 0> object;
  if (cached_object) {
    object.assign(cached_object->begin(), cached_object->end());
  } else {
    llvm::LLVMContext context;
    llvm::Module ir("wasmgpu_kernel", context);
    ir.setDataLayout((*machine)->createDataLayout());
    ir.setTargetTriple((*machine)->getTargetTriple().str());
    WASMGPU_TRY(lower_module(module, facts, options, calls, ir));
    optimise(ir, **machine);
    if (keep_ir) {
      llvm::raw_string_ostream stream(kernel->ir_);
      ir.print(stream, nullptr);
    }
    // The object file the JIT links (and the disk cache keeps): the same
    // target machine as LLJIT's own compiler would use.
    llvm::raw_svector_ostream stream(object);
    llvm::legacy::PassManager codegen;
    if ((*machine)->addPassesToEmitFile(codegen, stream, nullptr, llvm::CodeGenFileType::ObjectFile))
      return make_error(ErrorCode::Internal, "cpu device: the target cannot emit object files");
    codegen.run(ir);
    if (object_out) object_out->assign(object.begin(), object.end());
  }
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit =
      llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*target)).create();
  if (!jit) return fail("creating the JIT", jit.takeError());
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(object.data(), object.size()), "wasmgpu_kernel.o");
  if (llvm::Error error = (*jit)->addObjectFile(std::move(buffer))) return fail("adding the kernel", std::move(error));
  if (facts.kernel_function) {
    llvm::Expected<llvm::orc::ExecutorAddr> entry = (*jit)->lookup(kEntrySymbol);
    if (!entry) return fail("compiling the kernel", entry.takeError());
    kernel->entry_ = entry->toPtr<KernelEntry>();
  }
  for (size_t i = 0; i < calls.size(); ++i) {
    llvm::Expected<llvm::orc::ExecutorAddr> entry = (*jit)->lookup(call_symbol(i));
    if (!entry) return fail("compiling the calls", entry.takeError());
    kernel->calls_.push_back(entry->toPtr<CallEntry>());
  }
  kernel->jit_ = std::make_unique<NativeKernel::Jit>();
  kernel->jit_->jit = std::move(*jit);
  return kernel;
}

}  // namespace wasmgpu::cpu
