// The device self-test through the device interface (wasmgpu/selftest.hpp).
#include "wasmgpu/selftest.hpp"

#include "api/impl.h"

namespace wasmgpu {

SelftestReport selftest(Device& device, const SelftestOptions& options) {
  const std::shared_ptr<detail::DeviceImpl>& handle = detail::Access::device(device);
  if (!handle) detail::raise(ErrorKind::UseAfterMove, "selftest() of a moved-from Device");
  detail::DeviceImpl& impl = *handle;
  device::SelftestOptions device_options{options.force, options.progress};
  const device::SelftestReport report =
      detail::check(impl.backend->selftest(device_options), ErrorKind::InvalidArgument);
  SelftestReport out;
  out.cache = report.cache;
  out.raw_float_controls = report.raw_float_controls;
  for (const device::SelftestLine& l : report.lines)
    out.lines.push_back(
        SelftestLine{l.property, l.raw, l.handling, l.how, l.correct, l.cases, l.forced, l.raw_detail, l.wasm_detail});
  return out;
}

std::vector<std::string> selftest_force_from_environment() {
  return detail::check(detail::available_platform().selftest_force_from_environment(), ErrorKind::InvalidArgument);
}

std::string host_cpu_features() { return detail::available_platform().host_cpu_features(); }

}  // namespace wasmgpu
