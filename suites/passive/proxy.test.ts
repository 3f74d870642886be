/**
 * `apicert proxy`: transparent (the fake's scenarios give the same verdicts through it), streams
 * live, bounded in memory, and what it records of a client that is not apicert is judged.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { judgeRecording, passiveRuleIds, recordingHiding } from '../../src/passive/judge.ts';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exchangeOfEntry, harEntryOf, readHar } from '../../src/passive/har.ts';
import { profileOfFacts } from '../../src/passive/profile-facts.ts';
import { hiddenHar, writeHar } from '../../src/passive/recorder.ts';
import { startProxy, type RunningProxy } from '../../src/passive/proxy.ts';
import { certify } from '../../src/runner/certify.ts';
import type { Profile } from '../../src/profile/schema.ts';

const RECEIVER_SIDE = ['v1.webhooks.delivery.body', 'v1.webhooks.delivery.id-header', 'v1.webhooks.delivery.signature-format', 'v1.webhooks.delivery.signature-valid', 'v1.webhooks.delivery.timestamp', 'v1.webhooks.delivery.sequence-order'];

describe('apicert proxy in front of the fake', () => {
  let fake: RunningFake;
  let proxy: RunningProxy;

  beforeAll(async () => {
    fake = await startFake();
    proxy = await startProxy({ upstream: fake.baseUrl, bodyLimit: 256 * 1024, maxExchanges: 10_000 });
  });
  afterAll(async () => {
    await proxy.close();
    await fake.close();
  });

  it('passes the fake\'s scenarios through unchanged: certify through it gives the verdicts of a direct run, and the proxy judges the same', async () => {
    // The catalogue rules too: their raw-socket framing cases (no Host, two Host lines, absolute-form) reach the
    // proxy's own HTTP parser, which answers what RFC 9112 makes it answer as the fake does.
    const ids = passiveRuleIds();
    const profile = { ...embeddedProfile(fake), target: proxy.url };
    const through = await certify({ profile, patterns: ids, seed: 7 });
    const direct = await certify({ patterns: ids, seed: 7 });
    const directVerdicts = new Map(direct.results.map((r) => [r.rule.id, r.verdict]));
    // As `proxy --profile` does: the facts traffic cannot show (scopes, principals, fixtures).
    const passive = await judgeRecording(proxy.exchanges(), { env: {}, profile });
    const passiveVerdicts = new Map(passive.results.map((r) => [r.rule.id, r.verdict]));
    let compared = 0;
    for (const r of through.results) {
      // The receiver's URL is the fake's own concern: through a proxy the run is remote and may lack one.
      if (r.verdict === 'untestable' || RECEIVER_SIDE.includes(r.rule.id)) continue;
      expect(`${r.rule.id}: ${r.verdict}`, r.reason).toBe(`${r.rule.id}: ${directVerdicts.get(r.rule.id)}`);
      // The proxy forwards with the upstream's Host, so the upstream never sees the foreign Host this rule sends: the record rightly holds none.
      if (r.rule.id === 'mcp.transport.host') expect(passiveVerdicts.get(r.rule.id)).toBe('not-applicable');
      else expect(`${r.rule.id}: ${passiveVerdicts.get(r.rule.id)}`).toBe(`${r.rule.id}: ${r.verdict}`);
      compared += 1;
    }
    expect(compared).toBeGreaterThan(30);
    expect(passive.report.summary.gate).toBe('pass');

    // Written as `proxy --har-out` writes it (credentials hidden, the profile's facts in) and judged from the file with no profile: the same verdicts.
    const file = join(mkdtempSync(join(tmpdir(), 'apicert-proxy-har-')), 'traffic.har');
    await writeHar(file, hiddenHar(proxy.recorded(), 'test', recordingHiding(proxy.exchanges(), profile, {})));
    const read = await readHar(file);
    const facts = profileOfFacts(read.facts, file);
    expect(facts).toBeDefined();
    const fromHar = await judgeRecording(read.exchanges, { env: {}, profile: facts! });
    expect(fromHar.results.map((r) => `${r.rule.id}: ${r.verdict}`)).toEqual(passive.results.map((r) => `${r.rule.id}: ${r.verdict}`));
    for (const c of profile.credentials) expect(readFileSync(file, 'utf8').includes(c.token), c.name).toBe(false);
  }, 120_000);
});

describe('a client that is not apicert, recorded by the proxy', () => {
  it('judges the MCP SDK client and plain fetch calls, and keeps their secrets out of the report', async () => {
    await behindProxy(1_000, async (fake, proxy, profile) => {
      const mcpToken = profile.credentials.find((c) => c.surfaces.includes('mcp') && !c.expired)!.token;
      const v8Token = profile.credentials.find((c) => c.surfaces.includes('v8') && !c.expired && c.scopes.includes('missions:write'))!.token;
      const transport = new StreamableHTTPClientTransport(new URL('/mcp', proxy.url), { requestInit: { headers: { authorization: `Bearer ${mcpToken}` } } });
      const client = new Client({ name: 'not-apicert', version: '1.0.0' });
      await client.connect(transport);
      await client.listTools();
      await client.callTool({ name: 'echo', arguments: { text: 'through the proxy' } });
      const session = transport.sessionId!;
      await transport.terminateSession();
      await client.close();
      const unknown = await fetch(new URL('/v8/missions/00000000-0000-7000-8000-000000000000', proxy.url), { headers: { authorization: `Bearer ${v8Token}` } });
      expect(unknown.status).toBe(404);
      await unknown.body?.cancel();

      // With the profile's facts given, as `proxy --profile` does (without them the rules needing scopes are untestable).
      const judged = await judgeRecording(proxy.exchanges(), { env: {}, profile });
      const verdict = (id: string) => judged.results.find((r) => r.rule.id === id)!.verdict;
      // The SDK initializes with its newest revision, not 2025-03-26: mcp.lifecycle.initialize-result does not apply to it.
      for (const id of ['mcp.jsonrpc.result-xor-error', 'mcp.jsonrpc.id-echoed', 'mcp.session.id-visible-ascii', 'v8.errors.problem-shape', 'v8.contract.version-header']) expect(`${id}: ${verdict(id)}`).toBe(`${id}: pass`);
      expect(judged.report.summary.gate).toBe('pass');
      expect(judged.report.rules.find((r) => r.id === 'mcp.jsonrpc.id-echoed')!.exchanges).toBeGreaterThan(1);
      const text = JSON.stringify(judged.report);
      for (const secret of [mcpToken, v8Token, session]) expect(text.includes(secret)).toBe(false);
    });
  }, 60_000);
});

/** The fake behind a proxy for one test: `use` gets both and the fake's profile, and both stop after it, whatever it threw. */
async function behindProxy(maxExchanges: number, use: (fake: RunningFake, proxy: RunningProxy, profile: Profile) => Promise<void>): Promise<void> {
  const fake = await startFake();
  const proxy = await startProxy({ upstream: fake.baseUrl, bodyLimit: 64 * 1024, maxExchanges });
  try {
    await use(fake, proxy, embeddedProfile(fake));
  } finally {
    await proxy.close();
    await fake.close();
  }
}

