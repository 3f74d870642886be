// npm's "prepare": builds what the package runs from once installed. Plain JavaScript, because it
// also runs under `npm ci --omit=dev`, where neither the pinned Node 24 nor TypeScript is installed.
//  - dist/cli/main.js: the CLI as one ES module (esbuild, a dependency), because Node refuses to
//    strip types below node_modules: an installed apicert runs this, a checkout its sources; and
//    dist/cli/live-worker.js, the proxy's live-judging thread, for the same reason.
//  - dist/lib, dist/webhooks: the package exports (apicert, apicert/vitest, apicert/webhooks),
//    compiled by TypeScript with their .d.ts; skipped, and said, when TypeScript is absent.
//  - dist/profile.schema.json: the profile's JSON Schema for editors, from its zod schema.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const only = process.argv[2];

/**
 * Every bundled module keeps its own import.meta.url, the place its source has in the package, so
 * what it reads beside itself (the spec, the report template, the k6 scripts) is found as from source.
 */
const ownUrlPlugin = (outFile) => ({
  name: 'own-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const fromBundle = relative(dirname(outFile), args.path).split('\\').join('/');
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`), loader: 'ts' };
    });
  },
});

/** The CLI, and the proxy's live-judging thread, which a Worker starts from a file of its own (src/cli/live-findings.ts). */
async function bundleCli() {
  const { build } = await import('esbuild');
  for (const [entry, out] of [['src/cli/main.ts', 'dist/cli/main.js'], ['src/passive/live-worker.ts', 'dist/cli/live-worker.js']]) {
    const outfile = `${root}${out}`;
    await build({
      entryPoints: [`${root}${entry}`],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node22',
      // Dependencies stay imports resolved in node_modules; an optional peer (testcontainers) too.
      packages: 'external',
      plugins: [ownUrlPlugin(outfile)],
      logLevel: 'warning',
    });
  }
}

/** dist/profile.schema.json, from the zod schema: bundled to a module of the moment, run, removed. */
async function writeProfileSchema() {
  const { build } = await import('esbuild');
  const module = `${root}dist/.profile-schema.mjs`;
  await build({ entryPoints: [`${root}src/profile/json-schema.ts`], outfile: module, bundle: true, format: 'esm', platform: 'node', target: 'node22', packages: 'external', logLevel: 'warning' });
  try {
    const { profileJsonSchema } = await import(pathToFileURL(module).href);
    writeFileSync(`${root}dist/profile.schema.json`, `${JSON.stringify(profileJsonSchema(), null, 2)}\n`);
  } finally {
    rmSync(module, { force: true });
  }
}

if (only !== 'lib') {
  await bundleCli();
  await writeProfileSchema();
}
if (only === 'cli') process.exit(0);

const tsc = `${root}node_modules/typescript/bin/tsc`;
if (!existsSync(tsc)) {
  console.log('apicert prepare: TypeScript is not installed (npm ci --omit=dev?): the library exports in dist/ are not built; the CLI (dist/cli) is.');
  process.exit(0);
}
// `node scripts/prepare.js lib` builds only apicert and apicert/vitest (a test builds the webhooks export itself).
const projects = only === 'lib' ? ['tsconfig.lib.json'] : ['tsconfig.webhooks.json', 'tsconfig.lib.json'];
for (const project of projects) {
  const result = spawnSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
// The HTML report reads its template next to the compiled module, as it does next to the source.
cpSync(`${root}reports/templates`, `${root}dist/lib/reports/templates`, { recursive: true });
