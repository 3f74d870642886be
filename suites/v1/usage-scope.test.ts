/**
 * "Scopes required by the other `/v1` endpoints: not shown." (audit helper-105's F2): a deployment
 * whose GET /v1/usage needs a scope beyond runs:read and runs:write refuses a key the profile
 * truthfully lists with those two only. That refusal is legal: the usage rules are untestable, naming
 * the key and what to do; v1.auth.key-prefix sends its bent tokens where the key is served; the
 * generated oracle leaves a scope refusal open on every /v1 endpoint whose scope is not shown, and
 * only there. A key the deployment answered 200 on usage before holds its scope: a later refusal
 * of it is judged. F10: v1.auth.scopes, untestable, names the keys lacking a scope that belong to
 * another principal.
 */
import { describe, expect, it } from 'vitest';
import { expectationOf, type SentRequest } from '../../src/checks/generated/expectation.ts';
import { judgeAnswer } from '../../src/checks/generated/judgement.ts';
import { certify } from '../../src/runner/certify.ts';
import { v1Recording } from '../passive/v1-recording.ts';

const PHRASE = 'a scope the description does not show';

describe('v1.usage/scope-beyond-runs: usage needs a scope the profile\'s keys do not list', () => {
  it('leaves the usage rules untestable with what to do, and passes key-prefix and the generated acceptance', { timeout: 240_000 }, async () => {
    const { results } = await certify({
      variants: ['v1.usage/scope-beyond-runs'],
      patterns: ['v1.usage.readback', 'v1.usage.tenant-scoped', 'v1.auth.key-prefix', 'v1.contract.generated.accepts-valid'],
      seed: 11,
    });
    const by = Object.fromEntries(results.map((r) => [r.rule.id, r]));
    for (const id of ['v1.usage.readback', 'v1.usage.tenant-scoped']) {
      expect(by[id]!.verdict, by[id]!.reason).toBe('untestable');
      expect(by[id]!.reason).toContain(PHRASE);
      expect(by[id]!.reason).toContain('v1-full (403 authorization_failed)');
      expect(by[id]!.reason).toContain("give the key that scope and list it under the key's scopes");
    }
    expect(by['v1.auth.key-prefix']!.verdict, by['v1.auth.key-prefix']!.reason).toBe('pass');
    expect(by['v1.contract.generated.accepts-valid']!.verdict, by['v1.contract.generated.accepts-valid']!.reason).toBe('pass');
  });
});

