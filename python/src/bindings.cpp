// wasmgpu._core: the Python binding of the C++ host API (include/wasmgpu/).
// The Python-facing names and their documentation are in wasmgpu/__init__.pyi.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <wasmgpu/wasmgpu.hpp>

#include <array>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace wasmgpu::python {
namespace {

// The Python exceptions: wasmgpu.Error (every wasmgpu::Exception, with its
// kind) and its subclass wasmgpu.TrapError.
PyObject* error_type = nullptr;
PyObject* trap_error_type = nullptr;

void raise_error(const Exception& e) {
  PyObject* type = e.kind() == ErrorKind::Trap ? trap_error_type : error_type;
  py::object error = py::reinterpret_borrow<py::object>(type)(e.what());
  error.attr("kind") = to_string(e.kind());
  if (auto* trap = dynamic_cast<const TrapError*>(&e)) {
    error.attr("kernel") = trap->kernel();
    error.attr("trap") = trap->trap();
    error.attr("invocation") = trap->invocation();
    error.attr("trapped_invocations") = trap->trapped_invocations();
    error.attr("launch_index") = trap->launch_index();
    error.attr("reason") = trap->reason();
  }
  PyErr_SetObject(type, error.ptr());
}

// Buffer sizes with a fixed element size, so that the C++ API's check of a
// typed buffer against the kernel's element size applies to NumPy dtypes.
template <size_t N>
struct Element {
  std::byte bytes[N];
};
constexpr size_t kMaxTypedElement = 256;

template <size_t... N>
BufferBase typed_buffer(Device& device, size_t element_size, size_t count, std::index_sequence<N...>) {
  using Make = BufferBase (*)(Device&, size_t);
  static constexpr Make makers[] = {+[](Device& d, size_t c) -> BufferBase { return d.buffer<Element<N + 1>>(c); }...};
  return makers[element_size - 1](device, count);
}

// A device buffer with a NumPy dtype: count elements of dtype.itemsize bytes.
struct PyBuffer {
  BufferBase buffer;
  py::dtype dtype;
  size_t count;

  py::array read() const {
    py::array out(dtype, std::vector<py::ssize_t>{py::ssize_t(count)}, std::vector<py::ssize_t>{});
    if (count) buffer.read_bytes(std::span<std::byte>(static_cast<std::byte*>(out.mutable_data()), out.nbytes()));
    return out;
  }
};

// An object exposing the buffer protocol, as C-contiguous bytes.
struct HostBytes {
  py::buffer_info info;
  std::span<const std::byte> bytes() const {
    return {static_cast<const std::byte*>(info.ptr), size_t(info.size * info.itemsize)};
  }
};

HostBytes contiguous_bytes(const py::buffer& object) {
  py::buffer_info info = object.request();
  // A strided view (a NumPy slice) is copied into a contiguous array first.
  py::ssize_t stride = info.itemsize;
  for (py::ssize_t d = info.ndim - 1; d >= 0; --d) {
    if (info.shape[d] != 1 && info.strides[d] != stride) {
      py::array copy = py::module_::import("numpy").attr("ascontiguousarray")(object);
      return {copy.request()};
    }
    stride *= info.shape[d];
  }
  return {std::move(info)};
}

PyBuffer make_buffer(Device& device, const py::dtype& dtype, size_t count) {
  const size_t element = size_t(dtype.itemsize());
  if (element == 0) throw py::value_error("wasmgpu: a buffer's dtype must have a size");
  BufferBase buffer = element <= kMaxTypedElement
                          ? typed_buffer(device, element, count, std::make_index_sequence<kMaxTypedElement>())
                          : device.buffer_bytes(uint64_t(element) * count);
  return {std::move(buffer), dtype, count};
}

PyBuffer upload(Device& device, const py::buffer& object) {
  py::array array = py::array::ensure(object);
  if (!array) throw py::type_error("wasmgpu: upload takes a NumPy array or an object with the buffer protocol");
  HostBytes host = contiguous_bytes(array);
  PyBuffer buffer = make_buffer(device, array.dtype(), size_t(array.size()));
  if (!host.bytes().empty()) buffer.buffer.write_bytes(host.bytes());
  return buffer;
}

// One launch's arguments: the Arguments, and what they point to (buffers the
// call made for NumPy arrays, to be written back).
struct CallArguments {
  std::vector<std::unique_ptr<PyBuffer>> temporaries;
  std::vector<std::pair<py::array, const PyBuffer*>> write_back;
  std::vector<Argument> arguments;
};

const Param* param_named(const KernelInterface& interface, const std::string& name) {
  for (const Param& p : interface.params)
    if (p.name == name) return &p;
  return nullptr;
}

// A Python value as the Argument the parameter takes: Python ints and floats
// get the parameter's width (they have none of their own), NumPy scalars keep
// theirs, so a mismatch is reported by the C++ API's checks and messages.
Argument scalar_argument(const py::handle& value, const Param* param) {
  py::module_ numpy = py::module_::import("numpy");
  if (py::isinstance<py::bool_>(value) || py::isinstance(value, numpy.attr("bool_")))
    throw py::type_error(
        "wasmgpu: a bool cannot be a kernel argument (its size is the compiler's choice); pass 0 or 1");
  // NumPy scalars keep their own type (np.float64 is also a Python float).
  if (py::isinstance(value, numpy.attr("generic"))) {
    const std::string kind = value.attr("dtype").attr("kind").cast<std::string>();
    const int size = value.attr("dtype").attr("itemsize").cast<int>();
    if (kind == "f" && size == 4) return Argument(value.cast<float>());
    if (kind == "f" && size == 8) return Argument(value.cast<double>());
    if (kind == "i" && size <= 4) return Argument(value.cast<int32_t>());
    if (kind == "i" && size == 8) return Argument(value.cast<int64_t>());
    if (kind == "u" && size <= 4) return Argument(value.cast<uint32_t>());
    if (kind == "u" && size == 8) return Argument(value.cast<uint64_t>());
  }
  const bool scalar = param && param->kind == ParamKind::Scalar;
  if (py::isinstance<py::int_>(value)) {
    if (scalar && (param->scalar == ScalarType::I32 || param->scalar == ScalarType::U32)) {
      const long long v = value.cast<long long>();
      if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<uint32_t>::max())
        throw py::value_error("wasmgpu: parameter '" + param->name + "' is 32-bit; " + std::to_string(v) +
                              " does not fit");
      return v > std::numeric_limits<int32_t>::max() ? Argument(uint32_t(v)) : Argument(int32_t(v));
    }
    if (scalar && param->scalar == ScalarType::U64) return Argument(value.cast<uint64_t>());
    return Argument(value.cast<int64_t>());
  }
  if (py::isinstance<py::float_>(value)) {
    if (scalar && param->scalar == ScalarType::F32) return Argument(value.cast<float>());
    return Argument(value.cast<double>());
  }
  throw py::type_error("wasmgpu: cannot pass a " + py::str(py::type::of(value).attr("__name__")).cast<std::string>() +
                       " to a kernel: give an int, a float, a NumPy scalar or array, or a wasmgpu.Buffer");
}

