// wasmgpu for WebGPU: runs the kernel bundles of
// `wasmgpu compile --target wgsl --bundle` in browsers (navigator.gpu) and in
// Node (the npm package `webgpu`, through ./node.mjs), with the C++ API's
// shape and messages (include/wasmgpu/*.hpp):
//
//   const dev = await Device.open();              // or Device.open(gpu | adapter | device)
//   const mod = await dev.load(bundle);           // the bundle's JSON (object or text)
//   const saxpy = mod.kernel('saxpy');
//   const x = dev.buffer(new Float32Array(n)), y = dev.buffer(Float32Array, n);
//   await saxpy(n, 2.0, x, y);                    // checked against the kernel's parameters
//   const out = await y.read(Float32Array);
//
// This file is the browser path: it imports nothing, and uses WebGPU's
// numeric flags instead of the GPUBufferUsage globals that Node lacks.
// docs/webgpu.md ("The runtime package") describes the design.

// GPUBufferUsage and GPUMapMode, as the WebGPU specification numbers them.
const kMapRead = 0x0001;
const kCopySrc = 0x0004;
const kCopyDst = 0x0008;
const kUniform = 0x0040;
const kStorage = 0x0080;
const kMapModeRead = 0x0001;

const kBundleFormat = 'wasmgpu-wgsl-bundle';
const kBundleVersion = 1;
// The fixed bindings this package provides (the bundle's abi.bindings).
const kKnownBindings = ['launch', 'traps', 'memory', 'first_buffer'];
// A 1-D launch without a workgroup size gets 64 (the C++ API's size on CPU
// devices and unknown ones: WebGPU does not say what kind of device runs).
const kDefaultWorkgroupSize = 64;
// The most bytes of shadow stack slots one dispatch takes (the C++ runtime's
// split, docs/memory-model.md).
const kStackBytesPerDispatch = 64 * 1024 * 1024;

// ErrorKind's names, as the C++ API's to_string(ErrorKind) spells them;
// WebGPU errors take the place of Vulkan errors.
export const ErrorKind = Object.freeze({
  InvalidArgument: 'invalid argument',
  BufferTooSmall: 'buffer too small',
  WrongDevice: 'wrong device',
  UseAfterMove: 'use after move',
  NotFound: 'not found',
  Unsupported: 'unsupported',
  Compile: 'compile error',
  Trap: 'trap',
  DeviceLost: 'device lost',
  WebGPU: 'WebGPU error',
});

export class WasmgpuError extends Error {
  constructor(kind, message) {
    super(message);
    this.name = 'WasmgpuError';
    this.kind = kind;
  }
}

// A kernel trapped: its kind (the trap's name), the lowest trapping
// invocation, how many invocations trapped and the launch's position among
// the launches of its command buffer (0 for a direct call).
export class TrapError extends WasmgpuError {
  constructor(message, { kernel, trap, invocation, trappedInvocations, launchIndex }) {
    super(ErrorKind.Trap, message);
    this.name = 'TrapError';
    this.kernel = kernel;
    this.trap = trap;
    this.invocation = invocation;
    this.trappedInvocations = trappedInvocations;
    this.launchIndex = launchIndex;
  }
}

function raise(kind, message) {
  throw new WasmgpuError(kind, message);
}

