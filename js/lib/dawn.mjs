// A WebGPU device through Dawn for Node (the npm package `webgpu`), and the
// header that `wasmgpu compile --target wgsl` puts on the first line of its
// WGSL (src/wgsl/wgsl_abi.h).
import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);

export const kAbiHeaderPrefix = '// wasmgpu-wgsl-abi ';

// The Dawn instance and adapters stay referenced for the process's life:
// when the instance was collected while its device was in use, dawn.node
// 0.6.2 crashed (a segfault, or "The futex facility returned an unexpected
// error code") at a point that moved with the script's garbage.
const instances = [];

// The adapter and device; throws, saying why, when Dawn finds no adapter.
export async function openDevice() {
  const gpu = create([]);
  instances.push(gpu);
  const adapter = await gpu.requestAdapter();
  instances.push(adapter);
  if (!adapter) throw new Error('Dawn found no WebGPU adapter (is a Vulkan driver such as lavapipe installed?)');
  // Kernels with subgroup operations need "subgroups" (the ABI line's
  // `features`): asked for wherever the adapter offers it.
  const requiredFeatures = adapter.features.has('subgroups') ? ['subgroups'] : [];
  const device = await adapter.requestDevice({
    requiredFeatures,
    requiredLimits: { maxStorageBuffersPerShaderStage: adapter.limits.maxStorageBuffersPerShaderStage },
  });
  const errors = [];
  device.addEventListener('uncapturederror', (event) => errors.push(event.error.message));
  // Read once here: touching adapter.info after pipelines were created
  // crashed dawn.node 0.6.2.
  return { gpu, adapter, device, errors, description: describeAdapter(adapter), limits: adapter.limits };
}

export function describeAdapter(adapter) {
  const info = adapter.info || {};
  return [info.vendor, info.architecture, info.device, info.description].filter((s) => s).join(' / ') || 'unnamed';
}

// The ABI JSON of a WGSL file's first line.
export function parseAbi(source) {
  const first = source.slice(0, source.indexOf('\n'));
  if (!first.startsWith(kAbiHeaderPrefix)) throw new Error('not WGSL from `wasmgpu compile --target wgsl`: no ABI line');
  return JSON.parse(first.slice(kAbiHeaderPrefix.length));
}

// Compiles `source` and creates its pipeline; returns { pipeline, messages }
// where messages are Dawn's errors (warnings are returned apart).
// dawn.node 0.6.2 crashed when the modules and pipelines of earlier calls
// were collected while later ones compiled: they are kept here.
const keepAlive = [];

export async function compileWgsl(device, source, constants = {}) {
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ code: source });
  const info = await module.getCompilationInfo();
  const errors = info.messages.filter((m) => m.type === 'error').map((m) => `${m.lineNum}:${m.linePos} ${m.message}`);
  const warnings = info.messages.filter((m) => m.type !== 'error').map((m) => `${m.lineNum}:${m.linePos} ${m.message}`);
  let pipeline = null;
  if (errors.length === 0) {
    // createComputePipelineAsync crashes dawn.node 0.6.2 (a futex error); the
    // synchronous call reports through the error scope.
    pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main', constants } });
  }
  const scoped = await device.popErrorScope();
  if (scoped) {
    errors.push(scoped.message);
    pipeline = null;
  }
  keepAlive.push(module, pipeline);
  return { pipeline, errors, warnings };
}
