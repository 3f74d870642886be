/** Bundles every k6 script in load/ into dist/load/, with k6's own modules left as imports. */
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';

export const LOAD_SCRIPTS = readdirSync(new URL('.', import.meta.url))
  .filter((name) => name.startsWith('v') && name.endsWith('.ts'))
  .map((name) => new URL(name, import.meta.url).pathname);

export async function bundleLoadScripts(outdir: string, write = true) {
  return build({
    entryPoints: LOAD_SCRIPTS,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    target: 'es2020',
    external: ['k6', 'k6/*'],
    outdir,
    write,
    logLevel: 'silent',
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await bundleLoadScripts('dist/load');
  console.log(`bundled ${LOAD_SCRIPTS.length} k6 scripts into dist/load (${result.warnings.length} warnings)`);
}