Argument argument_for(Device& device, const py::handle& value, const Param* param, CallArguments& call) {
  if (py::isinstance<PyBuffer>(value)) return Argument(value.cast<PyBuffer&>().buffer);
  if (py::isinstance<py::array>(value)) {
    py::array array = py::reinterpret_borrow<py::array>(value);
    // Written back unless the kernel declares the pointer const: a kernel
    // without metadata has plain i32 parameters, which may be written through.
    const bool writes = param == nullptr || param->kind == ParamKind::Scalar || param->writable;
    if (writes && !array.writeable())
      throw py::value_error("wasmgpu: parameter '" + (param ? param->name : std::string("?")) +
                            "' is written by the kernel, but the array is read-only");
    call.temporaries.push_back(std::make_unique<PyBuffer>(upload(device, array)));
    if (writes) call.write_back.emplace_back(array, call.temporaries.back().get());
    return Argument(call.temporaries.back()->buffer);
  }
  return scalar_argument(value, param);
}

// Copies a kernel's results back into the NumPy arrays it was given.
void write_back(const CallArguments& call) {
  for (const auto& [array, buffer] : call.write_back) {
    py::array result = buffer->read();
    py::module_::import("numpy").attr("copyto")(array, result.attr("reshape")(array.attr("shape")));
  }
}

Launch launch_of(const py::handle& shape) {
  if (py::isinstance<Launch>(shape)) return shape.cast<Launch>();
  if (py::isinstance<py::int_>(shape) && !py::isinstance<py::bool_>(shape)) {
    const long long n = shape.cast<long long>();
    if (n < 0 || n > 0xFFFFFFFFll)
      throw py::value_error("wasmgpu: a launch of " + std::to_string(n) +
                            " invocations: the count must be between 0 and 4294967295");
    return Launch(uint32_t(n));
  }
  throw py::type_error("wasmgpu: a launch is an invocation count (int) or a wasmgpu.Launch");
}

struct PyModule {
  std::shared_ptr<Device> device;  // the Python Device keeps the handle alive too
  Module module;
};

struct PyKernel {
  std::shared_ptr<Device> device;
  Kernel kernel;

