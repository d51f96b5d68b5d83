#include "runtime/instance.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "runtime/instance_state.h"
#include "runtime/vk_util.h"
#include "support/environment.h"

namespace wasmgpu::runtime {

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

VKAPI_ATTR VkBool32 VKAPI_CALL on_debug_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                VkDebugUtilsMessageTypeFlagsEXT,
                                                const VkDebugUtilsMessengerCallbackDataEXT* data, void* user_data) {
  auto* state = static_cast<InstanceState*>(user_data);
  std::string message = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error: " : "warning: ";
  if (data && data->pMessageIdName) message += std::string("[") + data->pMessageIdName + "] ";
  if (data && data->pMessage) message += data->pMessage;
  state->add_message(std::move(message));
  return VK_FALSE;  // never abort the call that triggered the message
}

// volkInitialize loads libvulkan once for the process.
VkResult initialize_loader() {
  static VkResult result = volkInitialize();
  return result;
}

// The process's VkInstances, created by the first Instance that needs one
// and never destroyed: every Instance shares them and keeps its own debug
// messenger. NVIDIA's driver (580, on the H200) refuses vkCreateInstance with
// VK_ERROR_INCOMPATIBLE_DRIVER after about 29 create/destroy cycles in one
// process. One per validation setting and per value of the environment the
// Vulkan loader reads when it creates an instance (which drivers and layers).
struct ProcessInstance {
  VkInstance instance = VK_NULL_HANDLE;
  uint32_t api_version = 0;
};
std::mutex process_instances_mutex;
std::map<std::string, ProcessInstance> process_instances;

std::string process_instance_key(bool validation) {
  std::string key = validation ? "validation" : "plain";
  return key + environment::vulkan_loader_settings();
}

}  // namespace

void InstanceState::add_message(std::string message) {
  if (print_messages) std::fprintf(stderr, "wasmgpu: Vulkan validation %s\n", message.c_str());
  std::lock_guard lock(messages_mutex);
  messages.push_back(std::move(message));
}

InstanceState::~InstanceState() {
  // The VkInstance itself lives as long as the process (process_instances).
  if (messenger) vkDestroyDebugUtilsMessengerEXT(instance, messenger, nullptr);
}

Result<Instance> Instance::create(const InstanceOptions& options) {
  if (initialize_loader() != VK_SUCCESS)
    return make_error(ErrorCode::Unsupported,
                      "cannot load the Vulkan loader (libvulkan.so.1): is Vulkan installed? "
                      "(Debian: libvulkan1 and a driver such as mesa-vulkan-drivers)");
  if (!vkEnumerateInstanceVersion)
    return make_error(ErrorCode::Unsupported, "the Vulkan loader only supports Vulkan 1.0; wasmgpu needs Vulkan 1.2");
  uint32_t loader_version = 0;
  if (VkResult r = vkEnumerateInstanceVersion(&loader_version); r != VK_SUCCESS)
    return vk_error("vkEnumerateInstanceVersion", r);
  if (loader_version < VK_API_VERSION_1_2)
    return make_error(ErrorCode::Unsupported, "the Vulkan loader supports Vulkan " +
                                                  format_api_version(loader_version) + "; wasmgpu needs Vulkan 1.2");

  auto state = std::make_unique<InstanceState>();
  state->validation = options.validation.value_or(environment::validation());
  state->print_messages = options.print_validation_messages;

  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  if (state->validation) {
    uint32_t count = 0;
    vkEnumerateInstanceLayerProperties(&count, nullptr);
    std::vector<VkLayerProperties> available(count);
    vkEnumerateInstanceLayerProperties(&count, available.data());
    bool found = false;
    for (const VkLayerProperties& layer : available) found |= std::strcmp(layer.layerName, kValidationLayer) == 0;
    if (!found)
      return make_error(ErrorCode::Unsupported,
                        std::string("Vulkan validation was requested (WASMGPU_VALIDATION) but ") + kValidationLayer +
                            " is not installed (Debian: vulkan-validationlayers)");
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
  }

  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "wasmgpu";
  app.pEngineName = "wasmgpu";
  app.apiVersion = loader_version >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_2;
  state->api_version = app.apiVersion;

  VkDebugUtilsMessengerCreateInfoEXT messenger_info{};
  messenger_info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  messenger_info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger_info.pfnUserCallback = on_debug_message;
  messenger_info.pUserData = state.get();

  VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT validation_features{};
  validation_features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
  validation_features.pNext = &messenger_info;  // also catches vkCreate/DestroyInstance messages
  validation_features.enabledValidationFeatureCount = 1;
  validation_features.pEnabledValidationFeatures = enables;

  VkInstanceCreateInfo create_info{};
  create_info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  create_info.pNext = state->validation ? &validation_features : nullptr;
  create_info.pApplicationInfo = &app;
  create_info.enabledLayerCount = uint32_t(layers.size());
  create_info.ppEnabledLayerNames = layers.data();
  create_info.enabledExtensionCount = uint32_t(extensions.size());
  create_info.ppEnabledExtensionNames = extensions.data();
  {
    std::lock_guard lock(process_instances_mutex);
    ProcessInstance& shared = process_instances[process_instance_key(state->validation)];
    if (!shared.instance) {
      // Messages of vkCreateInstance go to this Instance's state (the
      // chained messenger serves that call only).
      if (VkResult r = vkCreateInstance(&create_info, nullptr, &shared.instance); r != VK_SUCCESS) {
        shared.instance = VK_NULL_HANDLE;
        Error error = vk_error("vkCreateInstance", r);
        if (r == VK_ERROR_INCOMPATIBLE_DRIVER) {
          error.message += " (no Vulkan driver (ICD) supports Vulkan 1.2; is one installed?)";
          error.code = ErrorCode::Unsupported;
        }
        return error;
      }
      shared.api_version = app.apiVersion;
    }
    state->instance = shared.instance;
    state->api_version = shared.api_version;
  }
  volkLoadInstanceOnly(state->instance);

  if (state->validation) {
    if (VkResult r = vkCreateDebugUtilsMessengerEXT(state->instance, &messenger_info, nullptr, &state->messenger);
        r != VK_SUCCESS)
      return vk_error("vkCreateDebugUtilsMessengerEXT", r);
  }

  uint32_t count = 0;
  VkResult r = vkEnumeratePhysicalDevices(state->instance, &count, nullptr);
  if (r == VK_SUCCESS || r == VK_INCOMPLETE) {
    state->physical_devices.resize(count);
    r = vkEnumeratePhysicalDevices(state->instance, &count, state->physical_devices.data());
    state->physical_devices.resize(count);
  }
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) return vk_error("vkEnumeratePhysicalDevices", r);
  for (uint32_t i = 0; i < count; ++i) state->devices.push_back(read_device_info(state->physical_devices[i], i));
  return Instance(std::move(state));
}

Instance::Instance(std::unique_ptr<InstanceState> state) : state_(std::move(state)) {}
Instance::Instance(Instance&&) noexcept = default;
Instance& Instance::operator=(Instance&&) noexcept = default;
Instance::~Instance() = default;

const std::vector<DeviceInfo>& Instance::devices() const { return state_->devices; }
bool Instance::validation_enabled() const { return state_->validation; }
VkInstance Instance::handle() const { return state_->instance; }

std::vector<std::string> Instance::validation_messages() const {
  std::lock_guard lock(state_->messages_mutex);
  return state_->messages;
}

void Instance::clear_validation_messages() {
  std::lock_guard lock(state_->messages_mutex);
  state_->messages.clear();
}

}  // namespace wasmgpu::runtime
