/**
 * Where the generated contract rules (`<surface>.contract.generated.*`) stand in the traceability
 * matrix, beside the hand-written rules of each unit: every table row of a seed that carries a
 * constraint (a length, count, range, pattern, enum or closed object) and every `400` cell of an
 * error table, the units their own quotes come from, and the MCP units on what a POST body is.
 */
import type { Rule } from '../rule/index.ts';
import type { SpecUnit } from './units.ts';

/** A bound, an enum list or a closed object, as the seeds write them in a table row. */
const CONSTRAINT = /\d+\s*-\s*\d+|at (least|most) \d|max \d|no extra properties|one of|`[a-z_]+`, `[a-z_]+`|pattern/i;

function quoted(unit: SpecUnit, rule: Rule): boolean {
  const text = unit.text.replace(/\s+/g, ' ');
  return rule.spec.quote.split(' … ').some((piece) => piece.length > 12 && text.length > 12 && (text.includes(piece) || piece.includes(text)));
}

/** The MCP units the generated JSON-RPC messages judge: what a POST body must be, as JSON-RPC. */
const MCP_UNITS: Readonly<Record<string, string>> = {
  'mcp-transports:streamable-http-sending-messages-to-the-server:a-single-json-rpc-request-notification': 'mcp.jsonrpc.generated.errors',
  'mcp-transports:transports:json-rpc-messages-must-be-utf': 'mcp.jsonrpc.generated.errors',
};

/** The generated rules that judge a unit, besides its own mapping. */
export function generatedRulesFor(unit: SpecUnit, rules: readonly Rule[]): string[] {
  const mcp = MCP_UNITS[unit.id];
  if (mcp) return rules.some((r) => r.id === mcp) ? [mcp] : [];
  const surface = unit.id.split(':', 1)[0];
  if (surface !== 'v1' && surface !== 'v8') return [];
  const mine = rules.filter((r) => r.id.startsWith(`${surface}.contract.generated.`));
  const out = mine.filter((r) => quoted(unit, r)).map((r) => r.id);
  const has = (name: string) => mine.some((r) => r.id === `${surface}.contract.generated.${name}`);
  if (unit.kind === 'row' && CONSTRAINT.test(unit.text)) for (const name of ['accepts-valid', 'error-status']) if (has(name)) out.push(`${surface}.contract.generated.${name}`);
  if (unit.kind === 'error-cell' && /`400`/.test(unit.text) && has('error-status')) out.push(`${surface}.contract.generated.error-status`);
  return [...new Set(out)];
}
