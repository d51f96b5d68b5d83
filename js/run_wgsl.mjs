// node js/run_wgsl.mjs KERNEL.wgsl --n N [--workgroup-size X] ARGS...
//
// Launches WGSL from `wasmgpu compile --target wgsl` through WebGPU (Dawn for
// Node) the way `wasmgpu run` launches the wasm kernel on Vulkan, with the same
// ARGS: scalars (parsed as the parameter's type), in:FILE, inout:FILE,
// out:FILE:SIZE and zeros:SIZE buffers. Buffers get the wasm addresses the
// Vulkan runtime's allocator gives a fresh device's buffers in order (from
// 256 MiB, 64 KiB-aligned, a 64 KiB guard after each), so pointer values
// agree. A trap is reported as `wasmgpu run` reports it (kind, lowest
// invocation, how many) and nothing is written back, exit status 1.
import { openDevice, compileWgsl, parseAbi } from './lib/dawn.mjs';
import { readFileSync, writeFileSync } from 'node:fs';

const kTrapKinds = [
  'unreachable executed', 'out of bounds memory access', 'integer divide by zero', 'integer overflow',
  'invalid conversion to integer', 'call stack exhausted', 'indirect call type mismatch', 'undefined element',
  'uninitialized element', 'shadow stack overflow', 'out of bounds table access',
  'invalid image or sampler handle', 'out of bounds image access',
];
// src/wgsl/wgsl_abi.h
const kLaunchWords = 256, kLaunchArgs = 4, kRegionWords = 4;
const kBufferAddressBase = 0x10000000, kBufferAlignment = 0x10000, kBufferGuard = 0x10000;
const kStackBytesPerDispatch = 64 * 1024 * 1024;

function fail(message) {
  console.error(`run_wgsl: ${message}`);
  process.exitCode = 2;
  throw new Error(message);
}

function parseSize(text) {
  const m = /^(\d+)([kM]?)$/.exec(text);
  if (!m) fail(`bad size '${text}'`);
  return Number(m[1]) * (m[2] === 'k' ? 1024 : m[2] === 'M' ? 1024 * 1024 : 1);
}

function parseScalar(text, type) {
  if (type === 'f32') {
    const v = text === 'nan' ? NaN : text === 'inf' ? Infinity : text === '-inf' ? -Infinity : Number(text);
    if (Number.isNaN(v) && text !== 'nan') fail(`'${text}' is not an f32`);
    return new Uint32Array(new Float32Array([v]).buffer)[0];
  }
  if (type === 'f64') {
    const v = text === 'nan' ? NaN : text === 'inf' ? Infinity : text === '-inf' ? -Infinity : Number(text);
    if (Number.isNaN(v) && text !== 'nan') fail(`'${text}' is not an f64`);
    const words = new Uint32Array(new Float64Array([v]).buffer);
    return [words[0], words[1]];
  }
  if (type === 'i64') {
    let v;
    try {
      v = BigInt.asUintN(64, BigInt(text));
    } catch {
      fail(`'${text}' is not an i64`);
    }
    return [Number(v & 0xffffffffn), Number(v >> 32n)];
  }
  const v = Number(text);
  if (!Number.isInteger(v)) fail(`'${text}' is not an i32`);
  return v >>> 0;
}