// C's printf("%g"), as the C++ API formats floats in its messages.
function formatG(v) {
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v < 0 ? '-inf' : 'inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const strip = (s) => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);
  const [mantissa, exponentText] = v.toExponential(5).split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6)
    return `${strip(mantissa)}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  return strip(v.toFixed(5 - exponent));
}

// ------------------------------------------------------------------- Launch

// The shape of a launch, as include/wasmgpu/launch.hpp: n invocations
// (1-D), or a grid of workgroups. A workgroup size of 0 in x: 64.
export class Launch {
  constructor(n, workgroupSize = [0, 0, 0], groups = null) {
    this.n = n;
    this.workgroupSize = workgroupSize;
    this.groups = groups;
  }
  static invocations(n, workgroupSize = 0) {
    return new Launch(checkedCount(n), [checkedDimension(workgroupSize), 0, 0]);
  }
  static grid(groups, workgroupSize = [0, 0, 0]) {
    const dims = (a) => [0, 1, 2].map((d) => checkedDimension(a[d] ?? (d === 0 ? 0 : 1)));
    return new Launch(0, dims(workgroupSize), dims(groups));
  }
}

function checkedCount(value) {
  const ok = (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint';
  if (!ok || value < 0 || value > 0xffffffff)
    raise(ErrorKind.InvalidArgument,
          `a launch of ${String(value)} invocations: the count must be between 0 and 4294967295`);
  return Number(value);
}

function checkedDimension(value) {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff)
    raise(ErrorKind.InvalidArgument, `a workgroup size or grid dimension of ${String(value)}: it must be between 0 and 4294967295`);
  return value;
}

function toLaunch(shape) {
  if (shape instanceof Launch) return shape;
  return new Launch(checkedCount(shape));
}

// ---------------------------------------------------------------- Arguments

class NamedArgument {
  constructor(name, value) {
    this.name = name;
    this.value = value;
  }
}

// A named argument: arg('y', y), as the C++ API's wasmgpu::arg.
export function arg(name, value) {
  return new NamedArgument(String(name), value);
}

function isPlainObject(v) {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function isHostArray(v) {
  return ArrayBuffer.isView(v);
}

function elementSizeOf(view) {
  return view.BYTES_PER_ELEMENT || 1;
}

// "number 2.5", "a Buffer of 16 4-byte elements", ... (Argument::describe).
function describe(v) {
  if (v instanceof Buffer) {
    if (v.destroyed) return 'a destroyed Buffer';
    if (v.elementSize > 1) return `a Buffer of ${Math.floor(v.size / v.elementSize)} ${v.elementSize}-byte elements`;
    return `a ${v.size}-byte Buffer`;
  }
  if (isHostArray(v)) {
    const name = v.constructor.name;
    const size = elementSizeOf(v);
    if (size > 1) return `a ${name} of ${v.length} ${size}-byte elements`;
    return `a ${v.byteLength}-byte ${name}`;
  }
  switch (typeof v) {
    case 'number': return `number ${Number.isSafeInteger(v) ? String(v) : formatG(v)}`;
    case 'bigint': return `bigint ${v}`;
    case 'boolean': return `boolean ${v}`;
    case 'string': return `a string ('${v}')`;
    case 'undefined': return 'undefined';
    case 'function': return 'a function';
  }
  if (v === null) return 'null';
  if (v instanceof Launch) return 'a Launch';
  return 'an object';
}

// What a parameter expects, as argument.cpp's expected_text.
function expectedText(param) {
  switch (param.kind) {
    case 'scalar': return param.scalar + (param.element_type ? ` (${param.element_type})` : '');
    case 'buffer': {
      let text = param.writable ? 'a Buffer' : 'a Buffer (read-only)';
      if (param.element_type) text += ` of ${param.element_type}`;
      if (param.element_size) text += ` (${param.element_size}-byte elements)`;
      return text;
    }
    case 'uniform_buffer': return `a uniform Buffer or Argument::bytes of ${param.size} bytes`;
    case 'bytes': return `Argument::bytes of ${param.size} bytes`;
    case 'storage_image': return 'an Image (storage)';
    case 'sampled_image': return 'an Image (sampled)';
    case 'sampler': return 'a Sampler';
    case 'combined_image_sampler': return 'an Image with a Sampler';
  }
  return '?';
}

function paramList(iface) {
  return iface.params.map((p) => `${p.name}: ${expectedText(p)}`).join(', ');
}

const kF32 = new Float32Array(1);
const kF32Bits = new Uint32Array(kF32.buffer);
const kF64 = new Float64Array(1);
const kF64Bits = new Uint32Array(kF64.buffer);

function isWide(scalar) {
  return scalar === 'i64' || scalar === 'u64' || scalar === 'f64';
}
function isIntegerType(scalar) {
  return scalar !== 'f32' && scalar !== 'f64';
}

// ---------------------------------------------------------- Address space

// The Vulkan runtime's first-fit allocator of wasm addresses
// (src/runtime/address_allocator.h), so that a fresh device gives its
// buffers the same addresses in the same order as the C++ API's.
class AddressAllocator {
  constructor({ buffer_base, end, alignment, guard }) {
    this.begin = Math.ceil(buffer_base / alignment) * alignment;
    this.end = end;
    this.alignment = alignment;
    this.guard = guard;
    this.spans = [];  // [base, reserved], sorted by base
  }
  allocate(size) {
    if (size > this.end) return null;
    const span = Math.ceil(Math.max(size, 1) / this.alignment) * this.alignment + this.guard;
    let candidate = this.begin;
    let at = 0;
    for (; at < this.spans.length; at++) {
      const [base, used] = this.spans[at];
      if (candidate + span <= base) break;
      candidate = base + used;
    }
    if (candidate + span > this.end) return null;
    this.spans.splice(at, 0, [candidate, span]);
    return candidate;
  }
  free(base) {
    const at = this.spans.findIndex(([b]) => b === base);
    if (at >= 0) this.spans.splice(at, 1);
  }
}

// The address layout of bundle version 1 (abi/launch_abi.h); a bundle
// carries its own, which must agree with it, since one device's buffers
// serve every module loaded on it.
const kAddresses = { buffer_base: 0x10000000, end: 0x100000000, alignment: 0x10000, guard: 0x10000 };

// ------------------------------------------------------------------- Device

let nextSerial = 1;

function describeAdapter(adapter) {
  const info = (adapter && adapter.info) || {};
  return [info.vendor, info.architecture, info.device, info.description].filter((s) => s).join(' / ') || 'WebGPU adapter';
}

export class Device {
  // `source`: a GPU (navigator.gpu, or the npm package webgpu's create()),
  // a GPUAdapter, or a GPUDevice; without it, navigator.gpu.
  static async open(source) {
    let gpu = null, adapter = null, device = null;
    if (source === undefined || source === null) {
      gpu = globalThis.navigator && globalThis.navigator.gpu;
      if (!gpu)
        raise(ErrorKind.NotFound,
              'no WebGPU here (navigator.gpu is missing): in Node, open a device with openNodeDevice() of ' +
                "'wasmgpu-webgpu/node', or pass the GPU of the npm package webgpu (create([])) to Device.open");
    } else if (typeof source.requestAdapter === 'function') {
      gpu = source;
    } else if (typeof source.requestDevice === 'function') {
      adapter = source;
    } else if (source.queue && typeof source.createBuffer === 'function') {
      device = source;
    } else {
      raise(ErrorKind.InvalidArgument, `Device.open takes a GPU, a GPUAdapter or a GPUDevice, but ${describe(source)} was given`);
    }
    if (gpu && !device) {
      adapter = await gpu.requestAdapter();
      if (!adapter) raise(ErrorKind.NotFound, 'the WebGPU implementation found no adapter');
    }
    // Read once, before any pipeline exists: touching adapter.info after
    // pipelines were created crashed dawn.node 0.6.2.
    const description = adapter ? describeAdapter(adapter) : device.label || 'WebGPU device';
    if (!device) {
      const limits = adapter.limits;
      // Kernels with subgroup operations need "subgroups" (the bundle's
      // `features`): asked for wherever the adapter offers it.
      const requiredFeatures = adapter.features && adapter.features.has('subgroups') ? ['subgroups'] : [];
      device = await adapter.requestDevice({
        requiredFeatures,
        requiredLimits: {
          maxStorageBuffersPerShaderStage: limits.maxStorageBuffersPerShaderStage,
          maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
          maxBufferSize: limits.maxBufferSize,
        },
      });
    }
    return new Device(gpu, adapter, device, description);
  }

  constructor(gpu, adapter, device, description) {
    // The GPU and adapter stay referenced while the device lives: when
    // dawn.node 0.6.2's instance was collected while its device was in use,
    // the process crashed (js/lib/dawn.mjs).
    this._gpu = gpu;
    this._adapter = adapter;
    this.gpu = device;
    this.serial = nextSerial++;
    this.description = description;
    this.limits = device.limits;
    this._addresses = new AddressAllocator(kAddresses);
    // Shader modules and pipelines are kept for the device's life: dawn.node
    // 0.6.2 crashed when earlier ones were collected while later ones compiled.
    this._keep = [];
    this._spares = [];
    this._errors = [];
    this._lost = null;
    device.addEventListener?.('uncapturederror', (event) => this._errors.push(event.error.message));
    device.lost?.then((info) => {
      this._lost = info.message || info.reason || 'lost';
    });
  }

  get label() {
    return `Device #${this.serial} ('${this.description}')`;
  }

  _checkLive() {
    if (this._lost !== null) raise(ErrorKind.DeviceLost, `${this.label} was lost: ${this._lost}`);
  }

  // dev.buffer(typedArray): a copy of it; dev.buffer(Float32Array, count):
  // count zero elements. The buffer reads back as that type by default.
  buffer(source, count) {
    if (isHostArray(source)) {
      const type = source.constructor === DataView ? Uint8Array : source.constructor;
      const buffer = this._createBuffer(source.byteLength, elementSizeOf(source), type);
      buffer._writeInitial(new Uint8Array(source.buffer, source.byteOffset, source.byteLength));
      return buffer;
    }
    if (typeof source === 'function' && source.BYTES_PER_ELEMENT) {
      if (!Number.isSafeInteger(count) || count < 0)
        raise(ErrorKind.InvalidArgument, `a buffer of ${String(count)} elements: give a count of 0 or more`);
      return this._createBuffer(count * source.BYTES_PER_ELEMENT, source.BYTES_PER_ELEMENT, source);
    }
    raise(ErrorKind.InvalidArgument,
          `Device.buffer takes a typed array, or a typed array type and a count, but ${describe(source)} was given`);
  }

  // An untyped buffer of `bytes` zero bytes (element size 1).
  bufferBytes(bytes) {
    if (!Number.isSafeInteger(bytes) || bytes < 0) raise(ErrorKind.InvalidArgument, `a buffer of ${String(bytes)} bytes`);
    return this._createBuffer(bytes, 1, Uint8Array);
  }

  _createBuffer(bytes, elementSize, type) {
    this._checkLive();
    // A launch binds each buffer whole.
    if (bytes > this.limits.maxStorageBufferBindingSize)
      raise(ErrorKind.Unsupported,
            `a buffer of ${bytes} bytes exceeds the device's limit of ${this.limits.maxStorageBufferBindingSize} bytes per storage binding (maxStorageBufferBindingSize)`);
    const address = this._addresses.allocate(bytes);
    if (address === null)
      raise(ErrorKind.Unsupported, `a buffer of ${bytes} bytes does not fit what is left of the 32-bit wasm address space`);
    // WebGPU copies whole words: the GPU buffer is rounded up to 4 bytes.
    const gpu = this.gpu.createBuffer({ size: Math.max(4, Math.ceil(bytes / 4) * 4), usage: kStorage | kCopySrc | kCopyDst });
    return new Buffer(this, gpu, bytes, elementSize, type, address);
  }

  // Loads a kernel bundle (the parsed JSON, its text, or its bytes).
  async load(bundle) {
    this._checkLive();
    if (typeof bundle === 'string') bundle = JSON.parse(bundle);
    else if (bundle instanceof ArrayBuffer || ArrayBuffer.isView(bundle)) bundle = JSON.parse(new TextDecoder().decode(bundle));
    if (!isPlainObject(bundle) || bundle.format !== kBundleFormat)
      raise(ErrorKind.InvalidArgument,
            `not a wasmgpu kernel bundle (no "format": "${kBundleFormat}"; write one with \`wasmgpu compile --target wgsl --bundle\`)`);
    if (bundle.version !== kBundleVersion)
      raise(ErrorKind.Unsupported, `a kernel bundle of version ${bundle.version}; this package reads version ${kBundleVersion}`);
    const abi = bundle.abi;
    for (const name of Object.keys(abi.bindings))
      if (!kKnownBindings.includes(name))
        raise(ErrorKind.Unsupported, `the bundle's kernels need the binding '${name}', which this version of the package does not provide`);
    for (const key of Object.keys(kAddresses))
      if (abi.addresses[key] !== kAddresses[key])
        raise(ErrorKind.Unsupported, `the bundle's wasm address layout (${key} ${abi.addresses[key]}) is not this package's (${kAddresses[key]})`);
    const module = new Module(this, bundle);
    await module._compile();
    return module;
  }

  // A command buffer: launches (and copies) recorded, submitted at once.
  commandBuffer() {
    return new CommandBuffer(this);
  }
  encoder() {
    return this.commandBuffer();
  }

  // A 4-byte buffer for binding k of a launch that maps fewer buffers
  // (WebGPU forbids one writable buffer at two bindings of a dispatch).
  _spare(k) {
    while (this._spares.length <= k) this._spares.push(this.gpu.createBuffer({ size: 4, usage: kStorage }));
    return this._spares[k];
  }

  destroy() {
    this.gpu.destroy();
    this._lost = 'destroyed';
  }
}

