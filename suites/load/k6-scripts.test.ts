import { describe, expect, it } from 'vitest';
import { bundleLoadScripts, LOAD_SCRIPTS } from '../../load/build.ts';

// No k6 binary runs here; what CI can prove is that each script bundles into one file that
// imports nothing but k6's own modules (k6 has no Node built-ins and no node_modules).
describe('k6 scripts', async () => {
  const result = await bundleLoadScripts('dist/load', false);

  it('bundles every script without errors or warnings', () => {
    expect(LOAD_SCRIPTS.length).toBeGreaterThanOrEqual(3);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.outputFiles).toHaveLength(LOAD_SCRIPTS.length);
  });

  it.each(LOAD_SCRIPTS.map((path) => [path.split('/').pop()!] as const))('%s imports only k6 modules', (name) => {
    const file = result.outputFiles!.find((f) => f.path.endsWith(name.replace(/\.ts$/, '.js')))!;
    const imports = [...file.text.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
    expect(imports.length).toBeGreaterThan(0);
    for (const source of imports) expect(source === 'k6' || source!.startsWith('k6/'), source).toBe(true);
    expect(file.text).not.toMatch(/\brequire\(|from "node:/);
    expect(file.text).toMatch(/export \{[^}]*options/);
  });
});
