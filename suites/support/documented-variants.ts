import { readFileSync } from 'node:fs';

/**
 * The variant ids docs/legal-variation.md names (each in backticks, `surface.area/name`), read from the
 * document rather than from VARIANTS: a list a test derives from VARIANTS cannot notice a variant it
 * leaves out, and this one can.
 */
export function documentedVariants(surfaces: readonly string[]): string[] {
  const table = readFileSync(new URL('../../docs/legal-variation.md', import.meta.url), 'utf8');
  const ids = [...table.matchAll(/`([a-z0-9]+\.[a-z0-9-]+\/[a-z0-9-]+)/g)].map((m) => m[1]!);
  return [...new Set(ids)].filter((id) => surfaces.includes(id.split('.')[0]!)).sort();
}