async function main() {
  const argv = process.argv.slice(2);
  const options = { n: null, workgroup: 64 };
  const positional = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--n') options.n = Number(argv[++i]);
    else if (argv[i] === '--workgroup-size') options.workgroup = Number(argv[++i]);
    else positional.push(argv[i]);
  }
  if (positional.length < 1 || options.n === null) fail('usage: run_wgsl.mjs KERNEL.wgsl --n N [--workgroup-size X] ARGS...');
  const source = readFileSync(positional[0], 'utf8');
  const abi = parseAbi(source);
  const args = positional.slice(1);
  if (args.length !== abi.params.length)
    fail(`${abi.kernel} takes ${abi.params.length} arguments after the index, ${args.length} given`);

  const { device, errors: deviceErrors } = await openDevice();
  for (const feature of abi.features || [])
    if (!device.features.has(feature))
      fail(`${abi.kernel} uses subgroup operations, and the adapter lacks the WebGPU feature '${feature}'`);
  // As `wasmgpu run` (src/runtime/launch.cpp): every invocation of a
  // workgroup must reach a barrier.
  if (abi.barriers && options.n % options.workgroup !== 0)
    fail(`kernel '${abi.kernel}' uses wasmgpu_barrier, which every invocation of a workgroup must reach: n (${options.n}) ` +
         `must be a multiple of the workgroup size (${options.workgroup}), or launch a Grid of workgroups`);
  const { pipeline, errors } = await compileWgsl(device, source, { wg_x: options.workgroup });
  if (!pipeline) fail(`Dawn rejected the shader:\n  ${errors.join('\n  ')}`);

  const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const words = new Uint32Array(kLaunchWords);
  const buffers = [];  // { gpu, size, writeTo }
  let cursor = kBufferAddressBase;
  args.forEach((text, i) => {
    const type = abi.params[i];
    const spec = /^(in|inout|out|zeros):(.*)$/.exec(text);
    let value;
    if (!spec) {
      value = parseScalar(text, type);
    } else {
      if (type !== 'i32') fail(`argument ${i + 1}: a buffer passes its address to an i32 parameter, not ${type}`);
      let bytes, writeTo = null;
      if (spec[1] === 'in' || spec[1] === 'inout') {
        bytes = new Uint8Array(readFileSync(spec[2]));
        if (spec[1] === 'inout') writeTo = spec[2];
      } else if (spec[1] === 'out') {
        const at = spec[2].lastIndexOf(':');
        writeTo = spec[2].slice(0, at);
        bytes = new Uint8Array(parseSize(spec[2].slice(at + 1)));
      } else {
        bytes = new Uint8Array(parseSize(spec[2]));
      }
      const base = cursor;
      const span = Math.ceil(Math.max(bytes.length, 1) / kBufferAlignment) * kBufferAlignment + kBufferGuard;
      cursor += span;
      const gpu = device.createBuffer({ size: Math.max(4, Math.ceil(bytes.length / 4) * 4), usage: storage });
      const padded = new Uint8Array(gpu.size);
      padded.set(bytes);
      device.queue.writeBuffer(gpu, 0, padded);
      buffers.push({ gpu, base, size: bytes.length, writeTo });
      value = base;
    }
    // Two words per argument: an i64 or f64 one fills both, low word first.
    if (Array.isArray(value)) words.set(value, kLaunchArgs + 2 * i);
    else words[kLaunchArgs + 2 * i] = value;
  });
  if (buffers.length > abi.buffer_bindings)
    fail(`the launch maps ${buffers.length} buffers; the shader has ${abi.buffer_bindings} buffer bindings`);
  const regionsAt = kLaunchArgs + 2 * abi.params.length;
  buffers.forEach((b, k) => words.set([b.base, b.size, k, 0], regionsAt + kRegionWords * k));
  words[1] = options.n;
  words[2] = buffers.length;
  words[3] = 0;

  const memory = device.createBuffer({ size: Math.max(4, abi.memory_bytes), usage: storage });
  if (abi.data.length) {
    const image = new Uint8Array(memory.size);
    for (const segment of abi.data) image.set(Buffer.from(segment.hex, 'hex'), segment.offset);
    device.queue.writeBuffer(memory, 0, image);
  }
  const trapWords = 1 + kTrapKinds.length;
  const traps = device.createBuffer({ size: 4 * trapWords, usage: storage });
  device.queue.writeBuffer(traps, 0, new Uint32Array([0, ...kTrapKinds.map(() => 0xffffffff)]));
  // Bindings the launch leaves unused get a small buffer each (WebGPU
  // forbids one writable buffer at two bindings).
  const spare = [];
  for (let k = buffers.length; k < abi.buffer_bindings; k++) spare.push(device.createBuffer({ size: 4, usage: storage }));

  // One dispatch per at most 65535 workgroups, each with its own base index.
  // A kernel with a shadow stack gets a slot of stack_slot_bytes per
  // invocation of a dispatch (its index minus the base): as in the Vulkan
  // runtime, a dispatch's slots take at most 64 MiB, so a larger launch is
  // split into dispatches that reuse them.
  const groups = Math.ceil(options.n / options.workgroup);
  let perDispatch = 65535;
  let stack = null;
  if (abi.stack_slot_bytes) {
    const fit = Math.floor(kStackBytesPerDispatch / (abi.stack_slot_bytes * options.workgroup));
    perDispatch = Math.max(1, Math.min(perDispatch, fit));
    const slots = Math.min(perDispatch, groups) * options.workgroup;
    stack = device.createBuffer({ size: Math.max(4, slots * abi.stack_slot_bytes), usage: storage });
  }
  const encoder = device.createCommandEncoder();
  for (let first = 0; first < groups; first += perDispatch) {
    words[0] = first * options.workgroup;
    const launch = device.createBuffer({ size: 4 * kLaunchWords, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(launch, 0, words);
    const entries = [
      { binding: 0, resource: { buffer: launch } },
      { binding: 1, resource: { buffer: traps } },
      { binding: 2, resource: { buffer: memory } },
    ];
    for (let k = 0; k < abi.buffer_bindings; k++)
      entries.push({ binding: 3 + k, resource: { buffer: k < buffers.length ? buffers[k].gpu : spare[k - buffers.length] } });
    if (stack) entries.push({ binding: abi.stack_binding, resource: { buffer: stack } });
    const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(Math.min(perDispatch, groups - first));
    pass.end();
  }
  const readable = (size) => device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const trapRead = readable(4 * trapWords);
  encoder.copyBufferToBuffer(traps, 0, trapRead, 0, 4 * trapWords);
  const reads = buffers.filter((b) => b.writeTo).map((b) => {
    const r = readable(b.gpu.size);
    encoder.copyBufferToBuffer(b.gpu, 0, r, 0, b.gpu.size);
    return { b, r };
  });
  device.queue.submit([encoder.finish()]);

  await device.queue.onSubmittedWorkDone();
  if (deviceErrors.length) fail(`WebGPU reported: ${deviceErrors.join('; ')}`);
  await trapRead.mapAsync(GPUMapMode.READ);
  const record = new Uint32Array(trapRead.getMappedRange().slice(0));
  if (record[0] !== 0) {
    const kinds = [];
    record.slice(1).forEach((lowest, kind) => {
      if (lowest !== 0xffffffff) kinds.push(`${kTrapKinds[kind]} (lowest invocation ${lowest})`);
    });
    console.error(`run_wgsl: ${abi.kernel} trapped in ${record[0]} invocation(s): ${kinds.join(', ')}`);
    process.exitCode = 1;
  } else {
    for (const { b, r } of reads) {
      await r.mapAsync(GPUMapMode.READ);
      writeFileSync(b.writeTo, new Uint8Array(r.getMappedRange().slice(0, b.size)));
    }
    console.error(`run_wgsl: ran ${abi.kernel} over ${options.n} invocations`);
  }
  device.destroy();
}

await main().catch((e) => {
  if (!process.exitCode) {
    console.error(`run_wgsl: ${e.message}`);
    process.exitCode = 2;
  }
});
