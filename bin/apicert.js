#!/usr/bin/env node
// Launcher: apicert is TypeScript run by Node's own type stripping (Node >= 22.18). When started
// by an older Node, re-run with the Node 24 the project pins as a devDependency.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
const [minor] = process.versions.node.split('.').slice(1).map(Number);
const supported = major > 22 || (major === 22 && minor >= 18);
if (!supported) {
  const pinned = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
  if (!existsSync(pinned)) {
    console.error(`apicert needs Node >= 22.18 (this is ${process.version}); run "npm ci" to install the pinned Node 24, or upgrade Node.`);
    process.exit(2);
  }
  const result = spawnSync(pinned, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
const { main } = await import('../src/cli/main.ts');
await main(process.argv);
