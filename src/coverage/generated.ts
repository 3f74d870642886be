/**
 * Where the generated contract rules (`<surface>.contract.generated.*`) stand in the traceability
 * matrix, beside the hand-written rules of each unit: every row of a request table or of Limits,
 * and every request column of the Endpoints table, that carries a constraint (a length, count, range, pattern, enum or closed object) and every
 * `400` cell of an error table, the units their own quotes come from, and the MCP units on what a
 * POST body is. The generated rules send requests and judge the answers' refusals, so a row that
 * bounds only a response (a Problem field, a projection's status, a manifest's kind, a count of
 * results) is not theirs, however it is written.
 */
import type { Rule } from '../rule/index.ts';
import { quotedIds } from './derive.ts';
import type { SpecUnit } from './units.ts';

/**
 * A bound, an enum list or a closed object, as the seeds write them in a table row: case matters
 * (an enum is a list of lowercase backticked values, not `stepId`, `traceId`), words are whole
 * ("timezone offset" holds no "one of"), and a date is no range (MCP 2025-03-26).
 */
const CONSTRAINT = /\b\d+\s*-\s*\d+\b|\bat (least|most) \d|\bmax \d|\bno extra properties\b|\bone of\b|`[a-z_]+`, `[a-z_]+`|\bpattern\b/;
const DATE = /\b\d{4}-\d{2}-\d{2}\b/g;

export function carriesConstraint(text: string): boolean {
  return CONSTRAINT.test(text.replace(DATE, ' '));
}

/** The sections whose table rows bound what a request carries, per surface (suites/harness/coverage-heuristics.test.ts holds them to the seeds). */
export const REQUEST_SECTIONS: Readonly<Record<'v1' | 'v8', readonly string[]>> = {
  v1: [
    'Resources and their fields > Shared primitives',
    'Resources and their fields > ClientInfo (no extra properties)',
    'Resources and their fields > Message parts and messages (no extra properties)',
    'Resources and their fields > Other nested objects (no extra properties)',
    'Resources and their fields > Turn request body (AiPlatformChatRequestV1; no extra properties)',
    'Resources and their fields > Task request body (extra properties allowed)',
    'Resources and their fields > ApproveRequest (no extra properties)',
    'Limits',
  ],
  v8: [
    'Resources and their fields > Goal specification and budget (create request)',
    'Resources and their fields > Signal request',
    'Resources and their fields > Memory query request',
    'Limits',
  ],
};

/** Rows of Limits that bound an answer, not a request (the first cell, as the seed writes it). */
export const RESPONSE_LIMITS: readonly string[] = ['capability search results'];

/**
 * The part of a row that bounds what a request carries: a row of a request table, a row of Limits
 * unless it counts results, or the cells of an Endpoints row before its success column (a path
 * parameter's length and pattern). Undefined for any other row.
 */
export function requestText(unit: SpecUnit): string | undefined {
  const surface = unit.id.split(':', 1)[0];
  if (unit.kind !== 'row' || (surface !== 'v1' && surface !== 'v8')) return undefined;
  const cells = unit.text.split(' | ');
  if (unit.section === 'Endpoints') return cells.slice(0, -1).join(' | ');
  if (!REQUEST_SECTIONS[surface].includes(unit.section)) return undefined;
  return unit.section === 'Limits' && RESPONSE_LIMITS.includes(cells[0]!.trim()) ? undefined : unit.text;
}

/** The MCP units the generated JSON-RPC messages judge: what a POST body must be, as JSON-RPC. */
const MCP_UNITS: Readonly<Record<string, string>> = {
  'mcp-transports:streamable-http-sending-messages-to-the-server:a-single-json-rpc-request-notification': 'mcp.jsonrpc.generated.errors',
  'mcp-transports:transports:json-rpc-messages-must-be-utf': 'mcp.jsonrpc.generated.errors',
};

/** The generated rules that judge a unit, besides its own mapping. */
export function generatedRulesFor(unit: SpecUnit, rules: readonly Rule[], units: readonly SpecUnit[]): string[] {
  const mcp = MCP_UNITS[unit.id];
  if (mcp) return rules.some((r) => r.id === mcp) ? [mcp] : [];
  const surface = unit.id.split(':', 1)[0];
  if (surface !== 'v1' && surface !== 'v8') return [];
  const mine = rules.filter((r) => r.id.startsWith(`${surface}.contract.generated.`));
  const out = mine.filter((r) => quotedIds(r, units, true).has(unit.id)).map((r) => r.id);
  const has = (name: string) => mine.some((r) => r.id === `${surface}.contract.generated.${name}`);
  const bounds = requestText(unit);
  if (bounds !== undefined && carriesConstraint(bounds)) for (const name of ['accepts-valid', 'error-status']) if (has(name)) out.push(`${surface}.contract.generated.${name}`);
  if (unit.kind === 'error-cell' && /`400`/.test(unit.text) && has('error-status')) out.push(`${surface}.contract.generated.error-status`);
  return [...new Set(out)];
}
