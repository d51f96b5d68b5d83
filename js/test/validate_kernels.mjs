// node js/test/validate_kernels.mjs WASMGPU --require K1,K2,... MODULE.wasm...
// Compiles every kernel of each module (as `wasmgpu reflect` lists them) with
// `wasmgpu compile --target wgsl`; every WGSL the back end writes must pass
// Dawn (js/validate_wgsl.mjs), every kernel it does not write must be refused
// with a message naming the function and the reason, and each --require
// kernel (module-basename.kernel) must be written.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { tmpdir } from 'node:os';

const argv = process.argv.slice(2);
const wasmgpu = argv.shift();
let required = [];
const modules = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--require') required = argv[++i].split(',');
  else modules.push(argv[i]);
}
const dir = mkdtempSync(join(tmpdir(), 'wasmgpu-wgsl-validate-'));
const written = [];
const refused = new Map();  // reason -> kernels
let failed = 0;
for (const wasm of modules) {
  const reflect = spawnSync(wasmgpu, ['reflect', wasm], { encoding: 'utf8' });
  if (reflect.status !== 0) {
    console.log(`FAIL reflect ${wasm}: ${reflect.stderr.trim()}`);
    failed++;
    continue;
  }
  for (const { name } of JSON.parse(reflect.stdout).kernels) {
    const id = `${basename(wasm, '.wasm')}.${name}`;
    const out = join(dir, `${id}.wgsl`);
    const compiled = spawnSync(wasmgpu, ['compile', wasm, '--target', 'wgsl', '-k', name, '-o', out], { encoding: 'utf8' });
    if (compiled.status === 0) {
      written.push({ id, out });
      continue;
    }
    const message = compiled.stderr.trim();
    if (!/function '[^']+'|kernel '[^']+'/.test(message) || !/not handled by the WGSL back end yet/.test(message)) {
      console.log(`FAIL ${id}: not a refusal naming the function and reason: ${message}`);
      failed++;
      continue;
    }
    const reason = message.replace(/.*: (function|kernel) '[^']+' /, '').replace(/: not handled.*/, '');
    refused.set(reason, [...(refused.get(reason) || []), id]);
  }
}
for (const id of required) {
  if (!written.some((w) => w.id === id)) {
    console.log(`FAIL ${id}: required, but not written`);
    failed++;
  }
}
const validator = new URL('../validate_wgsl.mjs', import.meta.url).pathname;
const result = spawnSync(process.execPath, [validator, ...written.map((w) => w.out)], { encoding: 'utf8' });
const lines = result.stdout.trim().split('\n');
const summary = /^(\d+) passed, (\d+) failed$/.exec(lines[lines.length - 1] || '');
for (const l of lines.slice(0, -1)) if (!l.startsWith('ok')) console.log(l);
if (!summary || result.status !== 0) failed += summary ? Number(summary[2]) : written.length || 1;
const validated = summary ? Number(summary[1]) : 0;
console.log(`written and valid in Dawn: ${validated} of ${written.length} kernels (${written.map((w) => w.id).join(', ')})`);
for (const [reason, ids] of refused) console.log(`refused (${ids.length}): ${reason}`);
console.log(`${validated + required.length - required.filter((id) => !written.some((w) => w.id === id)).length} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
