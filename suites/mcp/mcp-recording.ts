/** A hand-made /mcp recording judged as judge-traffic judges one, with a profile of one mcp credential (and a second caller's token). */
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import type { Exchange, Level, Verdict } from '../../src/rule/index.ts';

export const MCP_BASE = 'https://gateway.example.com';
export const TOKEN = 'mcpat_recordedcaller0123456789abcdef';
export const OTHER_TOKEN = 'mcpat_secondcaller0123456789abcdef0';
export const CLIENT_HEADERS = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export type Part = Partial<Exchange> & { method: string };

/** A POST to /mcp as MCP asks of a client, in the session `session` (none when undefined); `headers` override. */
export function post(body: unknown, session: string | undefined, headers: Record<string, string> = {}): Part {
  return {
    method: 'POST',
    requestHeaders: { ...CLIENT_HEADERS, ...(session === undefined ? {} : { 'mcp-session-id': session }), ...headers },
    requestBody: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Part =>
  ({ method: 'POST', status, responseHeaders: { 'content-type': 'application/json', ...headers }, responseBody: JSON.stringify(body) });
export const empty = (status: number): Part => ({ method: 'POST', status, responseHeaders: {}, responseBody: '' });
export const plain = (status: number, text: string): Part => ({ method: 'POST', status, responseHeaders: { 'content-type': 'text/plain' }, responseBody: text });

/** An initialize asking for `version`, answered with a result declaring `capabilities` (and the session id, when given). */
export function initialize(id: string, session: string | undefined, capabilities: Record<string, unknown> = { tools: {} }, version = '2025-03-26'): Part[] {
  const request = post({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'client', version: '1' } } }, undefined);
  const result = { protocolVersion: version, capabilities, serverInfo: { name: 'server', version: '1' } };
  return [{ ...request, ...json(200, { jsonrpc: '2.0', id, result }, session === undefined ? {} : { 'mcp-session-id': session }) }];
}

/** initialize, then notifications/initialized answered 202: an operating session. */
export function operating(session: string | undefined, capabilities?: Record<string, unknown>): Part[] {
  return [...initialize(`init-${session ?? 'none'}`, session, capabilities), { ...post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session), ...empty(202) }];
}

/** Exchanges one second apart, in the order given. */
export function journal(parts: readonly Part[]): Exchange[] {
  return parts.map(
    (e, i) =>
      ({ index: i, startedAt: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString(), durationMs: 10, url: `${MCP_BASE}/mcp`, path: '/mcp', requestHeaders: {}, responseHeaders: {}, ...e }) as Exchange,
  );
}

function profile() {
  return parseProfile(
    {
      target: MCP_BASE,
      credentials: [
        { name: 'mcp', token: TOKEN, surfaces: ['mcp'] },
        { name: 'mcp-other', token: OTHER_TOKEN, surfaces: ['mcp'] },
      ],
    },
    'test profile',
  );
}

/** Each selected rule's verdict (and level) on the recording. */
export async function verdicts(parts: readonly Part[], patterns: string[]): Promise<Record<string, { verdict: Verdict; level: Level }>> {
  const { results } = await judgeRecording(journal(parts), { surfaces: ['mcp'], patterns, profile: profile(), env: {} });
  return Object.fromEntries(results.map((r) => [r.rule.id, { verdict: r.verdict, level: r.rule.level }]));
}

/** Each selected rule's verdict on the recording. */
export async function verdictOf(parts: readonly Part[], rule: string): Promise<Verdict | undefined> {
  return (await verdicts(parts, [rule]))[rule]?.verdict;
}
