// validate() and disassemble(): thin wrappers over SPIRV-Tools.
#include <spirv-tools/libspirv.hpp>

#include "spirv/compiler.h"

namespace wasmgpu::spirv {

Status validate(const std::vector<uint32_t>& words) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& position, const char* message) {
    if (!messages.empty()) messages += "\n";
    messages += "word " + std::to_string(position.index) + ": " + message;
  });
  spvtools::ValidatorOptions options;
  options.SetScalarBlockLayout(true);
  if (!tools.Validate(words.data(), words.size(), options))
    return make_error(ErrorCode::Internal, "generated SPIR-V is invalid: " + messages);
  return {};
}

Result<std::string> disassemble(const std::vector<uint32_t>& words) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
  std::string text;
  if (!tools.Disassemble(words, &text, SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT))
    return make_error(ErrorCode::Internal, "cannot disassemble SPIR-V");
  return text;
}

}  // namespace wasmgpu::spirv
