// The package in Node: a Device on Dawn (the npm package `webgpu`), and
// bundles read from files. Everything of the browser path is re-exported.
//
//   import { openNodeDevice, loadBundleFile } from 'wasmgpu-webgpu/node';
//   const dev = await openNodeDevice();
//   const mod = await dev.load(await loadBundleFile('saxpy.bundle.json'));
import { create } from 'webgpu';
import { readFile } from 'node:fs/promises';
import { Device } from './wasmgpu.mjs';

export * from './wasmgpu.mjs';

// The Dawn instances stay referenced for the process's life: when one was
// collected while its device was in use, dawn.node 0.6.2 crashed (a
// segfault, or "The futex facility returned an unexpected error code") at a
// point that moved with the script's garbage (js/lib/dawn.mjs).
const instances = [];

// `flags`: Dawn's instance options ("backend=vulkan", ...), as create() takes them.
export async function openNodeDevice(flags = []) {
  const gpu = create(flags);
  instances.push(gpu);
  return Device.open(gpu);
}

// A bundle file's JSON.
export async function loadBundleFile(path) {
  return JSON.parse(await readFile(path, 'utf8'));
}
