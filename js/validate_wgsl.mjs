// node js/validate_wgsl.mjs FILE.wgsl...
// Compiles each file with Dawn (createShaderModule, getCompilationInfo with
// no error, createComputePipeline) and fails on any error. Each file gets a
// process of its own, so that a crash names its file.
//
// Only the child loads Dawn, only the parent spawns.
const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node validate_wgsl.mjs FILE.wgsl...');
  process.exit(2);
}

if (files.length === 1) {
  const { openDevice, compileWgsl } = await import('./lib/dawn.mjs');
  const { readFileSync } = await import('node:fs');
  const { device, description } = await openDevice();
  const { errors, warnings } = await compileWgsl(device, readFileSync(files[0], 'utf8'));
  if (errors.length) {
    console.log(`FAIL ${files[0]}\n  ${errors.join('\n  ')}`);
  } else {
    const warned = warnings.length ? `, ${warnings.length} warnings: ${warnings[0]}` : '';
    console.log(`ok   ${files[0]} (${description})${warned}`);
  }
  device.destroy();
  // No process.exit(): let Dawn's threads wind down.
  process.exitCode = errors.length ? 1 : 0;
} else {
  const { spawnSync } = await import('node:child_process');
  const self = new URL(import.meta.url).pathname;
  let passed = 0;
  let failed = 0;
  for (const file of files) {
    const child = spawnSync(process.execPath, [self, file], { encoding: 'utf8' });
    const report = (child.stdout || '').trim();
    if (child.status === 0) {
      passed++;
      console.log(report);
      continue;
    }
    failed++;
    console.log(report || `FAIL ${file} (exit ${child.status ?? child.signal})`);
    const stderr = (child.stderr || '').split('\n').filter((l) => l && !l.startsWith('Warning: max'));
    if (stderr.length) console.log(`  ${stderr.join('\n  ')}`);
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}
