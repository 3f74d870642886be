/**
 * The probe catalogue's coverage, per endpoint: which operators apply at the default depth, whether
 * each case is stated (the sentence or standard section behind it) or open, and, from a report,
 * what each operator found there (`operators <endpoint>` observations of `<surface>.catalogue.no-5xx`).
 */
import { sentenceText } from '../contract/sentence.ts';
import { httpCases, mcpCases } from '../checks/catalogue/plan.ts';
import type { Credential } from '../profile/schema.ts';
import type { Rule } from '../rule/index.ts';
import { quotedIds } from './derive.ts';
import type { SpecUnit } from './units.ts';

type Observation = { ruleId: string; subject: string; value: unknown };

/** `endpoint → operator → "n ran, s stated, o open, f failing"`, from a report's observations. */
export function operatorsFromObservations(observations: readonly Observation[]): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const o of observations) {
    if (!o.ruleId.endsWith('.catalogue.no-5xx') || !o.subject.startsWith('operators ')) continue;
    if (o.value && typeof o.value === 'object') out.set(o.subject.slice('operators '.length), o.value as Record<string, unknown>);
  }
  return out;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function catalogueMarkdown(found?: ReadonlyMap<string, Readonly<Record<string, unknown>>>): string {
  const credential = { name: 'coverage', token: 'coverage-token-not-sent' } as Credential;
  const unordered = [
    ...(['v8', 'v1'] as const).flatMap((surface) => httpCases({ surface, depth: 'default', credential, fixtures: {}, readOnly: false })),
    ...mcpCases('default', undefined).map((c) => ({ ...c, endpoint: 'POST /mcp', same: undefined })),
  ];
  const order = [...new Set(unordered.map((c) => c.endpoint))];
  const rows = [...unordered].sort((a, b) => order.indexOf(a.endpoint) - order.indexOf(b.endpoint));
  const lines = ['', '# Probe catalogue coverage', '', found ? 'Per endpoint, each operator the default depth sends, its expectation, and what the report\'s run found.' : 'Per endpoint, each operator the default depth sends and its expectation (stated: the sentence or section; open: judged for no 5xx and the error format). Give --report to see what a run found.'];
  let endpoint = '';
  for (const c of rows) {
    if (c.endpoint !== endpoint) {
      endpoint = c.endpoint;
      lines.push('', `## ${endpoint}`, '', found ? '| operator | case | expectation | found |' : '| operator | case | expectation |', found ? '|---|---|---|---|' : '|---|---|---|');
    }
    const expectation = c.stated ? `must ${c.stated.kind}${c.stated.status ? ` (${c.stated.status})` : ''}: ${sentenceText(c.stated.because)}` : c.same ? `as the request it rewrites, because ${sentenceText(c.same)}` : `open (derived from the request as sent): ${c.why ?? ''}`;
    const result = found?.get(endpoint)?.[c.operator];
    lines.push(`| \`${c.operator}\` | ${cell(c.label)} | ${cell(expectation.slice(0, 240))} |${found ? ` ${typeof result === 'string' ? result : 'not sent'} |` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The MCP unit the catalogue's /mcp rules judge: what a POST body is, and what the server owes it. */
const MCP_BODY_UNIT = 'mcp-transports:streamable-http-sending-messages-to-the-server:a-single-json-rpc-request-notification';

/** The catalogue rules that judge a unit, besides its own mapping: those whose quote holds the unit (or a piece of it) within its own section, and the /mcp rules on what a POST body is. */
export function catalogueRulesFor(unit: SpecUnit, rules: ReadonlyArray<Pick<Rule, 'id' | 'spec'>>, units: readonly SpecUnit[]): string[] {
  const surface = unit.id.split(':', 1)[0];
  if (unit.id === MCP_BODY_UNIT) return rules.filter((r) => r.id.startsWith('mcp.catalogue.')).map((r) => r.id);
  if (surface !== 'v1' && surface !== 'v8') return [];
  return rules.filter((r) => r.id.startsWith(`${surface}.catalogue.`) && quotedIds(r, units, true).has(unit.id)).map((r) => r.id);
}