/** An upstream under the test's control: each request gets an answer the test writes. */
async function upstream(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('a recording is a window of the traffic', () => {
  it('a mission made before the recording began, read through the proxy, is no failure of the generated rules', async () => {
    await behindProxy(100, async (fake, proxy, profile) => {
      const token = profile.credentials.find((c) => c.name === 'full')!.token;
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      // Made straight at the fake, before any traffic passed the proxy: the recording never shows this id handed out.
      const made = await fetch(new URL('/v8/missions', fake.baseUrl), { method: 'POST', headers: { ...headers, 'idempotency-key': 'apicert-window-00000001' }, body: JSON.stringify({ goalSpec: { task: 'made before the recording' }, resourceBudget: { maximumSteps: 5, maximumToolCalls: 5, maximumElapsedMs: 60000, maximumParallelism: 1 } }) });
      expect(made.status).toBe(202);
      const { runId } = (await made.json()) as { runId: string };
      const read = await fetch(new URL(`/v8/missions/${runId}`, proxy.url), { headers });
      expect(read.status).toBe(200);
      await read.arrayBuffer();
      const judged = await judgeRecording(proxy.exchanges(), { env: {}, profile, patterns: ['v8.contract.generated.*'] });
      for (const r of judged.results) expect(`${r.rule.id}: ${r.verdict}`, r.reason).not.toBe(`${r.rule.id}: fail`);
    });
  });
});

describe('the proxy forwards without holding anything back', () => {
  it('passes each event of a stream on before the upstream has ended it', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const up = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('id: 1\nevent: first\ndata: {"n":1}\n\n');
      // The second event is written only once the client has seen the first through the proxy.
      void released.then(() => res.end('id: 2\nevent: last\ndata: {"n":2}\n\n'));
    });
    const proxy = await startProxy({ upstream: up.url, bodyLimit: 1024, maxExchanges: 10 });
    try {
      const res = await fetch(new URL('/stream', proxy.url));
      const reader = res.body!.getReader();
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toContain('event: first');
      release();
      let rest = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        rest += new TextDecoder().decode(value);
      }
      expect(rest).toContain('event: last');
    } finally {
      await proxy.close();
      up.server.close();
    }
  });

  it('keeps only a prefix of each body and the newest exchanges, while the traffic passes whole', async () => {
    const big = Buffer.alloc(512 * 1024, 'x');
    const up = await upstream((req, res) => {
      // Answered once the request is read, as an ordinary server does: an answer that ends while the
      // client is still sending makes the connection close under the client's feet (a reset, by timing).
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(big);
      });
    });
    const proxy = await startProxy({ upstream: up.url, bodyLimit: 1024, maxExchanges: 20 });
    try {
      const res = await fetch(new URL('/big', proxy.url), { method: 'POST', body: big });
      const got = Buffer.from(await res.arrayBuffer());
      expect(createHash('sha256').update(got).digest('hex')).toBe(createHash('sha256').update(big).digest('hex'));
      for (let i = 0; i < 60; i += 1) {
        const small = await fetch(new URL(`/n/${i}`, proxy.url));
        await small.arrayBuffer();
      }
      const kept = proxy.recorded();
      expect(kept).toHaveLength(20);
      expect(proxy.dropped()).toBe(41);
      expect(kept.every((r) => (r.responseBody?.length ?? 0) <= 1024)).toBe(true);
      expect(new URL(kept[19]!.url).pathname).toBe('/n/59');
    } finally {
      await proxy.close();
    }
    // A byte budget below one big exchange keeps only the newest exchange's bodies.
    const tight = await startProxy({ upstream: up.url, bodyLimit: 4096, maxExchanges: 100, maxKeptBytes: 6000 });
    try {
      for (let i = 0; i < 5; i += 1) await (await fetch(new URL(`/big/${i}`, tight.url), { method: 'POST', body: big })).arrayBuffer();
      const kept = tight.recorded();
      expect(kept.length).toBeLessThan(3);
      expect(new URL(kept[kept.length - 1]!.url).pathname).toBe('/big/4');
    } finally {
      await tight.close();
      up.server.close();
    }
  }, 30_000);
});