// ------------------------------------------------------------------- Buffer

export class Buffer {
  constructor(device, gpu, size, elementSize, type, address) {
    this.device = device;
    this._gpu = gpu;
    this.size = size;
    this.elementSize = elementSize;
    this.type = type;
    // The wasm address a kernel sees this buffer at.
    this.address = address;
    this.destroyed = false;
  }

  get count() {
    return Math.floor(this.size / this.elementSize);
  }

  _live(what) {
    if (this.destroyed) raise(ErrorKind.UseAfterMove, `Buffer::${what} on a destroyed buffer`);
    this.device._checkLive();
  }

  _checkRange(bytes, offset, what) {
    if (offset > this.size || bytes > this.size - offset)
      raise(ErrorKind.BufferTooSmall,
            `Buffer::${what} of ${bytes} bytes at offset ${offset} does not fit the ${this.size}-byte buffer`);
  }

  _writeInitial(bytes) {
    if (bytes.byteLength === 0) return;
    const padded = new Uint8Array(Math.ceil(bytes.byteLength / 4) * 4);
    padded.set(bytes);
    this.device.gpu.queue.writeBuffer(this._gpu, 0, padded);
  }

  // Bytes [offset, offset + count) through a mapped copy; ordered after the
  // work submitted before (the queue runs in order).
  async _readBytes(offset, count) {
    const start = offset - (offset % 4);
    const end = Math.ceil((offset + count) / 4) * 4;
    if (end === start) return new Uint8Array(0);
    const gpu = this.device.gpu;
    const staging = gpu.createBuffer({ size: end - start, usage: kMapRead | kCopyDst });
    const encoder = gpu.createCommandEncoder();
    encoder.copyBufferToBuffer(this._gpu, start, staging, 0, end - start);
    gpu.queue.submit([encoder.finish()]);
    await staging.mapAsync(kMapModeRead);
    const bytes = new Uint8Array(staging.getMappedRange().slice(offset - start, offset - start + count));
    staging.unmap();
    staging.destroy();
    return bytes;
  }

