// npm's "prepare": compiles the package exports (apicert, apicert/vitest, apicert/webhooks) to
// dist/. Plain JavaScript, because it also runs under `npm ci --omit=dev`, where neither the
// pinned Node 24 nor TypeScript is installed: then there is nothing to compile with, the CLI runs
// from its TypeScript sources, and this says so instead of failing the install.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = `${root}node_modules/typescript/bin/tsc`;
if (!existsSync(tsc)) {
  console.log('apicert prepare: TypeScript is not installed (npm ci --omit=dev?): the library exports in dist/ are not built; the CLI works without them.');
  process.exit(0);
}
// `node scripts/prepare.js lib` builds only apicert and apicert/vitest (a test builds the webhooks export itself).
const projects = process.argv[2] === 'lib' ? ['tsconfig.lib.json'] : ['tsconfig.webhooks.json', 'tsconfig.lib.json'];
for (const project of projects) {
  const result = spawnSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
// The HTML report reads its template next to the compiled module, as it does next to the source.
cpSync(`${root}reports/templates`, `${root}dist/lib/reports/templates`, { recursive: true });
