import { describe, expect, it } from 'vitest';
import { RULES } from '../../src/registry.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { normalizedSpec, SPEC_DIR } from '../support/spec.ts';

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