  // read(): every element, as the buffer's type; read(Float32Array): as that
  // type; read(array, first): fills `array` from element `first` on.
  async read(target, first = 0) {
    this._live('read');
    let out;
    if (target === undefined) target = this.type;
    if (typeof target === 'function' && target.BYTES_PER_ELEMENT) {
      out = new target(Math.floor((this.size - Math.min(this.size, first * target.BYTES_PER_ELEMENT)) / target.BYTES_PER_ELEMENT));
    } else if (isHostArray(target)) {
      out = target;
    } else {
      raise(ErrorKind.InvalidArgument, `Buffer::read takes a typed array or a typed array type, but ${describe(target)} was given`);
    }
    const offset = first * elementSizeOf(out);
    this._checkRange(out.byteLength, offset, 'read');
    const bytes = await this._readBytes(offset, out.byteLength);
    new Uint8Array(out.buffer, out.byteOffset, out.byteLength).set(bytes);
    return out;
  }

  // Writes `values` (a typed array) from element `first` on. Whole aligned
  // words are queued at once (later submissions see them even before the
  // promise settles); a write of 1- or 2-byte elements off word boundaries
  // reads the words it shares first: await it before submitting work.
  async write(values, first = 0) {
    this._live('write');
    if (!isHostArray(values))
      raise(ErrorKind.InvalidArgument, `Buffer::write takes a typed array, but ${describe(values)} was given`);
    const offset = first * elementSizeOf(values);
    const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    this._checkRange(bytes.byteLength, offset, 'write');
    if (bytes.byteLength === 0) return;
    if (offset % 4 === 0 && (bytes.byteLength % 4 === 0 || offset + bytes.byteLength === this.size)) {
      // At the end, the padding word's spare bytes are the buffer's own (zero).
      const length = Math.ceil(bytes.byteLength / 4) * 4;
      const data = length === bytes.byteLength ? bytes.slice() : (() => { const p = new Uint8Array(length); p.set(bytes); return p; })();
      this.device.gpu.queue.writeBuffer(this._gpu, offset, data);
      return;
    }
    const start = offset - (offset % 4);
    const end = Math.min(Math.ceil((offset + bytes.byteLength) / 4) * 4, this._gpu.size);
    const words = await this._readBytes(start, end - start);
    words.set(bytes, offset - start);
    this.device.gpu.queue.writeBuffer(this._gpu, start, words);
  }

  // Sets every 32-bit word to `pattern` (Buffer::fill).
  fill(pattern) {
    this._live('fill');
    this.device.gpu.queue.writeBuffer(this._gpu, 0, new Uint32Array(this._gpu.size / 4).fill(pattern >>> 0));
  }

  // Frees the GPU memory and the wasm address range; a command buffer that
  // recorded the buffer refuses to submit afterwards.
  destroy() {
    if (this.destroyed) return;
    this.destroyed = true;
    this.device._addresses.free(this.address);
    this._gpu.destroy();
  }
}

// ------------------------------------------------------------------- Module

function hexBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
  return out;
}

export class Module {
  constructor(device, bundle) {
    this.device = device;
    this.bundle = bundle;
    this.abi = bundle.abi;
    this.name = bundle.module;
    this._kernels = new Map();
    for (const k of bundle.kernels) this._kernels.set(k.name, new KernelImpl(this, k));
    // The module memory: one per loaded module, shared by its kernels and
    // kept across launches, as in the C++ API.
    const gpu = device.gpu;
    this._memory = gpu.createBuffer({ size: Math.max(4, Math.ceil(bundle.memory.bytes / 4) * 4), usage: kStorage | kCopyDst | kCopySrc });
    if (bundle.memory.data.length) {
      const image = new Uint8Array(this._memory.size);
      for (const segment of bundle.memory.data) image.set(hexBytes(segment.hex), segment.offset);
      gpu.queue.writeBuffer(this._memory, 0, image);
    }
  }

  async _compile() {
    for (const kernel of this._kernels.values()) await kernel._compile();
  }

  // The names of the bundle's kernels.
  get kernels() {
    return [...this._kernels.keys()];
  }

  // The kernel as a function: await k(n, ...args), k.launch(shape, args).
  kernel(name) {
    const impl = this._kernels.get(name);
    if (!impl) {
      const refused = (this.bundle.refused || []).find((r) => r.kernel === name);
      if (refused)
        raise(ErrorKind.Unsupported, `kernel '${name}' is not in the bundle: the WGSL back end refused it: ${refused.reason}`);
      const names = this.kernels.map((k) => `'${k}'`).join(', ');
      raise(ErrorKind.NotFound, `the module has no kernel named '${name}' (its kernels: ${names || 'none'})`);
    }
    const call = (shape, ...args) => call.launch(shape, args);
    call.launch = (shape, args) => {
      const commands = new CommandBuffer(this.device, true);
      try {
        commands.launch(call, shape, ...args);
      } catch (e) {
        return Promise.reject(e);
      }
      return commands.submit();
    };
    Object.defineProperty(call, 'name', { value: name });
    call.interface = impl.interface;
    call._impl = impl;
    return call;
  }
}

class KernelImpl {
  constructor(module, entry) {
    this.module = module;
    this.name = entry.name;
    this.interface = entry.interface;
    this.hasMetadata = entry.metadata;
    this.wasmParams = entry.wasm_params;
    this.bufferBindings = entry.buffer_bindings;
    // The shadow stack's binding and bytes per invocation (null without one).
    this.stack = entry.stack ?? null;
    // A barrier: a 1-D launch must cover whole workgroups; the WebGPU
    // features the device must have (bundles before these fields: none).
    this.barriers = entry.barriers ?? false;
    this.features = entry.features ?? [];
    this.wgsl = entry.wgsl;
    this._pipelines = new Map();
  }

  async _compile() {
    const device = this.module.device;
    const needed = 2 + this.bufferBindings + (this.stack ? 1 : 0);
    if (needed > device.limits.maxStorageBuffersPerShaderStage)
      raise(ErrorKind.Unsupported,
            `kernel '${this.name}' needs ${needed} storage buffers (the trap record, the module memory, ` +
            `${this.stack ? 'the shadow stack, ' : ''}${this.bufferBindings} buffer bindings); ` +
            `the device allows ${device.limits.maxStorageBuffersPerShaderStage} per stage (maxStorageBuffersPerShaderStage): ` +
            `compile it with --max-storage-buffers ${device.limits.maxStorageBuffersPerShaderStage}`);
    const gpu = device.gpu;
    for (const feature of this.features)
      if (!gpu.features || !gpu.features.has(feature))
        raise(ErrorKind.Unsupported,
              `kernel '${this.name}' uses subgroup operations, and the device lacks the WebGPU feature '${feature}' ` +
              '(the adapter does not offer it, or the device was opened without it)');
    gpu.pushErrorScope('validation');
    this._shader = gpu.createShaderModule({ code: this.wgsl, label: this.name });
    device._keep.push(this._shader);
    const info = this._shader.getCompilationInfo ? await this._shader.getCompilationInfo() : { messages: [] };
    const scoped = await gpu.popErrorScope();
    const errors = info.messages.filter((m) => m.type === 'error').map((m) => `${m.lineNum}:${m.linePos} ${m.message}`);
    if (scoped && errors.length === 0) errors.push(scoped.message);
    if (errors.length)
      raise(ErrorKind.Compile, `kernel '${this.name}': WebGPU rejected its WGSL:\n  ${errors.join('\n  ')}`);
  }

