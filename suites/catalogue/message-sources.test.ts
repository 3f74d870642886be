/**
 * What a failing generated or catalogue case says (audit s27-v8 F4, audit s27-v1py F3):
 * - a status a standard requires is named by that standard, not as one "its error table names" (the
 *   /v8 table of GET /v8/missions/{runId} names no 400; RFC 9112 §3.2 does), and the expectation is
 *   printed once, not once in the generated reason and again in the catalogue's bracket;
 * - a 5xx to a case the description leaves open says any 2xx or 4xx would do, not "expected: open".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { httpCases } from '../../src/checks/catalogue/plan.ts';
import { expectationFor, judged } from '../../src/checks/catalogue/run.ts';
import { NOTHING_KNOWN, type Expectation, type SentRequest } from '../../src/checks/generated/expectation.ts';
import { judgeAnswer, type Answer } from '../../src/checks/generated/judgement.ts';
import { standard } from '../../src/contract/sentence.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { certify } from '../../src/runner/certify.ts';
import { modelProxy, type ModelProxy } from '../harness/model-proxy.ts';

const credential = { name: 'primary', token: 'service_sk_0123456789abcdef' } as never;
const problem = (status: number): Answer => ({ status, headers: {}, contentType: 'application/problem+json', json: { type: 'about:blank', title: 'x', status }, text: JSON.stringify({ type: 'about:blank', title: 'x', status }), cut: false });
const RUN_ID = '01890a5d-ac96-774b-bcce-b302099a8057';

describe('a refusal status names where it comes from', () => {
  it('the 400 for two Host lines is the one RFC 9112 §3.2 requires', () => {
    const c = httpCases({ surface: 'v8', credential, fixtures: {}, readOnly: false, depth: 'default' }).find((x) => x.operator === 'framing.duplicate-host' && x.endpoint === 'GET /v8/missions/{runId}')!;
    expect(c.stated).toMatchObject({ kind: 'refuse', status: 400 });
    const sent: SentRequest = { method: 'GET', path: `/v8/missions/${RUN_ID}`, headers: {}, credential: 'primary' };
    const reason = judged(sent, expectationFor(c, sent, undefined, NOTHING_KNOWN), problem(404), c.permits, true).findings['error-status']!.reason;
    expect(reason).toMatch(/answered 404, not the 400 RFC 9112 §3\.2 requires; expected: must refuse with 400/);
    expect(reason).not.toContain('error table');
  });

  it('a status of the error table is still named as the table\'s', () => {
    const sent: SentRequest = { method: 'POST', path: '/v8/missions', headers: { 'content-type': 'application/json' }, credential: 'primary', body: '{}' };
    const e: Expectation = { kind: 'refuse', because: { kind: 'document', document: 'v8-integration-gateway.md', section: 'Errors', quote: '`400` missing fields' }, constraint: 'POST /v8/missions goalSpec required', status: 400 };
    expect(judgeAnswer(sent, e, problem(422)).findings['error-status']!.reason).toMatch(/answered 422, not the 400 its error table names; expected: must refuse with 400/);
    const rfc: Expectation = { ...e, because: standard('RFC 9112', '§6.3', 'the server MUST respond with a 400 (Bad Request) status code') };
    expect(judgeAnswer(sent, rfc, problem(422)).findings['error-status']!.reason).toMatch(/not the 400 RFC 9112 §6\.3 requires;/);
  });
});

describe('no-5xx on an open case', () => {
  it('says a 5xx is what fails, and that any 2xx or 4xx would do', () => {
    const sent: SentRequest = { method: 'POST', path: '/v1/webhooks', headers: { 'content-type': 'application/json' }, credential: 'primary', body: '{"description":"\\ud800"}' };
    const open: Expectation = { kind: 'open', why: 'description: a lone surrogate: a deployment may refuse it', constraint: 'POST /v1/webhooks description' };
    const reason = judgeAnswer(sent, open, { ...problem(500), contentType: 'text/plain', json: undefined, text: 'Internal Server Error' }).findings['no-5xx']!.reason;
    expect(reason).toBe('POST /v1/webhooks answered 500: a server error; any 2xx or 4xx would do here (the case is open: description: a lone surrogate: a deployment may refuse it)');
    expect(reason).not.toContain('expected: open');
  });
});

describe('v8.catalogue.error-status on a server that serves two Host lines (node:http keeps the first)', () => {
  let fake: RunningFake | undefined;
  let proxy: ModelProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    await fake?.close();
    proxy = fake = undefined;
  });

  it('fails naming RFC 9112 §3.2, with the expectation printed once', async () => {
    fake = await startFake();
    // A plain node:http proxy: it serves a request with two Host lines as the fake would any other.
    proxy = await modelProxy(fake.baseUrl, () => undefined);
    const { results } = await certify({ profile: { ...embeddedProfile(fake), target: proxy.url }, patterns: ['v8.catalogue.error-status'], seed: 7 });
    const result = results[0]!;
    expect(result.verdict).toBe('fail');
    const cases = result.cases.map((c) => c.reason).filter((r) => r.includes('framing.duplicate-host'));
    expect(cases.length).toBeGreaterThan(0);
    // A create is served (202, not a refusal); a read of a mission the fake does not know answers its 404.
    expect(cases.some((r) => /answered 404, not the 400 RFC 9112 §3\.2 requires; expected: must refuse with 400 \[/.test(r)), cases.join('\n')).toBe(true);
    for (const reason of cases) {
      expect(reason).not.toContain('error table');
      expect(reason.split('must refuse with 400 [').length - 1, reason).toBe(1);
    }
  }, 120_000);
});
