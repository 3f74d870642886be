/**
 * The secrets a recording teaches the judge: what the deployment accepted or issued, never every
 * string a client put in a credential header (issue 35: a probe's 4,096 `a`s, refused, then an
 * error answer echoing a long run of `a`, made a clean recording fail).
 */
import { describe, expect, it } from 'vitest';
import { exchangeOfEntry } from '../../src/passive/har.ts';
import { judgeRecording, recordingHiding } from '../../src/passive/judge.ts';
import { hiddenHar } from '../../src/passive/recorder.ts';
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

  it('learns a credential sent in the query (RFC 6750 2.3 access_token, an API key): never printed, and a refused one replaced whole in the proxy\'s HAR', async () => {
    const queried = (index: number, query: string, status: number) =>
      exchangeOfEntry({ startedDateTime: '2026-01-01T00:00:00.000Z', request: { method: 'GET', url: `https://api.example/v8/missions/0000000${index}?${query}`, headers: [] }, response: { status, headers: V8, content: { mimeType: 'application/problem+json', text: problem(status, 'no') } } }, index)!;
    const refused = 'q7TokenSentInTheQuery0123';
    const key = 'apiKey+With/Odd=Chars 99';
    const exchanges = [queried(0, `view=full&access_token=${refused}&page=2`, 401), queried(1, `API_KEY=${encodeURIComponent(key)}`, 200)];
    expect(learnSecrets(exchanges).map((s) => [s.label, s.value, s.judged])).toEqual([
      ['query:access_token#1', refused, false],
      ['query:API_KEY#2', key, true],
    ]);
    const judged = await judgeRecording(exchanges, { env: {} });
    for (const ex of exchanges) expect(judged.redactor.text(ex.url)).not.toMatch(/q7Token|apiKey/);
    // The proxy's --har-out: a refused credential is a client's, replaced whole where it was sent; the rest of the target stays.
    const recorded = exchanges.map((ex) => ({ startedAt: new Date(0), method: ex.method, url: ex.url, requestHeaders: {}, status: ex.status!, responseHeaders: {} }));
    const har = JSON.stringify(hiddenHar(recorded, 'test', recordingHiding(exchanges, undefined, {})));
    expect(har).not.toMatch(/q7Token|apiKey/);
    // The label's `#` written as a fragment would cut the rest of the query when the file is read back.
    expect(har).toContain('?view=full&access_token=«redacted:query:access_token%231»&page=2');
    const reread = exchangeOfEntry((JSON.parse(har) as { log: { entries: unknown[] } }).log.entries[0]!, 0)!;
    expect(reread.path).toBe('/v8/missions/00000000?view=full&access_token=«redacted:query:access_token%231»&page=2');
    expect(new URLSearchParams(reread.path.split('?')[1]).get('access_token')).toBe('«redacted:query:access_token#1»');
  });

  it("learns the password of a URL's userinfo (RFC 3986 3.2.1): the report shows the URL without it", async () => {
    const password = 'Pw-in-the-URL-4567';
    const ex = exchangeOfEntry({ startedDateTime: '2026-01-01T00:00:00.000Z', request: { method: 'GET', url: `https://svc:${encodeURIComponent(password)}@api.example/v8/missions/00000001`, headers: [] }, response: { status: 500, headers: V8, content: { mimeType: 'application/problem+json', text: problem(500, 'no') } } }, 0)!;
    expect(learnSecrets([ex]).map((s) => [s.label, s.value])).toEqual([['url-password#1', password]]);
    const judged = await judgeRecording([ex], { env: {} });
    expect(judged.redactor.text(ex.url)).toBe('https://svc:«redacted:url-password#1»@api.example/v8/missions/00000001');
  });
});

describe('how a refused credential is hidden in the report (audit helper-104, F5)', () => {
  // The generated probes send these, and the deployment refuses them: no secret anyone holds.
  const probe = 'a'.repeat(4096);
  const shouted = 'A'.repeat(32);
  const path = `/v8/skills/${'a'.repeat(255)}0`;
  const exchanges = () => [
    exchange(0, probe, 401, problem(401, `token ${probe} refused`)),
    exchange(1, shouted, 401, problem(401, 'no')),
    exchangeOfEntry({ startedDateTime: '2026-01-01T00:00:01.000Z', request: { method: 'GET', url: `https://api.example${path}`, headers: [{ name: 'Authorization', value: `Bearer ${TOKEN}` }] }, response: { status: 404, headers: V8, content: { mimeType: 'application/problem+json', text: problem(404, 'no skill') } } }, 2)!,
  ];

  it('leaves a run of its characters inside other text readable, and still hides it where it stands as a token', async () => {
    const { redactor } = await judgeRecording(exchanges(), { env: {} });
    // A lower-case form of the 32 `A`s lies inside the path's 255 `a`s: no token, so the failing request stays readable.
    expect(redactor.text(`GET ${path} answered 404`)).toBe(`GET ${path} answered 404`);
    expect(redactor.text(`token ${probe} refused`)).not.toContain(probe);
    expect(redactor.text(`Bearer ${shouted}`)).toMatch(/^Bearer «redacted:authorization#\d+»$/);
    expect(redactor.text(`"${shouted.toLowerCase()}"`)).not.toContain(shouted.toLowerCase());
  });

  it('follows a credential in fragments once an answer accepted it', async () => {
    const accepted = 'Zq8vN3kLw5Rt1yPb6Hc0Xm4Ds7Fg2Ju9';
    const all = [...exchanges(), exchange(3, accepted, 200, '{}')];
    const { redactor } = await judgeRecording(all, { env: {} });
    expect(redactor.text(`part ${accepted.slice(0, 20)} of it`)).not.toContain(accepted.slice(0, 20));
    expect(redactor.text(`GET /x/${accepted}0`)).not.toContain(accepted);
  });
});