  // The pipeline for one workgroup size (the WGSL's override constants).
  pipeline(size) {
    const key = size.join(',');
    let pipeline = this._pipelines.get(key);
    if (pipeline) return pipeline;
    const device = this.module.device;
    const overrides = this.module.abi.workgroup_size_overrides;
    const constants = {};
    overrides.forEach((name, d) => { constants[name] = size[d]; });
    device.gpu.pushErrorScope('validation');
    // createComputePipelineAsync crashed dawn.node 0.6.2 on lavapipe; the
    // synchronous call reports through the error scope (popped by submit).
    pipeline = device.gpu.createComputePipeline({
      layout: 'auto',
      compute: { module: this._shader, entryPoint: this.module.abi.entry_point, constants },
    });
    this._pipelineScope = device.gpu.popErrorScope();
    device._keep.push(pipeline);
    this._pipelines.set(key, pipeline);
    return pipeline;
  }

  // One argument against parameter `index` (argument.cpp's bind_one).
  bindOne(index, value) {
    const iface = this.interface;
    const param = iface.params[index];
    const device = this.module.device;
    const where = `kernel '${iface.name}', parameter '${param.name}' (argument ${index + 1} of ${iface.params.length})`;
    const mismatch = () =>
      raise(ErrorKind.InvalidArgument, `${where}: expected ${expectedText(param)}, but ${describe(value)} was given`);
    const bufferArg = () => {
      if (value instanceof Buffer) {
        if (value.destroyed) raise(ErrorKind.UseAfterMove, `${where}: the Buffer was moved from or destroyed`);
        if (value.device !== device)
          raise(ErrorKind.WrongDevice, `${where}: the Buffer belongs to ${value.device.label}, but the kernel runs on ${device.label}`);
        return { buffer: value };
      }
      return { host: value };
    };
    const isBufferLike = value instanceof Buffer || isHostArray(value);
    // Wasm kernels without metadata take buffers for any i32 parameter.
    const bufferFitsScalar = !this.hasMetadata && param.kind === 'scalar' && param.scalar === 'i32';
    switch (param.kind) {
      case 'scalar':
        if (typeof value === 'number') {
          if (isIntegerType(param.scalar)) {
            // Signedness is free (the bits are passed), as in the C++ API.
            if (!Number.isInteger(value)) return mismatch();
            if (isWide(param.scalar)) {
              if (!Number.isSafeInteger(value)) return mismatch();
              return { bits: BigInt.asUintN(64, BigInt(value)) };
            }
            if (value < -0x80000000 || value > 0xffffffff) return mismatch();
            return { bits: BigInt(value >>> 0) };
          }
          // JS numbers are doubles: f32 parameters get them rounded to
          // nearest (Math.fround), as a Float32Array stores them.
          if (param.scalar === 'f32') {
            kF32[0] = value;
            return { bits: BigInt(kF32Bits[0]) };
          }
          kF64[0] = value;
          return { bits: (BigInt(kF64Bits[1]) << 32n) | BigInt(kF64Bits[0]) };
        }
        if (typeof value === 'bigint') {
          // A bigint is a 64-bit integer: only 64-bit parameters take it.
          if (!isIntegerType(param.scalar) || !isWide(param.scalar)) return mismatch();
          if (value < -(1n << 63n) || value >= 1n << 64n) return mismatch();
          return { bits: BigInt.asUintN(64, value) };
        }
        if (isBufferLike && bufferFitsScalar) return bufferArg();
        return mismatch();
      case 'buffer':
        if (!isBufferLike) return mismatch();
        {
          const element = value instanceof Buffer ? value.elementSize : elementSizeOf(value);
          if (param.element_size && element > 1 && element !== param.element_size)
            raise(ErrorKind.InvalidArgument,
                  `${where}: expected ${expectedText(param)}, but ${describe(value)} was given (element sizes differ)`);
        }
        return bufferArg();
    }
    return mismatch();
  }

  // The arguments against the parameters (argument.cpp's bind).
  bind(args) {
    const iface = this.interface;
    const name = `kernel '${iface.name}'`;
    const count = iface.params.length;
    // One plain object after the shape names every argument: k(n, {a, x, y}).
    if (args.length === 1 && isPlainObject(args[0]) && count > 0)
      args = Object.entries(args[0]).map(([key, value]) => new NamedArgument(key, value));
    const named = args.filter((a) => a instanceof NamedArgument).length;
    if (named !== 0 && named !== args.length)
      raise(ErrorKind.InvalidArgument, `${name}: ${named} of the ${args.length} arguments are named; name all of them or none`);
    const bound = new Array(count);
    if (named === 0) {
      if (args.length !== count) {
        // Which parameters lack an argument, or which arguments have no parameter.
        const which = args.length < count
          ? `no argument for ${iface.params.slice(args.length).map((p) => `'${p.name}'`).join(', ')}`
          : args.length === count + 1 ? `argument ${count + 1} matches no parameter`
            : `arguments ${count + 1} to ${args.length} match no parameter`;
        raise(ErrorKind.InvalidArgument,
              `${name} takes ${count} argument(s) after the launch shape (${paramList(iface)}), but ${args.length} were given: ${which}`);
      }
      for (let i = 0; i < count; i++) bound[i] = this.bindOne(i, args[i]);
      return bound;
    }
    const seen = new Array(count).fill(false);
    for (const a of args) {
      const index = iface.params.findIndex((p) => p.name === a.name);
      if (index < 0) {
        const names = iface.params.map((p) => `'${p.name}'`).join(', ');
        raise(ErrorKind.InvalidArgument,
              `${name} has no parameter named '${a.name}' (its parameters: ${names || 'none'})`);
      }
      if (seen[index]) raise(ErrorKind.InvalidArgument, `${name}: parameter '${a.name}' is given twice`);
      seen[index] = true;
      bound[index] = this.bindOne(index, a.value);
    }
    const missing = iface.params.filter((p, i) => !seen[i]).map((p) => `'${p.name}'`).join(', ');
    if (missing) raise(ErrorKind.InvalidArgument, `${name}: no argument for parameter(s) ${missing} (takes ${paramList(iface)})`);
    return bound;
  }