  void call(const py::handle& shape, const py::args& args, const py::kwargs& kwargs) const {
    const KernelInterface& interface = kernel.interface();
    if (args.size() > 0 && kwargs.size() > 0)
      throw py::type_error("wasmgpu: kernel '" + kernel.name() +
                           "': give its arguments all by position or all by name, not both");
    const Launch launch = launch_of(shape);
    CallArguments call;
    size_t position = 0;
    for (const py::handle& value : args) {
      const Param* param = position < interface.params.size() ? &interface.params[position] : nullptr;
      call.arguments.push_back(argument_for(*device, value, param, call));
      ++position;
    }
    for (const auto& [key, value] : kwargs) {
      const std::string name = key.cast<std::string>();
      call.arguments.push_back(argument_for(*device, value, param_named(interface, name), call).named(name));
    }
    // The GIL stays held: a Device is used from one thread at a time.
    kernel.launch(launch, std::span<const Argument>(call.arguments));
    write_back(call);
  }
};

// The names of interface.hpp's to_string, which libwasmgpu.so does not
// export (the interface types are linked in with hidden symbols).
const char* scalar_name(ScalarType type) {
  switch (type) {
    case ScalarType::I32: return "i32";
    case ScalarType::U32: return "u32";
    case ScalarType::I64: return "i64";
    case ScalarType::U64: return "u64";
    case ScalarType::F32: return "f32";
    case ScalarType::F64: return "f64";
  }
  return "?";
}

const char* kind_name(ParamKind kind) {
  switch (kind) {
    case ParamKind::Scalar: return "scalar";
    case ParamKind::Bytes: return "bytes";
    case ParamKind::Buffer: return "buffer";
    case ParamKind::UniformBuffer: return "uniform buffer";
    case ParamKind::StorageImage: return "storage image";
    case ParamKind::SampledImage: return "sampled image";
    case ParamKind::Sampler: return "sampler";
    case ParamKind::CombinedImageSampler: return "combined image sampler";
  }
  return "?";
}

py::dict param_dict(const Param& p) {
  py::dict d;
  d["name"] = p.name;
  d["kind"] = kind_name(p.kind);
  d["scalar"] = p.kind == ParamKind::Scalar ? py::object(py::str(scalar_name(p.scalar))) : py::object(py::none());
  d["element_type"] = p.element_type;
  d["element_size"] = p.element_size;
  d["writable"] = p.writable;
  return d;
}

std::shared_ptr<Device> open_device(const py::object& which) {
  if (which.is_none()) return std::make_shared<Device>(Device::open());
  if (py::isinstance<py::int_>(which)) return std::make_shared<Device>(Device::open(which.cast<uint32_t>()));
  if (py::isinstance<py::str>(which)) {
    DeviceOptions options;
    options.name = which.cast<std::string>();
    return std::make_shared<Device>(Device::open(options));
  }
  throw py::type_error("wasmgpu: Device() takes a device index (int), part of a device name (str), or nothing");
}

PyModule load(const std::shared_ptr<Device>& device, const py::object& source, const std::string& float_mode,
              bool trap_sites, std::optional<uint64_t> heap_bytes) {
  ModuleOptions options;
  if (float_mode == "fast")
    options.float_mode = ModuleOptions::FloatMode::Fast;
  else if (float_mode != "exact")
    throw py::value_error("wasmgpu: float_mode is 'exact' (wasm's bits on every device) or 'fast', not '" + float_mode +
                          "'");
  options.trap_sites = trap_sites;
  options.heap_bytes = heap_bytes;  // checked by the library (8 KiB to 1 GiB), as --heap is
  if (py::isinstance<py::bytes>(source) || py::isinstance<py::bytearray>(source) ||
      py::isinstance<py::memoryview>(source)) {
    HostBytes host = contiguous_bytes(py::reinterpret_borrow<py::buffer>(source));
    auto bytes = host.bytes();
    return {device, device->load(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
                                 options)};
  }
  py::object path = py::module_::import("os").attr("fspath")(source);
  return {device, device->load_file(path.cast<std::string>(), options)};
}

}  // namespace
}  // namespace wasmgpu::python