describe('the proxy forwards to its upstream only', () => {
  /** One raw request line through the proxy (fetch would normalise the target), and the answer's status line. */
  async function rawStatus(proxyUrl: string, target: string, hosts?: string[]): Promise<string> {
    const { port } = new URL(proxyUrl);
    const socket = connect(Number(port), '127.0.0.1');
    const host = (hosts ?? [`127.0.0.1:${port}`]).map((h) => `Host: ${h}\r\n`).join('');
    // Written, not ended: a client that half-closes is one that went away, and its answer is dropped. Connection: close ends the read.
    socket.write(`GET ${target} HTTP/1.1\r\n${host}Connection: close\r\n\r\n`);
    let text = '';
    for await (const chunk of socket) text += String(chunk);
    return text.split('\r\n')[0]!;
  }

  it('records a target as it was sent: a valid create sent to /v8/./missions and answered 404 is no failure of a create', async () => {
    await behindProxy(100, async (fake, proxy, profile) => {
      const token = profile.credentials.find((c) => c.name === 'full')!.token;
      const body = JSON.stringify({ goalSpec: { task: 'apicert scenario succeeds: summarise three short documents' }, resourceBudget: { maximumSteps: 50, maximumToolCalls: 20, maximumElapsedMs: 60000, maximumParallelism: 2 } });
      const { port } = new URL(proxy.url);
      const socket = connect(Number(port), '127.0.0.1');
      // A raw request line: fetch and undici's URL would remove the dot segment before sending.
      socket.write(`POST /v8/./missions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nIdempotency-Key: apicert-dot-segment-0001\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      let text = '';
      for await (const chunk of socket) text += String(chunk);
      // The fake routes the target as written (RFC 3986 leaves dot segments to reference resolution): either answer is legal.
      expect(text.split('\r\n')[0]).toBe('HTTP/1.1 404 Not Found');
      const recorded = proxy.exchanges();
      expect(recorded.map((ex) => ex.path)).toEqual(['/v8/./missions']);
      // Read back from the HAR the proxy writes, the target is still the one sent.
      expect(exchangeOfEntry(harEntryOf(proxy.recorded()[0]!), 0)?.path).toBe('/v8/./missions');
      const judged = await judgeRecording(recorded, { env: {}, profile, patterns: ['v8.missions.create.accepted', 'v8.contract.generated.accepts-valid', 'v8.auth.scope-matrix'] });
      for (const r of judged.results) expect(`${r.rule.id}: ${r.verdict}`, r.reason).not.toBe(`${r.rule.id}: fail`);
    });
  });

  it('sends a target that begins "//" or "/\\" to the upstream as its path, and an absolute URI naming the proxy; refuses another host with 421, one that is not a path or a request without one Host with 400, and goes on', async () => {
    const seen: string[] = [];
    const up = await upstream((req, res) => {
      seen.push(req.url ?? '');
      res.end('upstream');
    });
    let elsewhere = 0;
    const other = await upstream((_req, res) => {
      elsewhere += 1;
      res.end('elsewhere');
    });
    const otherHost = new URL(other.url).host;
    const proxy = await startProxy({ upstream: up.url, bodyLimit: 1024, maxExchanges: 10 });
    try {
      expect(await rawStatus(proxy.url, `//${otherHost}/x`)).toBe('HTTP/1.1 200 OK');
      expect(await rawStatus(proxy.url, `/\\${otherHost}/y`)).toBe('HTTP/1.1 200 OK');
      expect(seen).toEqual([`//${otherHost}/x`, `/\\${otherHost}/y`]);
      // Absolute-form naming another host is misdirected (RFC 9110 15.5.20); "http://[" is one no URL parser reads.
      expect(await rawStatus(proxy.url, `${other.url}/z`)).toBe('HTTP/1.1 421 Misdirected Request');
      expect(await rawStatus(proxy.url, 'http://[')).toBe('HTTP/1.1 400 Bad Request');
      expect(elsewhere).toBe(0);
      // Absolute-form naming the proxy is its path (RFC 9112 3.2.2: a server MUST accept that form).
      expect(await rawStatus(proxy.url, `${proxy.url}/absolute?q=1`)).toBe('HTTP/1.1 200 OK');
      expect(seen.at(-1)).toBe('/absolute?q=1');
      // RFC 9112 3.2: an HTTP/1.1 request without a Host, or with two, is answered 400, never forwarded.
      expect(await rawStatus(proxy.url, '/no-host', [])).toBe('HTTP/1.1 400 Bad Request');
      expect(await rawStatus(proxy.url, '/two-hosts', [new URL(proxy.url).host, new URL(proxy.url).host])).toBe('HTTP/1.1 400 Bad Request');
      expect(await rawStatus(proxy.url, '/after')).toBe('HTTP/1.1 200 OK');
      expect(seen.at(-1)).toBe('/after');
      expect(seen).not.toContain('/no-host');
      expect(proxy.recorded().map((r) => new URL(r.url).host)).toEqual(Array(4).fill(new URL(up.url).host));
    } finally {
      await proxy.close();
      up.server.close();
      other.server.close();
    }
  });
});
