/**
 * audit-113 F2, F4, F11: a server may serve the ids JSON-RPC 2.0 allows and MCP binds only the
 * client from (a fraction, null), and may report arguments a tool cannot take as a tool execution
 * error (a result with isError: true). Both legal choices pass; a response setting both result and
 * error, and a plain success to such arguments, still fail, each with a reason that says what was wrong.
 */
import { describe, expect, it } from 'vitest';
import { mcpCases } from '../../src/checks/catalogue/plan.ts';
import { expectationFor, judged } from '../../src/checks/catalogue/run.ts';
import { NOTHING_KNOWN, type SentRequest } from '../../src/checks/generated/expectation.ts';
import type { Answer } from '../../src/checks/generated/judgement.ts';
import { resultXorError } from '../../src/checks/mcp/jsonrpc/messages.ts';
import { sentenceText } from '../../src/contract/sentence.ts';
import { certify } from '../../src/runner/certify.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { judgementCases } from '../support/judgement-cases.ts';
import { json, journal, operating, post, verdicts, type Part } from './mcp-recording.ts';

const S = 'session-113';
const ping = (id: unknown) => ({ jsonrpc: '2.0', id, method: 'ping' });
const notPassing = (results: readonly RuleResult[]) => results.filter((r) => r.verdict !== 'pass' && r.verdict !== 'not-applicable').map((r) => `${r.rule.id}: ${r.verdict}: ${r.reason?.split('\n')[0]}`);
/** The failing reasons mcp.jsonrpc.result-xor-error gives over the recording. */
const failures = (parts: readonly Part[]) => judgementCases(resultXorError.judgement!, journal(parts), undefined, 'recording').filter((c) => !c.ok).map((c) => c.reason);

describe('F2: mcp.jsonrpc.result-xor-error judges the envelope with JSON-RPC\'s ids', () => {
  const served: Part[] = [
    ...operating(S),
    { ...post(ping(1.5), S), ...json(200, { jsonrpc: '2.0', id: 1.5, result: {} }) },
    { ...post(ping(null), S), ...json(200, { jsonrpc: '2.0', id: null, result: {} }) },
  ];

  it('a ping with id 1.5 or null served with a result echoing the id passes', async () => {
    expect(failures(served)).toEqual([]);
    expect((await verdicts(served, ['mcp.jsonrpc.result-xor-error', 'mcp.jsonrpc.id-echoed']))).toMatchObject({
      'mcp.jsonrpc.result-xor-error': { verdict: 'pass' },
      'mcp.jsonrpc.id-echoed': { verdict: 'pass' },
    });
  });

  it('a response setting both result and error still fails, and the reason says so', () => {
    const reasons = failures([...operating(S), { ...post(ping('b1'), S), ...json(200, { jsonrpc: '2.0', id: 'b1', result: {}, error: { code: -32603, message: 'x' } }) }]);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toContain('both result and error are set');
    expect(reasons[0]).not.toContain('Invalid input');
  });

  it('a result with id null to a request whose id was a string fails; an id that is no JSON-RPC id is named', () => {
    const reasons = failures([
      ...operating(S),
      { ...post(ping('n1'), S), ...json(200, { jsonrpc: '2.0', id: null, result: {} }) },
      { ...post({ jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }, S), ...json(200, { jsonrpc: '2.0', id: { a: 1 }, error: { code: -32600, message: 'Invalid Request' } }) },
      { ...post(ping('c1'), S), ...json(200, { jsonrpc: '2.0', id: 'c1', error: { code: 'bad', message: 'x' } }) },
    ]);
    expect(reasons).toHaveLength(3);
    expect(reasons[0]).toContain('a result carries id null, though no request of this POST had id null');
    expect(reasons[1]).toContain('id: not a String, Number or Null');
    expect(reasons[2]).toContain('error.code: not an integer');
    for (const r of reasons) expect(r).not.toContain('Invalid input');
  });

  it('the fake serving ids 1.5 and null (mcp.jsonrpc/lenient-ids) passes the JSON-RPC rules and the catalogue', async () => {
    const { results, variantsTaken } = await certify({ variants: ['mcp.jsonrpc/lenient-ids'], patterns: ['mcp.jsonrpc.result-xor-error', 'mcp.jsonrpc.id-echoed', 'mcp.catalogue.*'], seed: 11 });
    expect(variantsTaken).toEqual(['mcp.jsonrpc/lenient-ids']);
    expect(notPassing(results)).toEqual([]);
  }, 120_000);
});

