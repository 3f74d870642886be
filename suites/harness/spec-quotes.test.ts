import { describe, expect, it } from 'vitest';
import { RULES } from '../../src/registry.ts';
import { normalizedSpec } from '../support/spec.ts';

// A rule's quote is the sentence it enforces; a paraphrase would let a check drift from the spec.
describe('every rule quotes its spec verbatim', () => {
  const local = RULES.filter((r) => r.spec.document !== 'mcp-2025-03-26');
  it.each(local.map((r) => [r.id, r] as const))('%s', (_id, rule) => {
    const doc = normalizedSpec(rule.spec.document);
    for (const piece of rule.spec.quote.split(' … ')) {
      expect(doc, `quote piece not found in ${rule.spec.document}: "${piece}"`).toContain(piece.replace(/\s+/g, ' '));
    }
  });
});
