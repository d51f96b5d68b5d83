#include "runtime/pipeline_statistics.h"

#include <cstdlib>
#include <iostream>
#include <vector>

namespace wasmgpu::runtime {

bool pipeline_statistics_requested() {
  const char* value = std::getenv("WASMGPU_PIPELINE_STATISTICS");
  return value && *value && std::string_view(value) != "0";
}

VkPipelineCreateFlags pipeline_statistics_flags(const DeviceState& device) {
  return device.pipeline_statistics ? VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR : 0;
}

namespace {
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
  }
}

}  // namespace wasmgpu::runtime
