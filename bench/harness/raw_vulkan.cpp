#include "harness/raw_vulkan.h"

// Prototypes only: volk's function pointers are the runtime's (loaded for its
// instance, possibly under validation layers); this file loads its own
// through vkGetInstanceProcAddr and vkGetDeviceProcAddr of its own instance.
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>
#include <dlfcn.h>
#include <fmt/core.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <wasmgpu/device.hpp>

namespace wasmgpu::bench {
namespace {

void check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) throw std::runtime_error(fmt::format("raw Vulkan: {} failed: VkResult {}", what, int(r)));
}

PFN_vkGetInstanceProcAddr loader_entry() {
  for (const char* name : {"libvulkan.so.1", "libvulkan.so"}) {
    if (void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))
      if (void* entry = dlsym(lib, "vkGetInstanceProcAddr")) return reinterpret_cast<PFN_vkGetInstanceProcAddr>(entry);
  }
  throw std::runtime_error("raw Vulkan: no Vulkan loader (libvulkan.so.1)");
}

}  // namespace

struct RawVulkan::State {
  PFN_vkGetInstanceProcAddr get_instance_proc = nullptr;
  PFN_vkGetDeviceProcAddr get_device_proc = nullptr;
  VkInstance instance = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  VkDeviceAddress address = 0;
  VkShaderModule shader = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;

#define WASMGPU_RAW_FN(name) PFN_##name name = nullptr;
// One X per line: clang-format-19 reflows a long macro list differently on each pass.
// clang-format off
#define WASMGPU_RAW_DEVICE_FUNCTIONS(X) \
  X(vkDestroyDevice) \
  X(vkGetDeviceQueue) \
  X(vkCreateBuffer) \
  X(vkDestroyBuffer) \
  X(vkGetBufferMemoryRequirements) \
  X(vkAllocateMemory) \
  X(vkFreeMemory) \
  X(vkBindBufferMemory) \
  X(vkMapMemory) \
  X(vkGetBufferDeviceAddress) \
  X(vkCreateShaderModule) \
  X(vkDestroyShaderModule) \
  X(vkCreatePipelineLayout) \
  X(vkDestroyPipelineLayout) \
  X(vkCreateComputePipelines) \
  X(vkDestroyPipeline) \
  X(vkCreateCommandPool) \
  X(vkDestroyCommandPool) \
  X(vkAllocateCommandBuffers) \
  X(vkResetCommandBuffer) \
  X(vkBeginCommandBuffer) \
  X(vkEndCommandBuffer) \
  X(vkCmdBindPipeline) \
  X(vkCmdPushConstants) \
  X(vkCmdDispatch) \
  X(vkCmdPipelineBarrier) \
  X(vkCreateFence) \
  X(vkDestroyFence) \
  X(vkResetFences) \
  X(vkWaitForFences) \
  X(vkQueueSubmit) \
  X(vkDeviceWaitIdle)
  // clang-format on
  WASMGPU_RAW_DEVICE_FUNCTIONS(WASMGPU_RAW_FN)
  PFN_vkDestroyInstance vkDestroyInstance = nullptr;

  template <class F>
  F instance_fn(const char* name) {
    auto f = reinterpret_cast<F>(get_instance_proc(instance, name));
    if (!f) throw std::runtime_error(std::string("raw Vulkan: no ") + name);
    return f;
  }
  template <class F>
  void device_fn(F& f, const char* name) {
    f = reinterpret_cast<F>(get_device_proc(device, name));
    if (!f) throw std::runtime_error(std::string("raw Vulkan: no ") + name);
  }

  ~State() {
    if (device) {
      vkDeviceWaitIdle(device);
      if (fence) vkDestroyFence(device, fence, nullptr);
      if (pool) vkDestroyCommandPool(device, pool, nullptr);
      if (pipeline) vkDestroyPipeline(device, pipeline, nullptr);
      if (layout) vkDestroyPipelineLayout(device, layout, nullptr);
      if (shader) vkDestroyShaderModule(device, shader, nullptr);
      if (buffer) vkDestroyBuffer(device, buffer, nullptr);
      if (memory) vkFreeMemory(device, memory, nullptr);  // unmaps
      vkDestroyDevice(device, nullptr);
    }
    if (instance && vkDestroyInstance) vkDestroyInstance(instance, nullptr);
  }
};