describe('the generated oracle: a scope refusal where the scope is not shown', () => {
  const sent = (method: string, path: string, json?: unknown): SentRequest => ({ method, path, headers: json === undefined ? {} : { 'content-type': 'application/json' }, credential: 'v1-full', ...(json === undefined ? {} : { json, body: JSON.stringify(json) }) });
  const problem = (status: number, code: string) => ({ status, headers: { 'content-type': 'application/problem+json' }, contentType: 'application/problem+json', json: { type: 'about:blank', title: 'refused', status, code, message: 'refused', retryable: false }, text: '' });

  it('leaves GET /v1/usage refused authorization_failed or entitlement_failed open, format still judged', () => {
    const usage = sent('GET', '/v1/usage');
    const e = expectationOf(usage);
    expect(e.kind).toBe('accept');
    for (const [status, code] of [[403, 'authorization_failed'], [401, 'authorization_failed'], [403, 'entitlement_failed']] as const) {
      const j = judgeAnswer(usage, e, problem(status, code));
      expect(j.findings['accepts-valid'], `${status} ${code}`).toBeUndefined();
      expect(j.findings['no-5xx']?.ok).toBe(true);
    }
  });

  it('still fails any other refusal of GET /v1/usage', () => {
    const usage = sent('GET', '/v1/usage');
    const e = expectationOf(usage);
    for (const [status, code] of [[401, 'authentication_failed'], [400, 'invalid_request'], [403, 'conflict']] as const) {
      expect(judgeAnswer(usage, e, problem(status, code)).findings['accepts-valid']?.ok, `${status} ${code}`).toBe(false);
    }
  });

  it('leaves it open on every /v1 endpoint whose scope is not shown, and judges webhook registration', () => {
    const known = { existing: ['run_1'], parked: [], bases: {}, publicReceiverUrl: 'https://hooks.example.net/in' };
    const v1 = [sent('GET', '/v1/runs/run_1'), sent('GET', '/v1/runs/run_1/events'), sent('POST', '/v1/runs/run_1/cancel'), sent('POST', '/v1/execute', { mode: 'task', task: { kind: 'x' } })];
    for (const s of v1) {
      const e = expectationOf(s, known);
      if (e.kind !== 'accept') continue;
      expect(e.scopeOpen, `${s.method} ${s.path}`).toContain('Scopes required by the other `/v1` endpoints: not shown.');
    }
    const register = expectationOf(sent('POST', '/v1/webhooks', { url: 'https://hooks.example.net/in' }), known);
    expect(register.kind).toBe('accept');
    expect(register.kind === 'accept' && register.scopeOpen).toBeFalsy();
    expect(judgeAnswer(sent('POST', '/v1/webhooks', { url: 'https://hooks.example.net/in' }), register, problem(403, 'authorization_failed')).findings['accepts-valid']?.ok).toBe(false);
    const v8 = expectationOf({ method: 'GET', path: '/v8/coverage', headers: {}, credential: 'full' });
    expect(v8.kind === 'accept' && v8.scopeOpen).toBeFalsy();
  });
});

describe('v1.usage.readback over a recording', () => {
  const BASE = 'https://fabric.example.com';
  const TOKEN = 'service_sk_usagescope0123456789abcdef';
  const AUTH = { authorization: `Bearer ${TOKEN}` };
  const { journal, verdicts } = v1Recording(BASE, TOKEN, { completes: { mode: 'task', task: { kind: 'complete' } } });
  const read = (status: number, body: unknown) => ({ method: 'GET', path: '/v1/usage', credential: 'full', requestHeaders: AUTH, status, responseHeaders: { 'content-type': status === 200 ? 'application/json' : 'application/problem+json' }, responseBody: JSON.stringify(body) });
  const refused = (code: string) => read(403, { type: 'about:blank', title: 'refused', status: 403, code, message: 'refused', retryable: false });
  const ID = 'v1.usage.readback';

  it('is untestable when every read was refused for a scope', async () => {
    expect((await verdicts(journal([refused('authorization_failed')]), [ID]))[ID]).toBe('untestable');
  });

  it('fails a scope refusal of a key the deployment served usage before', async () => {
    expect((await verdicts(journal([read(200, { spend: 1 }), refused('authorization_failed')]), [ID]))[ID]).toBe('fail');
  });

  it('fails any other refusal', async () => {
    expect((await verdicts(journal([refused('invalid_request')]), [ID]))[ID]).toBe('fail');
  });
});

describe('v1.auth.scopes names keys lacking a scope that belong to another principal (F10)', () => {
  it('says which keys exist and whose they are', { timeout: 120_000 }, async () => {
    const { results } = await certify({
      patterns: ['v1.auth.scopes'],
      seed: 5,
      adjustEmbeddedProfile: (p) => ({ ...p, credentials: p.credentials.map((c) => (c.name === 'v1-read-only' || c.name === 'v1-no-scopes' ? { ...c, principal: 'v1-bob' } : c)) }),
    });
    const scopes = results.find((r) => r.rule.id === 'v1.auth.scopes')!;
    expect(scopes.verdict).toBe('untestable');
    expect(scopes.reason).toContain('such keys exist for another principal (v1-read-only of v1-bob, v1-no-scopes of v1-bob');
    expect(scopes.reason).toContain('not for v1-alice, the principal of the primary key v1-full');
  });
});
