/**
 * Every sentence an expectation of the generated probes rests on is quoted verbatim: the contract's
 * marks, the endpoint rows and the expectation's own sentences, held to spec/ like a rule's quote.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/contract/endpoints.ts';
import { MARKED_SENTENCES } from '../../src/contract/marks.ts';
import { sentenceText, type Sentence } from '../../src/contract/sentence.ts';
import { EXPECTATION_SENTENCES } from '../../src/checks/generated/expectation.ts';
import { normalizedSpec, SPEC_DIR } from '../support/spec.ts';

const all: Sentence[] = [
  ...MARKED_SENTENCES,
  ...ENDPOINTS.flatMap((e) => [e.stated, ...e.bodies.map((b) => b.stated)]).filter((s): s is Sentence => s !== undefined),
  ...Object.values(EXPECTATION_SENTENCES),
];
const documents = all.filter((s): s is Extract<Sentence, { kind: 'document' }> => s.kind === 'document');
const unique = [...new Map(documents.map((s) => [sentenceText(s), s])).entries()];

const mcpDir = new URL('mcp-2025-03-26/', SPEC_DIR);
const plain = (s: string) => s.replace(/`/g, '').replace(/\s+/g, ' ');
const mcpText = plain(readdirSync(mcpDir).map((f) => readFileSync(new URL(f, mcpDir), 'utf8').replace(/\n\s*- /g, ' ')).join('\n'));

describe('every sentence behind a generated expectation is quoted verbatim', () => {
  it('marks the contract at all', () => {
    expect(MARKED_SENTENCES.length).toBeGreaterThan(30);
  });
  it.each(unique)('%s', (_text, s) => {
    for (const piece of s.quote.split(' … ')) {
      if (s.document === 'mcp-2025-03-26') expect(mcpText, `not in spec/mcp-2025-03-26: "${piece}"`).toContain(plain(piece));
      else expect(normalizedSpec(s.document), `not in ${s.document}: "${piece}"`).toContain(piece.replace(/\s+/g, ' '));
    }
  });
  it('names a section for every standard it cites', () => {
    for (const s of all) if (s.kind === 'standard') expect(s.section).toMatch(/^§\d/);
  });
});
