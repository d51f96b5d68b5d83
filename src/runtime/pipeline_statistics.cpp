#include "runtime/pipeline_statistics.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <vector>

#include "support/environment.h"

namespace wasmgpu::runtime {

namespace {
// WASMGPU_PIPELINE_IR: where internal representations go (empty: nowhere).
std::string representations_directory() { return environment::pipeline_ir_directory(); }
}  // namespace

bool pipeline_statistics_requested() {
  return environment::pipeline_statistics() || !representations_directory().empty();
}

VkPipelineCreateFlags pipeline_statistics_flags(const DeviceState& device) {
  if (!device.pipeline_statistics) return 0;
  VkPipelineCreateFlags flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  if (!representations_directory().empty()) flags |= VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
  return flags;
}

namespace {
// A file name from a pipeline label: letters, digits, '.', '-' and '_' kept.
std::string file_part(std::string_view text) {
  std::string part;
  for (char c : text)
    part += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
  return part;
}

// Writes every textual internal representation of one executable to the
// WASMGPU_PIPELINE_IR directory.
void write_representations(const DeviceState& device, const VkPipelineExecutableInfoKHR& executable,
                           std::string_view label, std::string_view executable_name) {
  const std::string directory = representations_directory();
  if (directory.empty()) return;
  uint32_t n = 0;
  if (device.vk.vkGetPipelineExecutableInternalRepresentationsKHR(device.device, &executable, &n, nullptr) !=
      VK_SUCCESS)
    return;
  std::vector<VkPipelineExecutableInternalRepresentationKHR> representations(n);
  for (auto& r : representations) r.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR;
  // First the sizes, then the text.
  if (device.vk.vkGetPipelineExecutableInternalRepresentationsKHR(device.device, &executable, &n,
                                                                  representations.data()) != VK_SUCCESS)
    return;
  std::vector<std::vector<char>> buffers(n);
  for (uint32_t i = 0; i < n; ++i) {
    buffers[i].resize(representations[i].dataSize);
    representations[i].pData = buffers[i].data();
  }
  if (device.vk.vkGetPipelineExecutableInternalRepresentationsKHR(device.device, &executable, &n,
                                                                  representations.data()) != VK_SUCCESS)
    return;
  for (uint32_t i = 0; i < n; ++i) {
    if (!representations[i].isText) continue;
    const std::string path = directory + "/" + file_part(label) + "." + file_part(executable_name) + "." +
                             file_part(representations[i].name) + ".txt";
    std::ofstream out(path);
    out.write(buffers[i].data(), std::streamsize(std::strlen(buffers[i].data())));
    if (!out) std::cerr << "pipeline representation: could not write " << path << "\n";
  }
}

std::string statistic_text(const VkPipelineExecutableStatisticKHR& s) {
  switch (s.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: return s.value.b32 ? "true" : "false";
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: return std::to_string(s.value.i64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: return std::to_string(s.value.u64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: return std::to_string(s.value.f64);
    default: return "?";
  }
}
}  // namespace

void print_pipeline_statistics(const DeviceState& device, VkPipeline pipeline, std::string_view label) {
  if (!device.pipeline_statistics || pipeline == VK_NULL_HANDLE) return;
  VkPipelineInfoKHR info{};
  info.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR;
  info.pipeline = pipeline;
  uint32_t count = 0;
  if (device.vk.vkGetPipelineExecutablePropertiesKHR(device.device, &info, &count, nullptr) != VK_SUCCESS) return;
  std::vector<VkPipelineExecutablePropertiesKHR> executables(count);
  for (auto& e : executables) e.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR;
  if (device.vk.vkGetPipelineExecutablePropertiesKHR(device.device, &info, &count, executables.data()) != VK_SUCCESS)
    return;
  for (uint32_t i = 0; i < count; ++i) {
    VkPipelineExecutableInfoKHR executable{};
    executable.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR;
    executable.pipeline = pipeline;
    executable.executableIndex = i;
    uint32_t n = 0;
    if (device.vk.vkGetPipelineExecutableStatisticsKHR(device.device, &executable, &n, nullptr) != VK_SUCCESS) continue;
    std::vector<VkPipelineExecutableStatisticKHR> stats(n);
    for (auto& s : stats) s.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
    if (device.vk.vkGetPipelineExecutableStatisticsKHR(device.device, &executable, &n, stats.data()) != VK_SUCCESS)
      continue;
    std::string line = "pipeline statistics (" + std::string(label) + ", " + executables[i].name + "):";
    for (uint32_t j = 0; j < n; ++j)
      line += std::string(j == 0 ? " " : ", ") + stats[j].name + "=" + statistic_text(stats[j]);
    std::cerr << line << "\n";
    write_representations(device, executable, label, executables[i].name);
  }
}

}  // namespace wasmgpu::runtime
