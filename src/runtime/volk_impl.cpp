// The one translation unit that compiles volk, the Vulkan meta-loader: it
// loads the system's libvulkan at run time, so the binary has no link-time
// dependency on a Vulkan loader.
#define VOLK_IMPLEMENTATION
#include <volk.h>
