/**
 * The secrets a recording teaches the judge: what the deployment accepted or issued, never every
 * string a client put in a credential header (issue 35: a probe's 4,096 `a`s, refused, then an
 * error answer echoing a long run of `a`, made a clean recording fail).
 */
import { describe, expect, it } from 'vitest';
import { exchangeOfEntry } from '../../src/passive/har.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { learnSecrets } from '../../src/passive/secrets.ts';

const V8 = [{ name: 'x-service-contract-version', value: 'service-integration-gateway-v8.1' }, { name: 'content-type', value: 'application/problem+json' }];
const TOKEN = 'k3J9xQpLm2ZtV7wR0aYb4Nc8';

function exchange(index: number, authorization: string, status: number, body: string, headers: Array<{ name: string; value: string }> = []) {
  return exchangeOfEntry(
    {
      startedDateTime: '2026-01-01T00:00:00.000Z',
      request: { method: 'GET', url: `https://api.example/v8/missions/0000000${index}`, headers: [{ name: 'Authorization', value: `Bearer ${authorization}` }] },
      response: { status, headers: [...V8, ...headers], content: { mimeType: 'application/problem+json', text: body } },
    },
    index,
  )!;
}

const problem = (status: number, detail: string) => JSON.stringify({ type: 'https://errors.example/x', title: 'x', status, detail, code: 'x', requestId: '9cbde346-84c1-4d99-9a60-98f22e484bcb' });

describe('secrets learned from a recording', () => {
  it('judges a credential only once an answer accepted it, and still hides every one', () => {
    const probe = 'a'.repeat(4096);
    const learned = learnSecrets([exchange(0, probe, 401, problem(401, 'no')), exchange(1, TOKEN, 401, problem(401, 'no')), exchange(2, TOKEN, 404, problem(404, 'no')), exchange(3, 'other-token-accepted-1234', 200, '{}')]);
    expect(learned.map((s) => [s.label, s.judged])).toEqual([
      ['authorization#1', false],
      ['authorization#2', false],
      ['authorization#3', true],
    ]);
  });

  it("judges the profile's credentials, given or hidden behind apicert's named markers, whatever was answered", () => {
    const learned = learnSecrets([exchange(0, '«redacted:token:expired»', 401, problem(401, 'expired: «redacted:token:expired»'))], [{ name: 'full', token: TOKEN }]);
    expect(learned.map((s) => [s.label, s.judged])).toEqual([
      ['token:full', true],
      ['token:expired', true],
    ]);
  });

  it("passes an error answer echoing a refused probe's token, and names exchange, label and place when an accepted one is echoed", async () => {
    const probe = 'a'.repeat(4096);
    const accepted = 'other-token-accepted-1234';
    const exchanges = [
      exchange(0, probe, 401, problem(401, `method ${'a'.repeat(5000)} is not allowed`)),
      exchange(1, accepted, 200, '{}'),
      exchange(2, accepted, 404, problem(404, `no mission for ${accepted}`)),
      exchange(3, accepted, 404, problem(404, 'no'), [{ name: 'x-debug-token', value: accepted }]),
    ];
    const judged = await judgeRecording(exchanges, { env: {} });
    const result = judged.results.find((r) => r.rule.id === 'v8.redaction.run-secrets')!;
    expect(result.verdict).toBe('fail');
    const failures = result.cases.map((c) => c.reason);
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatch(/^recorded exchange #2 GET .*authorization#2 in its body at character \d+/);
    expect(failures[1]).toMatch(/^recorded exchange #3 GET .*authorization#2 in its header x-debug-token/);
    const text = JSON.stringify(judged.report);
    expect(text).not.toContain(accepted);
    expect(text).not.toContain('a'.repeat(4096));
  });
});
