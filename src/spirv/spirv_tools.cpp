// validate() and disassemble(): thin wrappers over SPIRV-Tools.
#include <spirv-tools/libspirv.hpp>
#include <spirv-tools/optimizer.hpp>

#include "spirv/compiler.h"

namespace wasmgpu::spirv {

Status validate(const std::vector<uint32_t>& words) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& position,
                               const char* message) {
    if (!messages.empty()) messages += "\n";
    messages += "word " + std::to_string(position.index) + ": " + message;
  });
  spvtools::ValidatorOptions options;
  options.SetScalarBlockLayout(true);
  if (!tools.Validate(words.data(), words.size(), options))
    return make_error("generated SPIR-V is invalid: " + messages);
  return {};
}

Result<std::string> disassemble(const std::vector<uint32_t>& words) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
  std::string text;
  if (!tools.Disassemble(words, &text,
                         SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT))
    return make_error("cannot disassemble SPIR-V");
  return text;
}

// SPIRV-Tools' performance passes (spirv-opt -O), for measuring what they
// buy (docs/compiler.md, "spirv-opt").
Result<std::vector<uint32_t>> optimize_for_performance(const std::vector<uint32_t>& words) {
  spvtools::Optimizer optimizer(SPV_ENV_VULKAN_1_2);
  optimizer.RegisterPerformancePasses();
  std::vector<uint32_t> optimized;
  spvtools::ValidatorOptions options;
  options.SetScalarBlockLayout(true);
  spvtools::OptimizerOptions optimizer_options;
  optimizer_options.set_validator_options(options);
  optimizer_options.set_run_validator(false);
  if (!optimizer.Run(words.data(), words.size(), &optimized, optimizer_options))
    return make_error("spirv-opt failed");
  return optimized;
}

}  // namespace wasmgpu::spirv
