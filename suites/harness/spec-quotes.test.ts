import { describe, expect, it } from 'vitest';
import { RULES } from '../../src/registry.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { normalizedSpec, SPEC_DIR } from '../support/spec.ts';

// A rule's quote is the sentence it enforces; a paraphrase would let a check drift from the spec.
describe('every rule quotes its spec verbatim', () => {
  const local = RULES.filter((r) => r.spec.document !== 'mcp-2025-03-26' && r.spec.document !== 'rfc9110');
  it.each(local.map((r) => [r.id, r] as const))('%s', (_id, rule) => {
    const doc = normalizedSpec(rule.spec.document);
    for (const piece of rule.spec.quote.split(' … ')) {
      expect(doc, `quote piece not found in ${rule.spec.document}: "${piece}"`).toContain(piece.replace(/\s+/g, ' '));
    }
  });
});

// MCP quotes are held to the excerpts stored in spec/mcp-2025-03-26/ (each file names its URL).
describe('every MCP rule quotes the stored MCP 2025-03-26 text verbatim', () => {
  const dir = new URL('mcp-2025-03-26/', SPEC_DIR);
  const plain = (s: string) => s.replace(/`/g, '').replace(/\s+/g, ' ');
  // A list item's sub-bullets read as one sentence in a quote: drop the bullet marks.
  const text = plain(readdirSync(dir).map((f) => readFileSync(new URL(f, dir), 'utf8').replace(/\n\s*- /g, ' ')).join('\n'));
  const mcp = RULES.filter((r) => r.spec.document === 'mcp-2025-03-26');
  it.each(mcp.map((r) => [r.id, r] as const))('%s', (_id, rule) => {
    expect(rule.spec.url, 'an MCP rule names the page it quotes').toMatch(/^https:\/\/modelcontextprotocol\.io\/specification\/2025-03-26\//);
    for (const piece of rule.spec.quote.split(' … ')) expect(text, `quote piece not in spec/mcp-2025-03-26: "${piece}"`).toContain(plain(piece));
  });
});

// RFC 9110 quotes are held to the sentences stored in spec/rfc9110/, each rule naming the section it quotes.
describe('every rule resting on RFC 9110 quotes the stored text verbatim', () => {
  const dir = new URL('rfc9110/', SPEC_DIR);
  const text = readdirSync(dir).map((f) => readFileSync(new URL(f, dir), 'utf8')).join('\n').replace(/\s+/g, ' ');
  const rfc = RULES.filter((r) => r.spec.document === 'rfc9110');
  it('has such rules', () => {
    expect(rfc.length).toBeGreaterThan(0);
  });
  it.each(rfc.map((r) => [r.id, r] as const))('%s', (_id, rule) => {
    expect(rule.spec.url, 'a rule resting on RFC 9110 names the section it quotes').toMatch(/^https:\/\/www\.rfc-editor\.org\/rfc\/rfc9110#section-[\d.]+$/);
    expect(text, `section heading not in spec/rfc9110: "${rule.spec.section}"`).toContain(rule.spec.section);
    for (const piece of rule.spec.quote.split(' … ')) expect(text, `quote piece not in spec/rfc9110: "${piece}"`).toContain(piece.replace(/\s+/g, ' '));
  });
});
