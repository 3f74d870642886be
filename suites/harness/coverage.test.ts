import { describe, expect, it } from 'vitest';
import { derivedMapping, quotes } from '../../src/coverage/derive.ts';
import { buildMatrix } from '../../src/coverage/matrix.ts';
import { MAPPING } from '../../src/coverage/map.ts';
import { REASONS } from '../../src/coverage/reasons.ts';
import { allUnits, splitUnits, type SpecUnit } from '../../src/coverage/units.ts';
import { RULES } from '../../src/registry.ts';

// Every sentence of the seeds is judged by a rule, recorded by an observation rule, or carries the
// reason it cannot be judged from outside; an edited seed sentence gets a new id and fails here.
describe('traceability matrix', () => {
  const matrix = buildMatrix();

  it('maps every normative unit', () => {
    const unmapped = matrix.units.filter((u) => u.status === 'unmapped' && !u.unknownRules.length).map((u) => `${u.id}: ${u.text}`);
    expect(unmapped).toEqual([]);
  });

  it('names only rules that exist', () => {
    const unknown = matrix.units.flatMap((u) => u.unknownRules.map((r) => `${u.id} -> ${r}`));
    expect(unknown).toEqual([]);
  });

  it('keeps no mapping for a unit that no longer exists', () => {
    expect(matrix.staleMappings).toEqual([]);
  });

  it('gives every reason a text', () => {
    for (const m of Object.values(MAPPING)) if (m.reason) expect(REASONS[m.reason]).toBeTruthy();
  });

  it('splits all five documents, so a missing document cannot pass as "all mapped"', () => {
    const docs = new Set(matrix.units.map((u) => u.document));
    expect([...docs].sort()).toEqual(['mcp-2025-03-26/lifecycle.md', 'mcp-2025-03-26/transports.md', 'rfc9110/semantics.md', 'v1-execution-fabric.md', 'v8-integration-gateway.md']);
    expect(matrix.counts.total).toBeGreaterThan(350);
  });

  it('leaves no required rule outside the matrix', () => {
    const mapped = new Set(matrix.units.flatMap((u) => u.rules));
    const orphans = RULES.filter((r) => !mapped.has(r.id)).map((r) => r.id);
    expect(orphans).toEqual([]);
  });

  it('splits tables, numbered rules, bullets, sentences and error cells into units', () => {
    const units = splitUnits('v8', '# T\n\n## Errors\n\nFailures are JSON. Sensitive fields are redacted.\n\n| Endpoint | Status and cause |\n|---|---|\n| `GET /x` | `401`; `404` gone |\n\nRules:\n\n1. One rule.\n\n- A bullet\n');
    expect(units.map((u) => [u.kind, u.id])).toEqual([
      ['sentence', 'v8:errors:failures-are-json'],
      ['sentence', 'v8:errors:sensitive-fields-are-redacted'],
      ['error-cell', 'v8:errors:get-x:401'],
      ['error-cell', 'v8:errors:get-x:404'],
      ['rule', 'v8:errors-rules:1'],
      ['bullet', 'v8:errors-rules:a-bullet'],
    ]);
  });

  // The hand-written table and the rules' quotes must never tell two stories about one unit.
  it('derives from the quotes what they say, and the written table never disagrees with it', () => {
    const units = allUnits();
    const derived = derivedMapping(units, RULES);
    expect(derived.size).toBeGreaterThan(100);
    const disagreements = units.flatMap((u) => {
      const written = MAPPING[u.id];
      if (!written) return [];
      const quoting = (derived.get(u.id) ?? []).filter((id) => !written.notJudgedBy?.includes(id));
      const out: string[] = [];
      for (const id of written.notJudgedBy ?? []) if (!derived.get(u.id)?.includes(id)) out.push(`${u.id}: notJudgedBy names ${id}, which does not quote it`);
      if (written.reason && quoting.length) out.push(`${u.id}: written as ${written.reason}, yet ${quoting.join(', ')} quote it`);
      for (const id of written.rules ?? []) if (quoting.includes(id)) out.push(`${u.id}: ${id} quotes it, so the written entry repeats the derived one`);
      return out;
    });
    expect(disagreements).toEqual([]);
  });

  it('counts a quote that joins sentences with "…" as each of them, and never derives an error cell', () => {
    const rule = RULES.find((r) => r.id === 'v8.missions.lifecycle.model')!;
    // A quote is placed by the units it holds, so the sentences stand in the sections the seed gives them.
    const sentence = (text: string): SpecUnit => allUnits().find((u) => u.text === text) ?? { id: 'u', document: rule.spec.document, section: 'Endpoints > Rules', kind: 'sentence', text };
    expect(quotes(rule, sentence('A signal to a mission in a terminal state gives `409`.'))).toBe(true);
    expect(quotes(rule, sentence('Events after a terminal event are informational only, not state-changing.'))).toBe(true);
    expect(quotes(rule, sentence('A signal to a mission gives `409`.'))).toBe(false);
    expect(quotes(rule, { ...sentence('A signal to a mission in a terminal state gives `409`.'), document: 'v1-execution-fabric.md' })).toBe(false);
    const row = RULES.find((r) => r.id === 'v8.traces.get.unknown-404')!;
    expect(quotes(row, { id: 'c', document: row.spec.document, section: 'Errors', kind: 'error-cell', text: '`GET /v8/traces/{traceId}` | `401`' })).toBe(false);
  });
});