PYBIND11_MODULE(_core, m) {
  using namespace wasmgpu;
  using namespace wasmgpu::python;
  m.doc() = "wasmgpu: run WebAssembly kernels on Vulkan devices (the C++ host API, bound)";

  py::object base = py::reinterpret_borrow<py::object>(PyExc_RuntimeError);
  error_type = PyErr_NewException("wasmgpu.Error", base.ptr(), nullptr);
  trap_error_type = PyErr_NewException("wasmgpu.TrapError", error_type, nullptr);
  m.attr("Error") = py::handle(error_type);
  m.attr("TrapError") = py::handle(trap_error_type);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Exception& e) {
      raise_error(e);
    }
  });

  py::class_<DeviceInfo>(m, "DeviceInfo")
      .def_readonly("index", &DeviceInfo::index)
      .def_readonly("name", &DeviceInfo::name)
      .def_readonly("type", &DeviceInfo::type)
      .def_readonly("driver", &DeviceInfo::driver)
      .def_readonly("api_version", &DeviceInfo::api_version)
      .def_readonly("float64", &DeviceInfo::float64)
      .def_readonly("int64", &DeviceInfo::int64)
      .def_readonly("subgroup_size", &DeviceInfo::subgroup_size)
      .def_readonly("max_workgroup_invocations", &DeviceInfo::max_workgroup_invocations)
      .def_readonly("max_buffer_bytes", &DeviceInfo::max_buffer_bytes)
      .def_readonly("unusable_reason", &DeviceInfo::unusable_reason)
      .def_property_readonly("usable", &DeviceInfo::usable)
      .def("__repr__", [](const DeviceInfo& d) {
        return "<wasmgpu.DeviceInfo " + std::to_string(d.index) + " '" + d.name + "' (" + d.type + ")>";
      });
  m.def("devices", &devices);

  py::class_<Launch>(m, "Launch")
      .def_static(
          "invocations", [](uint32_t n, uint32_t workgroup_size) { return Launch::invocations(n, workgroup_size); },
          py::arg("n"), py::arg("workgroup_size") = 0)
      .def_static(
          "grid",
          [](std::array<uint32_t, 3> groups, std::array<uint32_t, 3> workgroup_size) {
            return Launch::grid(groups, workgroup_size);
          },
          py::arg("groups"), py::arg("workgroup_size") = std::array<uint32_t, 3>{0, 0, 0})
      .def_readonly("n", &Launch::n)
      .def_readonly("workgroup_size", &Launch::workgroup_size)
      .def_readonly("groups", &Launch::groups);

  py::class_<PyBuffer>(m, "Buffer")
      .def_readonly("dtype", &PyBuffer::dtype)
      .def("__len__", [](const PyBuffer& b) { return b.count; })
      .def_property_readonly("nbytes", [](const PyBuffer& b) { return b.buffer.size_bytes(); })
      .def("read", &PyBuffer::read)
      .def(
          "__array__",
          [](const PyBuffer& b, py::object dtype, py::object) {
            py::array a = b.read();
            return dtype.is_none() ? a : py::array(a.attr("astype")(dtype));
          },
          py::arg("dtype") = py::none(), py::arg("copy") = py::none())
      .def(
          "write",
          [](PyBuffer& b, const py::buffer& data, size_t first) {
            HostBytes host = contiguous_bytes(data);
            b.buffer.write_bytes(host.bytes(), uint64_t(first) * size_t(b.dtype.itemsize()));
          },
          py::arg("data"), py::arg("first") = 0)
      .def("__repr__", [](const PyBuffer& b) {
        return "<wasmgpu.Buffer of " + std::to_string(b.count) + " " + py::repr(b.dtype).cast<std::string>() + ">";
      });

  py::class_<PyKernel>(m, "Kernel")
      .def_property_readonly("name", [](const PyKernel& k) { return k.kernel.name(); })
      .def_property_readonly("params",
                             [](const PyKernel& k) {
                               py::list params;
                               for (const Param& p : k.kernel.interface().params) params.append(param_dict(p));
                               return params;
                             })
      .def("__call__", &PyKernel::call, py::arg("launch"))
      .def("__repr__", [](const PyKernel& k) { return "<wasmgpu.Kernel '" + k.kernel.name() + "'>"; });

  py::class_<PyModule>(m, "Module")
      .def("kernel",
           [](PyModule& mod, const std::string& name) { return PyKernel{mod.device, mod.module.kernel(name)}; })
      .def_property_readonly("kernel_names",
                             [](const PyModule& mod) {
                               std::vector<std::string> names;
                               for (const KernelInterface& k : mod.module.kernels()) names.push_back(k.name);
                               return names;
                             })
      .def("__getitem__",
           [](PyModule& mod, const std::string& name) { return PyKernel{mod.device, mod.module.kernel(name)}; });

  py::class_<Device, std::shared_ptr<Device>>(m, "Device")
      .def(py::init(&open_device), py::arg("which") = py::none())
      .def_property_readonly("info", &Device::info, py::return_value_policy::reference_internal)
      .def("load", &load, py::arg("source"), py::arg("float_mode") = "exact", py::arg("trap_sites") = false,
           py::arg("heap_bytes") = py::none())
      .def(
          "buffer",
          [](Device& d, size_t count, const py::object& dtype) {
            return make_buffer(d, py::dtype::from_args(dtype), count);
          },
          py::arg("count"), py::arg("dtype") = py::module_::import("numpy").attr("float32"))
      .def("upload", &upload, py::arg("data"))
      .def("wait_idle", [](Device& d) { d.wait_idle(); })
      .def("__repr__", [](const Device& d) { return "<wasmgpu.Device '" + d.info().name + "'>"; });
}