RawVulkan::RawVulkan(const DeviceInfo& info, std::span<const uint8_t> spirv) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.get_instance_proc = loader_entry();
  auto create_instance =
      reinterpret_cast<PFN_vkCreateInstance>(s.get_instance_proc(VK_NULL_HANDLE, "vkCreateInstance"));
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "wasmgpu bench (raw Vulkan baseline)";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo instance_info{};
  instance_info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  instance_info.pApplicationInfo = &app;
  check(create_instance(&instance_info, nullptr, &s.instance), "vkCreateInstance");
  s.vkDestroyInstance = s.instance_fn<PFN_vkDestroyInstance>("vkDestroyInstance");
  auto enumerate = s.instance_fn<PFN_vkEnumeratePhysicalDevices>("vkEnumeratePhysicalDevices");
  auto properties_of = s.instance_fn<PFN_vkGetPhysicalDeviceProperties>("vkGetPhysicalDeviceProperties");
  auto families_of =
      s.instance_fn<PFN_vkGetPhysicalDeviceQueueFamilyProperties>("vkGetPhysicalDeviceQueueFamilyProperties");
  auto memory_of = s.instance_fn<PFN_vkGetPhysicalDeviceMemoryProperties>("vkGetPhysicalDeviceMemoryProperties");
  auto create_device = s.instance_fn<PFN_vkCreateDevice>("vkCreateDevice");
  s.get_device_proc = s.instance_fn<PFN_vkGetDeviceProcAddr>("vkGetDeviceProcAddr");

  // The bench's device: its index in enumeration order, if the ids agree,
  // else the first with its vendor, device id and name.
  uint32_t count = 0;
  check(enumerate(s.instance, &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> physical(count);
  check(enumerate(s.instance, &count, physical.data()), "vkEnumeratePhysicalDevices");
  auto same = [&](VkPhysicalDevice p) {
    VkPhysicalDeviceProperties props{};
    properties_of(p, &props);
    return props.vendorID == info.vendor_id && props.deviceID == info.device_id && info.name == props.deviceName;
  };
  VkPhysicalDevice chosen = VK_NULL_HANDLE;
  if (info.index < count && same(physical[info.index])) chosen = physical[info.index];
  for (uint32_t i = 0; i < count && !chosen; ++i)
    if (same(physical[i])) chosen = physical[i];
  if (!chosen) throw std::runtime_error("raw Vulkan: device '" + info.name + "' not found");

  families_of(chosen, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  families_of(chosen, &count, families.data());
  uint32_t family = 0;
  while (family < count && !(families[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
  if (family == count) throw std::runtime_error("raw Vulkan: no compute queue");
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{};
  queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkPhysicalDeviceVulkan12Features features12{};
  features12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  features12.bufferDeviceAddress = VK_TRUE;
  VkDeviceCreateInfo device_info{};
  device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.pNext = &features12;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  check(create_device(chosen, &device_info, nullptr, &s.device), "vkCreateDevice");
#define WASMGPU_RAW_LOAD(name) s.device_fn(s.name, #name);
  WASMGPU_RAW_DEVICE_FUNCTIONS(WASMGPU_RAW_LOAD)
  s.vkGetDeviceQueue(s.device, family, 0, &s.queue);

  // The buffer: host-visible and coherent, with a device address.
  VkBufferCreateInfo buffer_info{};
  buffer_info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  buffer_info.size = 16;
  buffer_info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  check(s.vkCreateBuffer(s.device, &buffer_info, nullptr, &s.buffer), "vkCreateBuffer");
  VkMemoryRequirements requirements{};
  s.vkGetBufferMemoryRequirements(s.device, s.buffer, &requirements);
  VkPhysicalDeviceMemoryProperties memory{};
  memory_of(chosen, &memory);
  const VkMemoryPropertyFlags wanted = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  uint32_t type = 0;
  while (type < memory.memoryTypeCount &&
         !((requirements.memoryTypeBits & (1u << type)) && (memory.memoryTypes[type].propertyFlags & wanted) == wanted))
    ++type;
  if (type == memory.memoryTypeCount) throw std::runtime_error("raw Vulkan: no host-visible coherent memory");
  VkMemoryAllocateFlagsInfo flags{};
  flags.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO;
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo allocate{};
  allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  allocate.pNext = &flags;
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex = type;
  check(s.vkAllocateMemory(s.device, &allocate, nullptr, &s.memory), "vkAllocateMemory");
  check(s.vkBindBufferMemory(s.device, s.buffer, s.memory, 0), "vkBindBufferMemory");
  check(s.vkMapMemory(s.device, s.memory, 0, VK_WHOLE_SIZE, 0, &s.mapped), "vkMapMemory");
  std::memset(s.mapped, 0, 16);
  VkBufferDeviceAddressInfo address_info{};
  address_info.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO;
  address_info.buffer = s.buffer;
  s.address = s.vkGetBufferDeviceAddress(s.device, &address_info);

  // The pipeline.
  std::vector<uint32_t> words((spirv.size() + 3) / 4);
  std::memcpy(words.data(), spirv.data(), spirv.size());
  VkShaderModuleCreateInfo module_info{};
  module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  module_info.codeSize = spirv.size();
  module_info.pCode = words.data();
  check(s.vkCreateShaderModule(s.device, &module_info, nullptr, &s.shader), "vkCreateShaderModule");
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(VkDeviceAddress)};
  VkPipelineLayoutCreateInfo layout_info{};
  layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &range;
  check(s.vkCreatePipelineLayout(s.device, &layout_info, nullptr, &s.layout), "vkCreatePipelineLayout");
  VkComputePipelineCreateInfo pipeline_info{};
  pipeline_info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  pipeline_info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipeline_info.stage.module = s.shader;
  pipeline_info.stage.pName = "main";
  pipeline_info.layout = s.layout;
  check(s.vkCreateComputePipelines(s.device, VK_NULL_HANDLE, 1, &pipeline_info, nullptr, &s.pipeline),
        "vkCreateComputePipelines");

  VkCommandPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = family;
  check(s.vkCreateCommandPool(s.device, &pool_info, nullptr, &s.pool), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo cmd_info{};
  cmd_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  cmd_info.commandPool = s.pool;
  cmd_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cmd_info.commandBufferCount = 1;
  check(s.vkAllocateCommandBuffers(s.device, &cmd_info, &s.cmd), "vkAllocateCommandBuffers");
  VkFenceCreateInfo fence_info{};
  fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  check(s.vkCreateFence(s.device, &fence_info, nullptr, &s.fence), "vkCreateFence");
}

RawVulkan::~RawVulkan() = default;

void RawVulkan::call(uint32_t groups) {
  State& s = *state_;
  check(s.vkResetCommandBuffer(s.cmd, 0), "vkResetCommandBuffer");
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(s.vkBeginCommandBuffer(s.cmd, &begin), "vkBeginCommandBuffer");
  s.vkCmdBindPipeline(s.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s.pipeline);
  s.vkCmdPushConstants(s.cmd, s.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof s.address, &s.address);
  s.vkCmdDispatch(s.cmd, groups, 1, 1);
  // The results visible to the host after the wait.
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  s.vkCmdPipelineBarrier(s.cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                         nullptr, 0, nullptr);
  check(s.vkEndCommandBuffer(s.cmd), "vkEndCommandBuffer");
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &s.cmd;
  check(s.vkQueueSubmit(s.queue, 1, &submit, s.fence), "vkQueueSubmit");
  check(s.vkWaitForFences(s.device, 1, &s.fence, VK_TRUE, 600'000'000'000ull), "vkWaitForFences");
  check(s.vkResetFences(s.device, 1, &s.fence), "vkResetFences");
}

uint32_t RawVulkan::counter() const {
  uint32_t value = 0;
  std::memcpy(&value, state_->mapped, 4);
  return value;
}

}  // namespace wasmgpu::bench
