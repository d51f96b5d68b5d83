#include "cpu/jit.h"

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

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

Result<std::unique_ptr<NativeKernel>> compile_native_kernel(const wasm::Module& module,
                                                            const frontend::FrontEndFacts& facts,
                                                            frontend::FloatMode float_mode, bool keep_ir) {
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

  auto context = std::make_unique<llvm::LLVMContext>();
  auto ir = std::make_unique<llvm::Module>("wasmgpu_kernel", *context);
  ir->setDataLayout((*machine)->createDataLayout());
  ir->setTargetTriple((*machine)->getTargetTriple().str());
  WASMGPU_TRY(lower_kernel(module, facts, float_mode, *ir));
  optimise(*ir, **machine);

  auto kernel = std::unique_ptr<NativeKernel>(new NativeKernel());
  if (keep_ir) {
    llvm::raw_string_ostream stream(kernel->ir_);
    ir->print(stream, nullptr);
  }
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit =
      llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*target)).create();
  if (!jit) return fail("creating the JIT", jit.takeError());
  if (llvm::Error error = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(ir), std::move(context))))
    return fail("adding the kernel", std::move(error));
  llvm::Expected<llvm::orc::ExecutorAddr> entry = (*jit)->lookup(kEntrySymbol);
  if (!entry) return fail("compiling the kernel", entry.takeError());
  kernel->entry_ = entry->toPtr<KernelEntry>();
  kernel->jit_ = std::make_unique<NativeKernel::Jit>();
  kernel->jit_->jit = std::move(*jit);
  return kernel;
}

}  // namespace wasmgpu::cpu
