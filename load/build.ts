/**
 * Bundles every k6 script in load/ into one file each (dist/load/*.js), with only k6's own modules
 * left as imports (nothing is fetched at run time: an air-gapped runner must run them). Target es2017: k6 before v0.53 runs scripts through Babel, which
 * rejects newer syntax (`catch {}`); async/await needs k6 v0.43 or later.
 */
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const LOAD_SCRIPT_FILES = readdirSync(new URL('.', import.meta.url))
  .filter((name) => /^v\d-.+\.ts$/.test(name))
  .map((name) => fileURLToPath(new URL(name, import.meta.url)));

export const K6_TARGET = 'es2017';

export async function bundleLoadScripts(outdir: string, write = true, entryPoints: string[] = LOAD_SCRIPT_FILES) {
  return build({
    entryPoints,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    target: K6_TARGET,
    external: ['k6', 'k6/*'],
    outdir,
    write,
    metafile: true,
    logLevel: 'silent',
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await bundleLoadScripts('dist/load');
  console.log(`bundled ${LOAD_SCRIPT_FILES.length} k6 scripts into dist/load (${K6_TARGET}, ${result.warnings.length} warnings)`);
}
