#include "bindgen/bindgen.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace wasmgpu::bindgen {
namespace {

// A C++ spelling of a shader or C type with its size and alignment.
struct CppType {
  std::string spelling;
  uint32_t size = 0;
  uint32_t align = 1;
};

uint64_t round_up(uint64_t value, uint64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

const std::set<std::string>& keywords() {
  static const std::set<std::string> words = {
      "alignas",  "alignof",  "and",     "asm",     "auto",      "bool",     "break",    "case",      "catch",
      "char",     "class",    "concept", "const",   "constexpr", "continue", "decltype", "default",   "delete",
      "do",       "double",   "else",    "enum",    "explicit",  "export",   "extern",   "false",     "float",
      "for",      "friend",   "goto",    "if",      "inline",    "int",      "long",     "mutable",   "namespace",
      "new",      "noexcept", "not",     "nullptr", "operator",  "or",       "private",  "protected", "public",
      "register", "requires", "return",  "short",   "signed",    "sizeof",   "static",   "struct",    "switch",
      "template", "this",     "throw",   "true",    "try",       "typedef",  "typeid",   "typename",  "union",
      "unsigned", "using",    "virtual", "void",    "volatile",  "while",    "xor"};
  return words;
}

// GLSL scalar names (reflect's spelling) -> C++.
std::optional<CppType> glsl_scalar(const std::string& name) {
  static const std::map<std::string, CppType> scalars = {{"float", {"float", 4, 4}},
                                                         {"double", {"double", 8, 8}},
                                                         {"int", {"std::int32_t", 4, 4}},
                                                         {"uint", {"std::uint32_t", 4, 4}},
                                                         {"int64_t", {"std::int64_t", 8, 8}},
                                                         {"uint64_t", {"std::uint64_t", 8, 8}},
                                                         {"int16_t", {"std::int16_t", 2, 2}},
                                                         {"uint16_t", {"std::uint16_t", 2, 2}},
                                                         {"int8_t", {"std::int8_t", 1, 1}},
                                                         {"uint8_t", {"std::uint8_t", 1, 1}},
                                                         {"float16_t", {"std::uint16_t", 2, 2}},
                                                         {"bool", {"std::uint32_t", 4, 4}}};
  auto it = scalars.find(name);
  if (it == scalars.end()) return std::nullopt;
  return it->second;
}

// "vec4" -> float x4, "uvec2" -> uint x2, "dvec3", "i64vec2" ...
std::optional<std::pair<CppType, uint32_t>> glsl_vector(const std::string& name) {
  static const std::map<std::string, std::string> prefixes = {
      {"", "float"},       {"d", "double"},      {"i", "int"},        {"u", "uint"},
      {"b", "bool"},       {"i64", "int64_t"},   {"u64", "uint64_t"}, {"i16", "int16_t"},
      {"u16", "uint16_t"}, {"f16", "float16_t"}, {"i8", "int8_t"},    {"u8", "uint8_t"}};
  const size_t at = name.find("vec");
  if (at == std::string::npos || at + 4 != name.size()) return std::nullopt;
  auto prefix = prefixes.find(name.substr(0, at));
  const char n = name.back();
  if (prefix == prefixes.end() || n < '2' || n > '4') return std::nullopt;
  return std::pair(*glsl_scalar(prefix->second), uint32_t(n - '0'));
}

class Generator {
 public:
  Generator(const std::vector<KernelInterface>& kernels, const std::vector<StructLayout>& nested,
            const Options& options)
      : kernels_(kernels), options_(options) {
    for (const StructLayout& s : nested) layouts_.emplace(s.name, s);
    for (const KernelInterface& k : kernels)
      for (const Param& p : k.params)
        if (p.layout) layouts_.emplace(p.layout->name, *p.layout);
  }

  std::string run();

 private:
  std::optional<CppType> shader_type(const std::string& type, uint32_t size, uint32_t stride);
  std::optional<CppType> c_pointee(const std::string& type);
  CppType struct_type(const std::string& name, std::optional<uint32_t> element_stride = std::nullopt);
  void emit_struct(const StructLayout& layout, std::optional<uint32_t> element_stride);
  std::string buffer_type(const KernelInterface& k, const Param& p, bool& typed);
  void emit_kernel(const KernelInterface& k);

  const std::vector<KernelInterface>& kernels_;
  const Options& options_;
  std::map<std::string, StructLayout> layouts_;
  std::map<std::string, CppType> emitted_;  // struct name -> its C++ type
  std::set<std::string> in_progress_;
  std::ostringstream structs_, classes_, asserts_;
};

// A member or element of a SPIR-V layout: scalars, vectors, matrices (as
// columns of `size / columns` bytes), arrays with their stride, structs.
std::optional<CppType> Generator::shader_type(const std::string& type, uint32_t size, uint32_t stride) {
  const size_t bracket = type.find('[');
  if (bracket != std::string::npos) {
    const std::string element = type.substr(0, bracket);
    const std::string dims = type.substr(bracket);
    if (dims.find('[', 1) != std::string::npos || dims == "[]" || stride == 0) return std::nullopt;
    const uint32_t count = uint32_t(std::stoul(dims.substr(1)));
    auto inner = shader_type(element, stride, 0);
    if (!inner) return std::nullopt;
    if (inner->size > stride) return std::nullopt;
    std::string e = inner->size == stride
                        ? inner->spelling
                        : "wasmgpu::bindgen_support::strided<" + inner->spelling + ", " + std::to_string(stride) + ">";
    return CppType{"std::array<" + e + ", " + std::to_string(count) + ">", stride * count, inner->align};
  }
  if (auto scalar = glsl_scalar(type)) return scalar;
  if (auto vector = glsl_vector(type)) {
    auto [scalar, n] = *vector;
    return CppType{"std::array<" + scalar.spelling + ", " + std::to_string(n) + ">", scalar.size * n, scalar.align};
  }
  // matC or matCxR (d prefix for doubles): C columns of size / C bytes.
  for (const char* prefix : {"mat", "dmat"}) {
    const std::string p = prefix;
    if (type.rfind(p, 0) != 0 || type.size() < p.size() + 1) continue;
    const uint32_t columns = uint32_t(type[p.size()] - '0');
    if (columns < 2 || columns > 4 || size == 0 || size % columns) return std::nullopt;
    const CppType scalar = *glsl_scalar(p == "mat" ? "float" : "double");
    const uint32_t column_bytes = size / columns;
    if (column_bytes % scalar.size) return std::nullopt;
    const std::string column =
        "std::array<" + scalar.spelling + ", " + std::to_string(column_bytes / scalar.size) + ">";
    return CppType{"std::array<" + column + ", " + std::to_string(columns) + ">", size, scalar.align};
  }
  if (layouts_.count(type)) return struct_type(type);
  return std::nullopt;
}

// A C pointee spelling of a wasm kernel (wasm32: long is 4 bytes).
std::optional<CppType> Generator::c_pointee(const std::string& type) {
  static const std::map<std::string, CppType> scalars = {{"float", {"float", 4, 4}},
                                                         {"double", {"double", 8, 8}},
                                                         {"char", {"char", 1, 1}},
                                                         {"signed char", {"std::int8_t", 1, 1}},
                                                         {"unsigned char", {"std::uint8_t", 1, 1}},
                                                         {"short", {"std::int16_t", 2, 2}},
                                                         {"unsigned short", {"std::uint16_t", 2, 2}},
                                                         {"int", {"std::int32_t", 4, 4}},
                                                         {"unsigned", {"std::uint32_t", 4, 4}},
                                                         {"unsigned int", {"std::uint32_t", 4, 4}},
                                                         {"long", {"std::int32_t", 4, 4}},
                                                         {"unsigned long", {"std::uint32_t", 4, 4}},
                                                         {"long long", {"std::int64_t", 8, 8}},
                                                         {"unsigned long long", {"std::uint64_t", 8, 8}},
                                                         {"size_t", {"std::uint32_t", 4, 4}},
                                                         {"int8_t", {"std::int8_t", 1, 1}},
                                                         {"uint8_t", {"std::uint8_t", 1, 1}},
                                                         {"int16_t", {"std::int16_t", 2, 2}},
                                                         {"uint16_t", {"std::uint16_t", 2, 2}},
                                                         {"int32_t", {"std::int32_t", 4, 4}},
                                                         {"uint32_t", {"std::uint32_t", 4, 4}},
                                                         {"int64_t", {"std::int64_t", 8, 8}},
                                                         {"uint64_t", {"std::uint64_t", 8, 8}}};
  auto it = scalars.find(type);
  if (it != scalars.end()) return it->second;
  if (type.empty() || type == "void" || type.find('*') != std::string::npos) return std::nullopt;
  return CppType{type, 0, 0};  // a struct or typedef the includes define
}

CppType Generator::struct_type(const std::string& name, std::optional<uint32_t> element_stride) {
  if (auto it = emitted_.find(name); it != emitted_.end()) return it->second;
  if (in_progress_.count(name)) return CppType{identifier(name), 0, 1};
  emit_struct(layouts_.at(name), element_stride);
  return emitted_.at(name);
}

// The struct with explicit padding so that every member sits at the
// shader's offset, and static_asserts that say so. A runtime array at the
// end is left out: the struct is the fixed part of the block.
void Generator::emit_struct(const StructLayout& layout, std::optional<uint32_t> element_stride) {
  in_progress_.insert(layout.name);
  struct Member {
    std::string name, type;
    uint32_t offset, size;
    bool padding;
  };
  std::vector<Member> members;
  uint32_t end = 0, align = 1;
  int pads = 0;
  std::set<std::string> names;
  bool runtime_array = false;
  for (const StructMember& m : layout.members) {
    if (m.type.ends_with("[]")) {
      runtime_array = true;
      break;
    }
    std::optional<CppType> type = shader_type(m.type, m.size, m.array_stride);
    if (!type || type->size != m.size || m.offset % type->align != 0)
      type = CppType{"std::array<std::byte, " + std::to_string(m.size) + ">", m.size, 1};
    if (m.offset > end) {
      members.push_back({"_pad" + std::to_string(pads++), "std::byte", end, m.offset - end, true});
    } else if (m.offset < end) {
      continue;  // overlapping members (never from a block layout)
    }
    std::string name = identifier(m.name);
    while (!names.insert(name).second) name += "_";
    members.push_back({name, type->spelling, m.offset, m.size, false});
    end = m.offset + m.size;
    align = std::max(align, type->align);
  }
  uint32_t size = uint32_t(round_up(std::max(end, layout.size), align));
  if (element_stride && *element_stride > size && *element_stride % align == 0) size = *element_stride;
  if (size > end) members.push_back({"_pad" + std::to_string(pads++), "std::byte", end, size - end, true});
  const std::string id = identifier(layout.name);
  structs_ << "// " << layout.name << ": " << layout.size << " bytes in the shader"
           << (runtime_array ? " before its runtime array, which is left out" : "") << "\n";
  structs_ << "struct " << id << " {\n";
  for (const Member& m : members) {
    if (m.padding)
      structs_ << "  std::byte " << m.name << "[" << m.size << "];\n";
    else
      structs_ << "  " << m.type << " " << m.name << ";  // offset " << m.offset << "\n";
  }
  structs_ << "};\n";
  for (const Member& m : members)
    if (!m.padding)
      structs_ << "static_assert(offsetof(" << id << ", " << m.name << ") == " << m.offset << ", \"" << id
               << "::" << m.name << " must be at offset " << m.offset << " as in the shader\");\n";
  structs_ << "static_assert(sizeof(" << id << ") == " << size << ", \"" << id << " must be " << size
           << " bytes as in the shader\");\n\n";
  emitted_[layout.name] = CppType{id, size, align};
  in_progress_.erase(layout.name);
}

std::string support_code() {
  return R"CODE(#ifndef WASMGPU_BINDGEN_SUPPORT_1
#define WASMGPU_BINDGEN_SUPPORT_1
// Shared by every generated header.
namespace wasmgpu::bindgen_support {

// Which argument types a scalar parameter of type T takes: integers no
// wider than the parameter (signedness free, bool refused), float for f32,
// float or double for f64 -- the rules of the dynamic API, at compile time.
template <class T, class U>
inline constexpr bool accepts = [] {
  using V = std::remove_cvref_t<U>;
  if constexpr (std::is_integral_v<T>)
    return std::is_integral_v<V> && !std::is_same_v<V, bool> && sizeof(V) <= sizeof(T);
  else if constexpr (std::is_same_v<T, float>)
    return std::is_same_v<V, float>;
  else
    return std::is_same_v<V, float> || std::is_same_v<V, double>;
}();

template <class T>
struct scalar {
  template <class U>
  scalar(const U& value) : value(cast(value)) {}
  T value;

 private:
  template <class U>
  static T cast(const U& value) {
    static_assert(accepts<T, U>,
                  "wasmgpu bindgen: wrong argument type for this kernel parameter (integers no wider than the "
                  "parameter, float for f32, float or double for f64)");
    if constexpr (accepts<T, U>) return static_cast<T>(value);
    else return T{};
  }
};

// An i32 parameter of a wasm kernel without metadata: an integer or a buffer.
struct i32_or_buffer {
  template <class U>
  i32_or_buffer(const U& value) : argument(make(value)) {}
  wasmgpu::Argument argument;

 private:
  template <class U>
  static wasmgpu::Argument make(const U& value) {
    if constexpr (std::is_base_of_v<wasmgpu::BufferBase, U>) {
      return wasmgpu::Argument(static_cast<const wasmgpu::BufferBase&>(value));
    } else {
      static_assert(accepts<std::int32_t, U>,
                    "wasmgpu bindgen: an i32 parameter takes an integer of at most 4 bytes or a buffer");
      if constexpr (accepts<std::int32_t, U>) return wasmgpu::Argument(static_cast<std::int32_t>(value));
      else return wasmgpu::Argument(0);
    }
  }
};

// A uniform block: the value (the launch uploads it) or a buffer holding it.
template <class T>
struct uniform {
  uniform(const T& value) : argument(wasmgpu::Argument::bytes(value)) {}
  uniform(const wasmgpu::BufferBase& buffer) : argument(buffer) {}
  wasmgpu::Argument argument;
};

// An array element the shader's layout spaces Stride bytes apart.
template <class T, std::size_t Stride>
struct strided {
  T value;
  std::byte padding[Stride - sizeof(T)];
};

}  // namespace wasmgpu::bindgen_support
#endif  // WASMGPU_BINDGEN_SUPPORT_1
)CODE";
}

// The C++ type of a buffer parameter; `typed` false for untyped buffers.
std::string Generator::buffer_type(const KernelInterface& k, const Param& p, bool& typed) {
  typed = false;
  std::optional<CppType> element;
  if (k.source == KernelSource::Wasm) {
    element = c_pointee(p.element_type);
    if (element && element->size == 0 && p.element_size) {
      // A struct or typedef from the includes: its size must match the kernel's.
      asserts_ << "static_assert(sizeof(" << element->spelling << ") == " << p.element_size << ", \""
               << "kernel '" << k.name << "', parameter '" << p.name << "': " << p.element_type << " is "
               << p.element_size << " bytes in the wasm module (#include its definition before this header)\");\n";
    }
  } else if (p.layout) {
    const bool runtime_array = !p.layout->members.empty() && p.layout->members.back().type.ends_with("[]");
    if (runtime_array && p.layout->size == 0) {
      const StructMember& array = p.layout->members.back();
      const std::string type = array.type.substr(0, array.type.size() - 2);
      if (layouts_.count(type))
        element = struct_type(type, array.array_stride);
      else
        element = shader_type(type, array.array_stride, 0);
      if (element && element->size != array.array_stride) element.reset();
    } else if (!runtime_array) {
      element = struct_type(p.layout->name);
    } else {
      struct_type(p.layout->name);  // the header of the block, for the caller's use
    }
  }
  if (!element) return std::string(p.writable ? "" : "const ") + "wasmgpu::BufferBase&";
  typed = true;
  return std::string(p.writable ? "" : "const ") + "wasmgpu::Buffer<" + element->spelling + ">&";
}

std::string scalar_spelling(ScalarType type) {
  switch (type) {
    case ScalarType::I32: return "std::int32_t";
    case ScalarType::U32: return "std::uint32_t";
    case ScalarType::I64: return "std::int64_t";
    case ScalarType::U64: return "std::uint64_t";
    case ScalarType::F32: return "float";
    case ScalarType::F64: return "double";
  }
  return "?";
}

void Generator::emit_kernel(const KernelInterface& k) {
  struct Arg {
    std::string declaration, expression, comment;
  };
  std::vector<Arg> args;
  std::set<std::string> names = {"launch", "commands", "args", "kernel_"};
  const bool plain_wasm =
      k.source == KernelSource::Wasm && std::all_of(k.params.begin(), k.params.end(), [](const Param& p) {
        return p.kind == ParamKind::Scalar && p.element_type.empty();
      });
  for (const Param& p : k.params) {
    std::string name = identifier(p.name);
    while (!names.insert(name).second) name += "_";
    Arg a;
    switch (p.kind) {
      case ParamKind::Scalar:
        if (plain_wasm && p.scalar == ScalarType::I32) {
          a.declaration = "wasmgpu::bindgen_support::i32_or_buffer " + name;
          a.expression = name + ".argument";
          a.comment = "i32 or a buffer (no metadata)";
        } else {
          a.declaration = "wasmgpu::bindgen_support::scalar<" + scalar_spelling(p.scalar) + "> " + name;
          a.expression = "wasmgpu::Argument(" + name + ".value)";
          a.comment = to_string(p.scalar);
        }
        break;
      case ParamKind::Buffer: {
        bool typed = false;
        a.declaration = buffer_type(k, p, typed) + " " + name;
        a.expression = "wasmgpu::Argument(" + name + ")";
        a.comment = std::string(p.writable ? "" : "read-only ") + "buffer of " +
                    (p.element_type.empty() ? std::string("bytes") : p.element_type);
        break;
      }
      case ParamKind::UniformBuffer: {
        CppType block = struct_type(p.layout->name);
        a.declaration = "wasmgpu::bindgen_support::uniform<" + block.spelling + "> " + name;
        a.expression = name + ".argument";
        a.comment = "uniform block " + p.layout->name + " (a value or a buffer)";
        break;
      }
      case ParamKind::Bytes: {
        std::optional<CppType> type =
            p.layout ? std::optional<CppType>(struct_type(p.layout->name)) : shader_type(p.element_type, p.size, 0);
        if (!type || type->size != p.size)
          type = CppType{"std::array<std::byte, " + std::to_string(p.size) + ">", p.size, 1};
        a.declaration = "const " + type->spelling + "& " + name;
        a.expression = "wasmgpu::Argument::bytes(" + name + ")";
        a.comment = p.element_type + ", " + std::to_string(p.size) + " bytes";
        break;
      }
      case ParamKind::Sampler:
        a.declaration = "const wasmgpu::Sampler& " + name;
        a.expression = "wasmgpu::Argument(" + name + ")";
        a.comment = "sampler";
        break;
      default:
        a.declaration = "const wasmgpu::Image& " + name;
        a.expression = "wasmgpu::Argument(" + name + ")";
        a.comment = std::string(to_string(p.kind)) + " " + p.element_type;
        break;
    }
    if (p.set) a.comment += ", set " + std::to_string(*p.set) + " binding " + std::to_string(*p.binding);
    if (p.push_offset) a.comment += ", push constant at offset " + std::to_string(*p.push_offset);
    args.push_back(std::move(a));
  }
  const std::string cls = identifier(k.name) + "_kernel";
  std::string params, list, expected_names;
  for (size_t i = 0; i < args.size(); ++i) {
    params += ",\n      " + args[i].declaration;
    list += (i ? ", " : "") + args[i].expression;
  }
  for (size_t i = 0; i < k.params.size(); ++i) expected_names += (i ? ", " : "") + k.params[i].name;
  const std::string span =
      args.empty() ? "std::span<const wasmgpu::Argument>()" : "std::span<const wasmgpu::Argument>(args)";
  const std::string arguments = args.empty() ? "" : "    const wasmgpu::Argument args[] = {" + list + "};\n";
  std::ostringstream& out = classes_;
  out << "// Kernel '" << k.name << "' (" << (k.source == KernelSource::Wasm ? "wasm" : "SPIR-V") << ")";
  if (k.workgroup_size)
    out << ", workgroup size " << (*k.workgroup_size)[0] << "x" << (*k.workgroup_size)[1] << "x"
        << (*k.workgroup_size)[2];
  out << ". Parameters:\n";
  for (size_t i = 0; i < args.size(); ++i) out << "//   " << k.params[i].name << ": " << args[i].comment << "\n";
  out << "class " << cls << " {\n public:\n";
  out << "  explicit " << cls << "(wasmgpu::Module& module) : kernel_(module.kernel(\"" << k.name << "\")) {\n";
  out << "    std::string names;\n";
  out << "    for (const wasmgpu::Param& p : kernel_.interface().params) names += (names.empty() ? \"\" : \", \") + "
         "p.name;\n";
  out << "    if (names != \"" << expected_names << "\")\n";
  out << "      throw wasmgpu::Exception(wasmgpu::ErrorKind::InvalidArgument,\n";
  out << "                               \"kernel '" << k.name << "' has parameters (\" + names + \"), not ("
      << expected_names << ") as when this header was generated: run wasmgpu bindgen again\");\n";
  out << "  }\n\n";
  out << "  // Runs the kernel and waits for it (wasmgpu::Kernel::operator()).\n";
  out << "  void operator()(wasmgpu::Launch launch" << params << ") const {\n"
      << arguments << "    kernel_.launch(launch, " << span << ");\n  }\n\n";
  out << "  // Records a launch into `commands` (wasmgpu::CommandBuffer::launch).\n";
  out << "  wasmgpu::LaunchId record(wasmgpu::CommandBuffer& commands, wasmgpu::Launch launch" << params
      << ") const {\n"
      << arguments << "    return commands.launch_dynamic(kernel_, launch, " << span << ");\n  }\n\n";
  out << "  const wasmgpu::Kernel& kernel() const { return kernel_; }\n\n private:\n  wasmgpu::Kernel kernel_;\n};\n\n";
}

std::string Generator::run() {
  for (const KernelInterface& k : kernels_) emit_kernel(k);
  std::ostringstream out;
  out << "// Generated by `wasmgpu bindgen`" << (options_.source_name.empty() ? "" : " from " + options_.source_name)
      << ". Do not edit: generate it again when the kernels change.\n"
      << "//\n"
      << "// One class per kernel, taking the kernel's arguments with their types: a\n"
      << "// wrong type or count is a compile error.\n"
      << "//\n"
      << "//   " << options_.name_space << "::Module kernels(device.load_file(\"...\"));\n";
  if (!kernels_.empty()) out << "//   kernels." << identifier(kernels_[0].name) << "(n, ...);   // runs and waits\n";
  out << "#pragma once\n\n"
      << "#include <wasmgpu/wasmgpu.hpp>\n\n"
      << "#include <array>\n#include <cstddef>\n#include <cstdint>\n#include <span>\n#include <string>\n"
      << "#include <type_traits>\n";
  for (const std::string& include : options_.includes) out << "#include \"" << include << "\"\n";
  out << "\n" << support_code() << "\n";
  out << "namespace " << options_.name_space << " {\n\n";
  out << structs_.str();
  out << asserts_.str() << (asserts_.str().empty() ? "" : "\n");
  out << classes_.str();
  out << "// Every kernel of the module.\nstruct Module {\n";
  out << "  explicit Module(wasmgpu::Module& module)";
  for (size_t i = 0; i < kernels_.size(); ++i)
    out << (i ? ", " : "\n      : ") << identifier(kernels_[i].name) << "(module)";
  out << " {}\n  explicit Module(wasmgpu::Module&& module) : Module(module) {}\n\n";
  for (const KernelInterface& k : kernels_)
    out << "  " << identifier(k.name) << "_kernel " << identifier(k.name) << ";\n";
  out << "};\n\n}  // namespace " << options_.name_space << "\n";
  return out.str();
}

}  // namespace

std::string identifier(const std::string& name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "_" + out;
  if (keywords().count(out)) out += "_";
  return out;
}

std::string generate(const std::vector<KernelInterface>& kernels, const std::vector<StructLayout>& nested_structs,
                     const Options& options) {
  return Generator(kernels, nested_structs, options).run();
}

}  // namespace wasmgpu::bindgen
