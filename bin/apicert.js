#!/usr/bin/env node
// Launcher: apicert is TypeScript run by Node's own type stripping. When started by a Node older
// than 22.12, re-run with the Node 24 the project pins as a devDependency.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  const pinned = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
  if (!existsSync(pinned)) {
    console.error(`apicert needs Node >= 22.12 (this is ${process.version}); run "npm ci" to install the pinned Node 24, or upgrade Node.`);
    process.exit(2);
  }
  const result = spawnSync(pinned, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
if (major === 22 && minor < 18 && !process.execArgv.includes('--experimental-strip-types')) {
  // Type stripping is on by default from 22.18; before that it takes a flag.
  const result = spawnSync(process.execPath, ['--experimental-strip-types', '--no-warnings', fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
const { main } = await import('../src/cli/main.ts');
await main(process.argv);