  // The workgroup size, workgroups and invocation count of a launch, with
  // the runtime's checks (src/runtime/launch.cpp, prepare) against WebGPU's
  // limits.
  shape(launch) {
    const limits = this.module.device.limits;
    const name = `kernel '${this.name}'`;
    const axis = 'xyz';
    const maxSize = [limits.maxComputeWorkgroupSizeX, limits.maxComputeWorkgroupSizeY, limits.maxComputeWorkgroupSizeZ];
    const limitName = ['maxComputeWorkgroupSizeX', 'maxComputeWorkgroupSizeY', 'maxComputeWorkgroupSizeZ'];
    const size = [...launch.workgroupSize];
    let n, groups = null;
    if (launch.groups) {
      groups = [...launch.groups];
      if (size[0] === 0) size[0] = Math.min(kDefaultWorkgroupSize, limits.maxComputeInvocationsPerWorkgroup);
      if (size[1] === 0) size[1] = 1;
      if (size[2] === 0) size[2] = 1;
      let invocations = 1;
      for (let d = 0; d < 3; d++) {
        if (size[d] === 0 || groups[d] === 0)
          raise(ErrorKind.InvalidArgument, `${name}: grid and workgroup size must be at least 1 in every dimension`);
        if (groups[d] > limits.maxComputeWorkgroupsPerDimension)
          raise(ErrorKind.InvalidArgument,
                `${name}: grid of ${groups[d]} workgroups in ${axis[d]} exceeds the device's limit of ${limits.maxComputeWorkgroupsPerDimension} (maxComputeWorkgroupsPerDimension)`);
        invocations *= groups[d] * size[d];
      }
      if (invocations > 0xffffffff)
        raise(ErrorKind.InvalidArgument, `${name}: grid of ${invocations} invocations exceeds the 32-bit invocation index`);
      n = invocations;
    } else {
      n = launch.n;
      size[1] = size[2] = 1;
      const max = Math.min(maxSize[0], limits.maxComputeInvocationsPerWorkgroup);
      if (size[0] === 0) size[0] = Math.min(kDefaultWorkgroupSize, max);
      if (size[0] > max)
        raise(ErrorKind.InvalidArgument, `${name}: workgroup size ${size[0]} exceeds the device's limit of ${max}`);
      // The runtime's rule (src/runtime/launch.cpp): WGSL has no partial
      // workgroup at a barrier either.
      if (this.barriers && n % size[0] !== 0)
        raise(ErrorKind.InvalidArgument,
              `${name} uses wasmgpu_barrier, which every invocation of a workgroup must reach: n (${n}) must be a ` +
              `multiple of the workgroup size (${size[0]}), or launch a Grid of workgroups`);
    }
    for (let d = 0; d < 3; d++)
      if (size[d] > maxSize[d])
        raise(ErrorKind.InvalidArgument,
              `${name}: workgroup size ${size[d]} in ${axis[d]} exceeds the device's limit of ${maxSize[d]} (${limitName[d]})`);
    const perGroup = size[0] * size[1] * size[2];
    if (perGroup > limits.maxComputeInvocationsPerWorkgroup)
      raise(ErrorKind.InvalidArgument,
            `${name}: workgroup of ${perGroup} invocations exceeds the device's limit of ${limits.maxComputeInvocationsPerWorkgroup} (maxComputeInvocationsPerWorkgroup)`);
    return { n, size, groups };
  }
}

// ------------------------------------------------------------ CommandBuffer

// Launches and copies recorded in order and submitted at once, as the C++
// API's CommandBuffer. Barriers: WebGPU makes every dispatch a usage scope of
// its own and orders storage accesses between dispatches (within a compute
// pass too) and around copies, so the implementation puts the barrier
// wherever a launch touches what an earlier command wrote; the package adds
// none and has none to add (docs/webgpu.md, "Command buffers").
export class CommandBuffer {
  constructor(device, direct = false) {
    this.device = device;
    this._direct = direct;
    this._commands = [];
    this._running = false;
  }

  // launch(kernel, n | Launch, ...args): checked now, as in the C++ API;
  // returns the launch's index among the launches.
  launch(kernel, shape, ...args) {
    const impl = kernel && kernel._impl;
    if (!(impl instanceof KernelImpl))
      raise(ErrorKind.InvalidArgument, `CommandBuffer.launch takes a kernel of Module.kernel(), but ${describe(kernel)} was given`);
    if (impl.module.device !== this.device)
      raise(ErrorKind.WrongDevice, `kernel '${impl.name}' belongs to ${impl.module.device.label}, but the command buffer records for ${this.device.label}`);
    const launch = toLaunch(shape);
    const bound = impl.bind(args);
    const shaped = impl.shape(launch);
    // Each distinct buffer (or host array) takes one buffer binding.
    const distinct = new Set(bound.map((b) => b.buffer || b.host).filter((b) => b)).size;
    if (distinct > impl.bufferBindings)
      raise(ErrorKind.InvalidArgument,
            `kernel '${impl.name}': the launch maps ${distinct} distinct buffers, but its WGSL has ${impl.bufferBindings} buffer bindings ` +
            `(one per i32 parameter within maxStorageBuffersPerShaderStage; docs/webgpu.md)`);
    const L = impl.module.abi.launch;
    if (L.args + L.arg_words * bound.length + L.region_words * distinct > L.words)
      raise(ErrorKind.InvalidArgument, `kernel '${impl.name}': ${bound.length} arguments and ${distinct} buffers exceed the ${L.words} launch words`);
    const index = this._commands.filter((c) => c.type === 'launch').length;
    this._commands.push({ type: 'launch', kernel: impl, bound, ...shaped, index });
    return index;
  }

