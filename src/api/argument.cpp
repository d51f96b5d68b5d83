// Binding launch arguments to a kernel's parameters, with the checks and
// messages of argument.hpp.
#include "wasmgpu/argument.hpp"

#include <cstdio>
#include <set>

#include "api/impl.h"

namespace wasmgpu {

namespace {

std::string float_text(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

}  // namespace

std::string Argument::describe() const {
  switch (kind_) {
    case Kind::Integer: {
      const std::string type = std::string(signed_ ? "int" : "uint") + std::to_string(8 * size_);
      return type + " " + (signed_ ? std::to_string(int64_t(bits_)) : std::to_string(bits_));
    }
    case Kind::Float:
      if (size_ == 4) {
        float value;
        const uint32_t bits = uint32_t(bits_);
        std::memcpy(&value, &bits, 4);
        return "float " + float_text(value);
      } else {
        double value;
        std::memcpy(&value, &bits_, 8);
        return "double " + float_text(value);
      }
    case Kind::Buffer: {
      const BufferBase* b = buffer();
      if (!b->valid()) return "a moved-from Buffer";
      if (b->element_size() > 1)
        return "a Buffer of " + std::to_string(b->size_bytes() / b->element_size()) + " " +
               std::to_string(b->element_size()) + "-byte elements";
      return "a " + std::to_string(b->size_bytes()) + "-byte Buffer";
    }
    case Kind::Image: return "an Image";
    case Kind::Sampler: return "a Sampler";
    case Kind::Bytes: return std::to_string(bytes_.size()) + " bytes";
  }
  return "?";
}

namespace detail {

namespace {

std::string expected_text(const Param& param) {
  switch (param.kind) {
    case ParamKind::Scalar:
      return std::string(to_string(param.scalar)) + (param.element_type.empty() ? "" : " (" + param.element_type + ")");
    case ParamKind::Buffer: {
      std::string text = param.writable ? "a Buffer" : "a Buffer (read-only)";
      if (!param.element_type.empty()) text += " of " + param.element_type;
      if (param.element_size) text += " (" + std::to_string(param.element_size) + "-byte elements)";
      return text;
    }
    case ParamKind::UniformBuffer:
      return "a uniform Buffer or Argument::bytes of " + std::to_string(param.size) + " bytes";
    case ParamKind::Bytes: return "Argument::bytes of " + std::to_string(param.size) + " bytes";
    case ParamKind::StorageImage: return "an Image (storage)";
    case ParamKind::SampledImage: return "an Image (sampled)";
    case ParamKind::Sampler: return "a Sampler";
    case ParamKind::CombinedImageSampler: return "an Image with a Sampler";
  }
  return "?";
}

std::string param_list(const KernelInterface& kernel) {
  std::string text;
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    if (i) text += ", ";
    text += kernel.params[i].name + ": " + expected_text(kernel.params[i]);
  }
  return text;
}

bool is_wide(ScalarType type) { return type == ScalarType::I64 || type == ScalarType::U64 || type == ScalarType::F64; }
bool is_integer(ScalarType type) { return type != ScalarType::F32 && type != ScalarType::F64; }

// Checks a buffer argument's handle and device; returns its impl.
std::shared_ptr<BufferImpl> bound_buffer(DeviceImpl& device, const BufferBase& buffer, const std::string& where) {
  const std::shared_ptr<BufferImpl>& impl = Access::buffer(buffer);
  if (!impl || !impl->buffer) raise(ErrorKind::UseAfterMove, where + ": the Buffer was moved from or destroyed");
  if (impl->device != &device)
    raise(ErrorKind::WrongDevice, where + ": the Buffer belongs to " + device_label(*impl->device) +
                                      ", but the kernel runs on " + device_label(device));
  if (impl->staging)
    raise(ErrorKind::InvalidArgument,
          where + ": a StagingBuffer is host memory, not a kernel argument; copy it into a device buffer");
  return impl;
}

// Checks an image or sampler argument's handle and device; returns its impl.
template <class Impl, class Handle>
std::shared_ptr<Impl> bound_object(DeviceImpl& device, const Handle& handle, const std::shared_ptr<Impl>& impl,
                                   bool live, const char* what, const std::string& where) {
  if (!impl || !live) raise(ErrorKind::UseAfterMove, where + ": the " + what + " was moved from or destroyed");
  if (impl->device != &device)
    raise(ErrorKind::WrongDevice, where + ": the " + what + " belongs to " + device_label(*impl->device) +
                                      ", but the kernel runs on " + device_label(device));
  (void)handle;
  return impl;
}

std::shared_ptr<ImageImpl> bound_image(DeviceImpl& device, const Image& image, const std::string& where) {
  const auto& impl = Access::image(image);
  return bound_object(device, image, impl, impl && impl->image != nullptr, "Image", where);
}

std::shared_ptr<SamplerImpl> bound_sampler(DeviceImpl& device, const Sampler& sampler, const std::string& where) {
  const auto& impl = Access::sampler(sampler);
  return bound_object(device, sampler, impl, impl && impl->sampler != nullptr, "Sampler", where);
}

}  // namespace

uint32_t KernelImpl::param_index(std::string_view name) const {
  for (uint32_t i = 0; i < interface_.params.size(); ++i)
    if (interface_.params[i].name == name) return i;
  std::string names;
  for (const Param& p : interface_.params) names += (names.empty() ? "'" : ", '") + p.name + "'";
  raise(ErrorKind::InvalidArgument, "kernel '" + interface_.name + "' has no parameter named '" + std::string(name) +
                                        "' (its parameters: " + (names.empty() ? "none" : names) + ")");
}

BoundArg KernelImpl::bind_one(DeviceImpl& device, uint32_t index, const Argument& value) const {
  const Param& param = interface_.params.at(index);
  const std::string where = "kernel '" + interface_.name + "', parameter '" + param.name + "' (argument " +
                            std::to_string(index + 1) + " of " + std::to_string(interface_.params.size()) + ")";
  auto mismatch = [&]() -> BoundArg {
    raise(ErrorKind::InvalidArgument,
          where + ": expected " + expected_text(param) + ", but " + value.describe() + " was given");
  };
  BoundArg bound;
  bound.kind = value.kind();
  switch (param.kind) {
    case ParamKind::Scalar:
      if (value.kind() == Argument::Kind::Integer) {
        if (!is_integer(param.scalar) || value.size() > (is_wide(param.scalar) ? 8u : 4u)) return mismatch();
        bound.bits = is_wide(param.scalar) ? value.bits() : (value.bits() & 0xFFFF'FFFFull);
        return bound;
      }
      if (value.kind() == Argument::Kind::Float) {
        if (param.scalar == ScalarType::F32 && value.size() == 4) {
          bound.bits = value.bits();
          return bound;
        }
        if (param.scalar == ScalarType::F64) {
          if (value.size() == 8) {
            bound.bits = value.bits();
          } else {  // float -> double is exact
            float f;
            const uint32_t bits = uint32_t(value.bits());
            std::memcpy(&f, &bits, 4);
            const double d = f;
            std::memcpy(&bound.bits, &d, 8);
          }
          return bound;
        }
        return mismatch();
      }
      if (value.kind() == Argument::Kind::Buffer && buffer_fits_scalar(param)) {
        bound.buffer = bound_buffer(device, *value.buffer(), where);
        return bound;
      }
      // Wasm kernels without metadata take images and samplers as their i32 handles.
      if (value.kind() == Argument::Kind::Image && buffer_fits_scalar(param)) {
        bound.image = bound_image(device, *value.image(), where);
        return bound;
      }
      if (value.kind() == Argument::Kind::Sampler && buffer_fits_scalar(param)) {
        bound.sampler = bound_sampler(device, *value.sampler(), where);
        return bound;
      }
      return mismatch();
    case ParamKind::Buffer:
    case ParamKind::UniformBuffer:
      if (value.kind() == Argument::Kind::Buffer) {
        bound.buffer = bound_buffer(device, *value.buffer(), where);
        const uint32_t element = bound.buffer->element_size;
        // Wasm pointers point at elements; a SPIR-V block may hold a header
        // before its array (the runtime checks its size instead).
        if (interface_.source == KernelSource::Wasm && param.kind == ParamKind::Buffer && param.element_size &&
            element > 1 && element != param.element_size)
          raise(ErrorKind::InvalidArgument, where + ": expected " + expected_text(param) + ", but " + value.describe() +
                                                " was given (element sizes differ)");
        if (param.kind == ParamKind::UniformBuffer && bound.buffer->size < param.size)
          raise(ErrorKind::BufferTooSmall, where + ": the uniform block has " + std::to_string(param.size) +
                                               " bytes, but " + value.describe() + " was given");
        return bound;
      }
      if (param.kind == ParamKind::UniformBuffer && value.kind() == Argument::Kind::Bytes) {
        if (value.size() != param.size) return mismatch();
        bound.bytes = value.byte_values();
        return bound;
      }
      return mismatch();
    case ParamKind::Bytes:
      if (value.kind() != Argument::Kind::Bytes || value.size() != param.size) return mismatch();
      bound.bytes = value.byte_values();
      return bound;
    case ParamKind::StorageImage:
    case ParamKind::SampledImage:
    case ParamKind::CombinedImageSampler:
      if (value.kind() != Argument::Kind::Image) return mismatch();
      bound.image = bound_image(device, *value.image(), where);
      return bound;
    case ParamKind::Sampler:
      if (value.kind() != Argument::Kind::Sampler) return mismatch();
      bound.sampler = bound_sampler(device, *value.sampler(), where);
      return bound;
  }
  return mismatch();
}

BoundLaunch KernelImpl::bind(DeviceImpl& device, const Launch& shape, std::span<const Argument> args) const {
  const std::string name = "kernel '" + interface_.name + "'";
  const size_t count = interface_.params.size();
  size_t named = 0;
  for (const Argument& a : args) named += !a.name().empty();
  if (named != 0 && named != args.size())
    raise(ErrorKind::InvalidArgument, name + ": " + std::to_string(named) + " of the " + std::to_string(args.size()) +
                                          " arguments are named; name all of them or none");
  BoundLaunch bound;
  bound.shape = shape;
  bound.args.resize(count);
  if (named == 0) {
    if (args.size() != count) {
      // Which parameters lack an argument, or which arguments have no parameter.
      std::string which;
      if (args.size() < count) {
        for (size_t i = args.size(); i < count; ++i)
          which += (which.empty() ? "'" : ", '") + interface_.params[i].name + "'";
        which = "no argument for " + which;
      } else {
        which = args.size() == count + 1 ? "argument " + std::to_string(count + 1) + " matches no parameter"
                                         : "arguments " + std::to_string(count + 1) + " to " +
                                               std::to_string(args.size()) + " match no parameter";
      }
      raise(ErrorKind::InvalidArgument, name + " takes " + std::to_string(count) +
                                            " argument(s) after the launch shape (" + param_list(interface_) +
                                            "), but " + std::to_string(args.size()) + " were given: " + which);
    }
    for (uint32_t i = 0; i < count; ++i) bound.args[i] = bind_one(device, i, args[i]);
    return bound;
  }
  std::vector<bool> seen(count, false);
  for (const Argument& a : args) {
    const uint32_t index = param_index(a.name());
    if (seen[index]) raise(ErrorKind::InvalidArgument, name + ": parameter '" + a.name() + "' is given twice");
    seen[index] = true;
    bound.args[index] = bind_one(device, index, a);
  }
  std::string missing;
  for (uint32_t i = 0; i < count; ++i)
    if (!seen[i]) missing += (missing.empty() ? "'" : ", '") + interface_.params[i].name + "'";
  if (!missing.empty())
    raise(ErrorKind::InvalidArgument,
          name + ": no argument for parameter(s) " + missing + " (takes " + param_list(interface_) + ")");
  return bound;
}

}  // namespace detail
}  // namespace wasmgpu