describe('F4: tools/call arguments that are not an object: a JSON-RPC error or a tool execution error', () => {
  const cases = mcpCases('deep', { name: 'echo', arguments: { text: 'hi' } }).filter((c) => c.operator === 'mcp-params.tools-call');
  const argumentCases = cases.filter((c) => c.label.startsWith('arguments '));
  const sentOf = (body: unknown): SentRequest => ({ method: 'POST', path: '/mcp', headers: { 'content-type': 'application/json', 'mcp-session-id': S }, credential: 'primary', body: JSON.stringify(body) });
  const answer = (body: unknown): Answer => ({ status: 200, headers: {}, contentType: 'application/json', json: body, text: JSON.stringify(body), cut: false });

  it('states the four argument cases on MCP tools\' two error kinds, and keeps "no tool name" a refusal by JSON-RPC', () => {
    expect(argumentCases.map((c) => c.label).sort()).toEqual(['arguments a number', 'arguments a string', 'arguments an array', 'arguments null']);
    for (const c of argumentCases) {
      expect(c.stated, c.label).toMatchObject({ kind: 'refuse', orToolError: true });
      expect(sentenceText(c.stated!.because)).toContain('Tool Execution Errors: Reported in tool results with isError: true');
      expect(sentenceText(c.stated!.because)).toContain('Invalid arguments');
    }
    const noName = cases.find((c) => c.label === 'no tool name')!;
    expect(noName.stated?.kind).toBe('refuse');
    expect(noName.stated?.orToolError).toBeUndefined();
  });

  it.each(argumentCases.map((c) => [c.label, c] as const))('%s: an isError result or an error passes error-status; a plain success or another id fails', (_label, c) => {
    const body = (c.body as { json: { id: string } }).json;
    const sent = sentOf(body);
    const e = expectationFor({ ...c, endpoint: 'POST /mcp', operator: c.operator }, sent, undefined, NOTHING_KNOWN);
    const status = (reply: unknown) => judged(sent, e, answer(reply), undefined, false, c.stated).findings['error-status'];
    const toolError = (id: unknown) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'Invalid input' }], isError: true } });
    expect(status(toolError(body.id))?.ok).toBe(true);
    expect(status({ jsonrpc: '2.0', id: body.id, error: { code: -32602, message: 'Invalid params' } })?.ok).toBe(true);
    expect(status(toolError('another-id'))?.ok).toBe(false);
    const plain = status({ jsonrpc: '2.0', id: body.id, result: { content: [{ type: 'text', text: 'done' }] } });
    expect(plain?.ok).toBe(false);
    expect(plain?.reason).toContain('neither a JSON-RPC error nor a tool result with isError: true');
  });

  it('"no tool name" answered with an isError result still fails error-status', () => {
    const c = cases.find((x) => x.label === 'no tool name')!;
    const body = (c.body as { json: { id: string } }).json;
    const sent = sentOf(body);
    const e = expectationFor({ ...c, endpoint: 'POST /mcp', operator: c.operator }, sent, undefined, NOTHING_KNOWN);
    expect(judged(sent, e, answer({ jsonrpc: '2.0', id: body.id, result: { content: [], isError: true } }), undefined, false, c.stated).findings['error-status']?.ok).toBe(false);
  });

  it('the fake reporting invalid arguments as a tool execution error (mcp.jsonrpc/invalid-arguments-as-tool-error) passes the catalogue', async () => {
    const { results, variantsTaken } = await certify({ variants: ['mcp.jsonrpc/invalid-arguments-as-tool-error'], patterns: ['mcp.catalogue.*', 'mcp.jsonrpc.*'], seed: 11 });
    expect(variantsTaken).toEqual(['mcp.jsonrpc/invalid-arguments-as-tool-error']);
    expect(notPassing(results)).toEqual([]);
  }, 120_000);
});