  // copy(src, dst, bytes = all of src, srcOffset = 0, dstOffset = 0);
  // WebGPU copies whole words: offsets and sizes must be multiples of 4.
  copy(src, dst, bytes, srcOffset = 0, dstOffset = 0) {
    for (const [b, what] of [[src, 'source'], [dst, 'destination']]) {
      if (!(b instanceof Buffer)) raise(ErrorKind.InvalidArgument, `copy: the ${what} must be a Buffer, but ${describe(b)} was given`);
      if (b.destroyed) raise(ErrorKind.UseAfterMove, `copy: the ${what} Buffer was destroyed`);
      if (b.device !== this.device) raise(ErrorKind.WrongDevice, `copy: the ${what} Buffer belongs to ${b.device.label}, but the command buffer records for ${this.device.label}`);
    }
    if (bytes === undefined) bytes = src.size - Math.min(src.size, srcOffset);
    if (srcOffset > src.size || bytes > src.size - srcOffset)
      raise(ErrorKind.BufferTooSmall, `copy of ${bytes} bytes from offset ${srcOffset} of a ${src.size}-byte buffer`);
    if (dstOffset > dst.size || bytes > dst.size - dstOffset)
      raise(ErrorKind.BufferTooSmall, `copy of ${bytes} bytes to offset ${dstOffset} of a ${dst.size}-byte buffer`);
    if (src === dst && srcOffset < dstOffset + bytes && dstOffset < srcOffset + bytes)
      raise(ErrorKind.InvalidArgument, `copy within one buffer between overlapping ranges (${srcOffset} and ${dstOffset}, ${bytes} bytes)`);
    if (bytes % 4 || srcOffset % 4 || dstOffset % 4)
      raise(ErrorKind.InvalidArgument, `copy of ${bytes} bytes from offset ${srcOffset} to offset ${dstOffset}: WebGPU copies whole words (multiples of 4)`);
    this._commands.push({ type: 'copy', src, dst, bytes, srcOffset, dstOffset });
  }

  // Runs the commands; resolves when they have finished, rejects with a
  // TrapError for the first launch that trapped (and then writes no typed
  // array argument back). May be submitted again.
  async submit() {
    const device = this.device;
    device._checkLive();
    if (this._running)
      raise(ErrorKind.InvalidArgument,
            'submit of a CommandBuffer whose previous submission is still running; wait for it before submitting it again');
    if (this._commands.length === 0) raise(ErrorKind.InvalidArgument, 'submit of an empty CommandBuffer');
    const launches = this._commands.filter((c) => c.type === 'launch');
    for (const c of launches)
      c.bound.forEach((b, a) => {
        if (b.buffer && b.buffer.destroyed)
          raise(ErrorKind.UseAfterMove,
                `submit: launch ${c.index} (kernel '${c.kernel.name}'): the Buffer for parameter '${c.kernel.interface.params[a].name}' was destroyed after it was recorded`);
      });
    for (const c of this._commands)
      if (c.type === 'copy' && (c.src.destroyed || c.dst.destroyed))
        raise(ErrorKind.UseAfterMove, `submit: a copy: its ${c.src.destroyed ? 'source' : 'destination'} Buffer was destroyed after it was recorded`);
    this._running = true;
    const gpu = device.gpu;
    const temporaries = [];  // host arrays' buffers, freed at the end
    const transient = [];  // launch words and trap records, destroyed at the end
    let scopesOpen = 0;
    try {
      // Host arrays become buffers for this submission, one per array.
      const hostBuffers = new Map();
      for (const c of launches)
        c.bound.forEach((b, a) => {
          if (!b.host) return;
          let entry = hostBuffers.get(b.host);
          if (!entry) {
            const buffer = device.buffer(b.host);
            temporaries.push(buffer);
            entry = { buffer, written: false };
            hostBuffers.set(b.host, entry);
          }
          const param = c.kernel.interface.params[a];
          entry.written ||= param.kind !== 'buffer' || param.writable;
        });
      const bufferOf = (b) => b.buffer || (b.host && hostBuffers.get(b.host).buffer);

      gpu.pushErrorScope('out-of-memory');
      gpu.pushErrorScope('validation');
      scopesOpen = 2;
      const scopes = [];
      const encoder = gpu.createCommandEncoder();
      const trapWords = launches[0] ? launches[0].kernel.module.abi.trap_record.words : 0;
      const trapRecords = [];
      let pass = null;
      for (const c of this._commands) {
        if (c.type === 'copy') {
          if (pass) pass.end(), (pass = null);
          encoder.copyBufferToBuffer(c.src._gpu, c.srcOffset, c.dst._gpu, c.dstOffset, c.bytes);
          continue;
        }
        const record = this._trapRecord(c.kernel);
        trapRecords.push(record);
        transient.push(record);
        if (c.n === 0) continue;
        if (!pass) pass = encoder.beginComputePass();
        this._encodeLaunch(pass, c, record, bufferOf, scopes, transient);
      }
      if (pass) pass.end();
      const readSize = 4 * trapWords * trapRecords.length;
      const trapRead = readSize ? gpu.createBuffer({ size: readSize, usage: kMapRead | kCopyDst }) : null;
      trapRecords.forEach((record, i) => encoder.copyBufferToBuffer(record, 0, trapRead, 4 * trapWords * i, 4 * trapWords));
      const writeBacks = [];
      for (const [host, entry] of hostBuffers) {
        if (!entry.written || entry.buffer.size === 0) continue;
        const staging = gpu.createBuffer({ size: entry.buffer._gpu.size, usage: kMapRead | kCopyDst });
        encoder.copyBufferToBuffer(entry.buffer._gpu, 0, staging, 0, entry.buffer._gpu.size);
        writeBacks.push({ host, staging });
      }
      gpu.queue.submit([encoder.finish()]);
      const pipelineErrors = (await Promise.all(scopes)).filter((e) => e);
      scopesOpen = 0;
      const validation = await gpu.popErrorScope();
      const memory = await gpu.popErrorScope();
      const problems = [...pipelineErrors, validation, memory].filter((e) => e).map((e) => e.message);
      if (problems.length) raise(ErrorKind.WebGPU, `WebGPU reported: ${problems.join('; ')}`);

      let trap = null;
      if (trapRead) {
        await trapRead.mapAsync(kMapModeRead);
        const words = new Uint32Array(trapRead.getMappedRange().slice(0));
        trapRead.unmap();
        trapRead.destroy();
        for (let i = 0; i < launches.length && !trap; i++) trap = this._trapOf(launches[i], words.subarray(i * trapWords, (i + 1) * trapWords));
      }
      for (const { host, staging } of writeBacks) {
        await staging.mapAsync(kMapModeRead);
        // No typed array is written back after a trap, as `wasmgpu run`
        // writes no file: the launch's results are unspecified.
        if (!trap) new Uint8Array(host.buffer, host.byteOffset, host.byteLength).set(new Uint8Array(staging.getMappedRange(), 0, host.byteLength));
        staging.unmap();
        staging.destroy();
      }
      if (device._errors.length) raise(ErrorKind.WebGPU, `WebGPU reported: ${device._errors.splice(0).join('; ')}`);
      device._checkLive();
      if (trap) throw trap;
    } finally {
      // An exception while recording leaves no error scope open.
      while (scopesOpen-- > 0) gpu.popErrorScope().catch(() => {});
      for (const t of temporaries) t.destroy();
      for (const t of transient) t.destroy();
      this._running = false;
    }
  }

