/**
 * The layering the code is built on, checked on every run: no import cycles (type-only imports
 * included), a kernel that builds on nothing above it, a registry nothing below imports, and every
 * rule's check in the folder its id names.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RULES } from '../../src/registry.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Static imports, re-exports (type-only ones too) and dynamic imports with a literal path. */
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^;'"]*?\bfrom\s*'([^']+)'|\bimport\s*\(\s*'([^']+)'\s*\)|(?:^|\n)\s*import\s*'([^']+)'/g;

/** Every relative import of a file, resolved to a path below the repository. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)]
    .map((m) => m[1] ?? m[2] ?? m[3] ?? '')
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name));
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((f) => [f, importsOf(f).filter((target) => target.startsWith(SRC))]));
const rel = (path: string) => relative(ROOT, path);

/** Strongly connected components of more than one file, or a file importing itself (Tarjan). */
function cycles(): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indices.get(next)!));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(rel(member));
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
    }
  };
  for (const file of files) if (!indices.has(file)) visit(file);
  return found;
}

describe('architecture', () => {
  it('has no import cycle, type-only imports included', () => {
    expect(cycles()).toEqual([]);
  });

  it('keeps the rule kernel a leaf: src/rule imports only itself and the profile schema types', () => {
    const allowed = (target: string) => target.startsWith(join(SRC, 'rule')) || target === join(SRC, 'profile', 'schema.ts') || target.startsWith(join(SRC, 'profile', 'fixtures'));
    const outside = files
      .filter((f) => f.startsWith(join(SRC, 'rule')))
      .flatMap((f) => graph.get(f)!.filter((t) => !allowed(t)).map((t) => `${rel(f)} -> ${rel(t)}`));
    expect(outside).toEqual([]);
  });

  it('lets only the runner, the CLI and the library entry import the registry', () => {
    const registry = join(SRC, 'registry.ts');
    const importers = files.filter((f) => graph.get(f)!.includes(registry)).map(rel);
    const below = importers.filter((f) => /^src\/(rule|checks|fake|contract|probe|sse|profile|redact|util|webhooks|traffic)\//.test(f));
    expect(below).toEqual([]);
  });

  it('never lets the fake and the checks import each other', () => {
    const crossing = files.flatMap((f) => {
      const from = rel(f);
      return graph
        .get(f)!
        .map(rel)
        .filter((to) => (from.startsWith('src/checks/') && to.startsWith('src/fake/')) || (from.startsWith('src/fake/') && to.startsWith('src/checks/')))
        .map((to) => `${from} -> ${to}`);
    });
    expect(crossing).toEqual([]);
  });

  it("declares every rule in the folder its id names: src/checks/<surface>/<area>/", () => {
    const checkFiles = files.filter((f) => f.startsWith(join(SRC, 'checks')));
    const texts = new Map(checkFiles.map((f) => [f, readFileSync(f, 'utf8')]));
    const misplaced: string[] = [];
    for (const rule of RULES) {
      const [surface, area] = rule.id.split('.');
      const homes = checkFiles.filter((f) => texts.get(f)!.includes(`id: '${rule.id}'`));
      if (homes.length !== 1) {
        misplaced.push(`${rule.id}: declared in ${homes.length} files (write the id as a literal, once)`);
        continue;
      }
      const home = rel(homes[0]!);
      if (!home.startsWith(`src/checks/${surface}/${area}/`)) misplaced.push(`${rule.id}: declared in ${home}`);
    }
    expect(misplaced).toEqual([]);
  });

  it('writes each rule\'s judgement in one place: its rule (src/checks/<surface>/<area>/), never a second copy elsewhere', () => {
    // A judgement is a rule's `judgement` (src/rule/judgement.ts), run by the active check over the
    // exchanges it provoked and by the passive runner over a recording. A second catalogue of
    // judgements keyed by rule id (as src/passive/rules/ was) is a copy that drifts.
    const outside = files.filter((f) => !f.startsWith(join(SRC, 'checks')));
    const texts = new Map(outside.map((f) => [f, readFileSync(f, 'utf8')]));
    const copies: string[] = [];
    for (const rule of RULES) {
      for (const f of outside) if (texts.get(f)!.includes(`id: '${rule.id}'`)) copies.push(`${rule.id}: also judged in ${rel(f)}`);
    }
    expect(copies).toEqual([]);
  });
});

