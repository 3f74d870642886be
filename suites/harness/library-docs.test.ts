/**
 * docs/library.md against the types: every export of the three package entry points, every option
 * of certify() and certificationSuite() and every field of a Certification is named there, and
 * every export the page gives a row is real. Read from the sources the exports are compiled from.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as library from '../../src/index.ts';
import { certify, CertifyOptionsError, rules } from '../../src/index.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const DOC = read('docs/library.md');

/** Names exported by an entry point's `export { ... } from` lines, types included. */
function exportedNames(source: string): string[] {
  return [...source.matchAll(/export \{([^}]+)\}/g)].flatMap((m) => m[1]!.split(',').map((part) => part.trim().replace(/^type /, '').split(' as ').at(-1)!.trim())).filter(Boolean);
}

/** Property names of an exported interface, read from its source. */
function fieldsOf(source: string, name: string): string[] {
  const body = new RegExp(`export interface ${name} \\{([\\s\\S]*?)\\n\\}`).exec(source)?.[1];
  expect(body, name).toBeDefined();
  return [...body!.matchAll(/^ {2}([A-Za-z]+)\??:/gm)].map((m) => m[1]!);
}

describe('docs/library.md', () => {
  it('names every export, option and result field', () => {
    const names = [
      ...exportedNames(read('src/index.ts')),
      ...exportedNames(read('src/webhooks/index.ts')),
      ...fieldsOf(read('src/runner/certify.ts'), 'CertifyOptions'),
      ...fieldsOf(read('src/runner/certify.ts'), 'Certification'),
      ...fieldsOf(read('src/vitest/index.ts'), 'CertificationSuiteOptions'),
      'certificationSuite',
    ];
    expect(names.length).toBeGreaterThan(60);
    // `name` or `name(…)`: a function is documented with its call.
    const missing = names.filter((n) => !DOC.includes(`\`${n}\``) && !DOC.includes(`\`${n}(`));
    expect(missing).toEqual([]);
  });

  it('gives a row only to exports that exist', () => {
    const table = DOC.slice(DOC.indexOf('## Other exports of `apicert`'), DOC.indexOf('## `apicert/vitest`'));
    const rows = [...table.matchAll(/^\| `([A-Za-z_]+)` \|/gm)].map((m) => m[1]!);
    expect(rows.length).toBeGreaterThan(15);
    for (const name of rows) expect(Object.keys(library), name).toContain(name);
  });

  it('certify() takes globs in rules, as --rules does, and a misuse says what to pass', async () => {
    await expect(certify({ rules: [42 as unknown as string] })).rejects.toThrow(CertifyOptionsError);
    await expect(certify({ rules: ['v8.missions.get.ok', rules[0]!] })).rejects.toThrow(/give globs or Rule objects, not both/);
    await expect(certify({ profile: '' })).rejects.toThrow(/certify\(\{ profile \}\) is empty/);
    const { report } = await certify({ rules: ['v8.missions.get.*'], seed: 3 });
    expect(report.rules.map((r) => r.id).sort()).toEqual(rules.filter((r) => r.id.startsWith('v8.missions.get.')).map((r) => r.id).sort());
    expect(report.summary.gate).toBe('pass');
  }, 60_000);
});