  // A fresh trap record: count 0, every kind's lowest index "none".
  _trapRecord(kernel) {
    const abi = kernel.module.abi.trap_record;
    const words = new Uint32Array(abi.words).fill(abi.no_trap);
    words[abi.count] = 0;
    const record = this.device.gpu.createBuffer({ size: 4 * abi.words, usage: kStorage | kCopySrc | kCopyDst });
    this.device.gpu.queue.writeBuffer(record, 0, words);
    return record;
  }

  // The TrapError of a launch's record, or null (launch.cpp's trap() and
  // command_buffer.cpp's message).
  _trapOf(c, words) {
    const abi = c.kernel.module.abi.trap_record;
    const trapped = words[abi.count];
    if (trapped === 0) return null;
    let invocation = abi.no_trap, kind = null;
    for (let k = 0; k < abi.kinds.length; k++) {
      const lowest = words[abi.lowest_index + k];
      if (lowest < invocation) invocation = lowest, (kind = k);
    }
    const trapName = kind === null ? 'trap of unknown kind' : abi.kinds[kind];
    let message = `kernel '${c.kernel.name}'`;
    if (!this._direct) message += ` (launch ${c.index} of the command buffer)`;
    message += ` trapped: ${trapName}`;
    if (kind !== null) message += ` at invocation ${invocation}`;
    message += ` (${trapped} ${trapped === 1 ? 'invocation trapped)' : 'invocations trapped)'}`;
    return new TrapError(message, { kernel: c.kernel.name, trap: trapName, invocation, trappedInvocations: trapped, launchIndex: c.index });
  }

  // One launch: its launch words (wgsl/wgsl_abi.h through the bundle), its
  // bind group, and one dispatch per at most maxComputeWorkgroupsPerDimension
  // workgroups (a 1-D launch), each with its own base index.
  _encodeLaunch(pass, c, trapRecord, bufferOf, scopes, transient) {
    const kernel = c.kernel;
    const device = this.device;
    const gpu = device.gpu;
    const abi = kernel.module.abi;
    const L = abi.launch;
    const words = new Uint32Array(L.words);
    c.bound.forEach((b, i) => {
      let lo, hi = 0;
      if (b.bits !== undefined) {
        lo = Number(b.bits & 0xffffffffn);
        hi = Number(b.bits >> 32n);
      } else {
        lo = bufferOf(b).address;
      }
      words[L.args + L.arg_words * i] = lo;
      if (L.arg_words > 1) words[L.args + L.arg_words * i + 1] = hi;
    });
    // The distinct buffers, sorted by wasm address (the region table's order).
    // Checked when the launch was recorded: they fit the bindings and words.
    const mapped = [...new Set(c.bound.map(bufferOf).filter((b) => b))].sort((a, b) => a.address - b.address);
    const regionsAt = L.args + L.arg_words * c.bound.length;
    mapped.forEach((b, k) => words.set([b.address, b.size, k, 0], regionsAt + L.region_words * k));
    words[L.count] = c.n;
    words[L.region_count] = mapped.length;
    words[L.zero] = 0;

    const pipeline = kernel.pipeline(c.size);
    if (kernel._pipelineScope) scopes.push(kernel._pipelineScope), (kernel._pipelineScope = null);
    const layout = pipeline.getBindGroupLayout(0);
    const bind = (launchBuffer) => {
      const entries = [
        { binding: abi.bindings.launch, resource: { buffer: launchBuffer } },
        { binding: abi.bindings.traps, resource: { buffer: trapRecord } },
        { binding: abi.bindings.memory, resource: { buffer: kernel.module._memory } },
      ];
      for (let k = 0; k < kernel.bufferBindings; k++)
        entries.push({ binding: abi.bindings.first_buffer + k, resource: { buffer: k < mapped.length ? mapped[k]._gpu : device._spare(k) } });
      if (stack) entries.push({ binding: kernel.stack.binding, resource: { buffer: stack } });
      return gpu.createBindGroup({ layout, entries });
    };
    pass.setPipeline(pipeline);
    const dispatches = [];
    if (c.groups) {
      dispatches.push({ base: 0, groups: c.groups });
    } else {
      const total = Math.ceil(c.n / c.size[0]);
      let per = device.limits.maxComputeWorkgroupsPerDimension;
      // A dispatch's stack slots take at most 64 MiB, as in the C++ runtime:
      // a larger launch is split into dispatches that reuse them.
      if (kernel.stack) per = Math.max(1, Math.min(per, Math.floor(kStackBytesPerDispatch / (kernel.stack.slot_bytes * c.size[0]))));
      for (let first = 0; first < total; first += per) dispatches.push({ base: first * c.size[0], groups: [Math.min(per, total - first), 1, 1] });
    }
    // The shadow stack: one slot per invocation of the largest dispatch (an
    // invocation's slot is its index minus the dispatch's base).
    let stack = null;
    if (kernel.stack) {
      const perGroup = c.size.reduce((a, b) => a * b, 1);
      const slots = Math.max(...dispatches.map((d) => d.groups.reduce((a, b) => a * b, 1))) * perGroup;
      const bytes = Math.max(4, slots * kernel.stack.slot_bytes);
      if (bytes > device.limits.maxStorageBufferBindingSize)
        raise(ErrorKind.Unsupported,
              `kernel '${kernel.name}': the launch's shadow stack takes ${bytes} bytes (${slots} invocations of ${kernel.stack.slot_bytes}), ` +
              `more than the device's limit of ${device.limits.maxStorageBufferBindingSize} bytes per storage binding (maxStorageBufferBindingSize)`);
      stack = gpu.createBuffer({ size: bytes, usage: kStorage });
      transient.push(stack);
    }
    for (const d of dispatches) {
      words[L.base_index] = d.base;
      const launchBuffer = gpu.createBuffer({ size: 4 * L.words, usage: kUniform | kCopyDst });
      transient.push(launchBuffer);
      gpu.queue.writeBuffer(launchBuffer, 0, words);
      pass.setBindGroup(0, bind(launchBuffer));
      pass.dispatchWorkgroups(...d.groups);
    }
  }
}
