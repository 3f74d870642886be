/**
 * A plain read (`send`) of an answer whose headers arrive and whose body then stalls past the request
 * timeout keeps those headers in the journal, as the streaming reads do. A mission event stream that
 * emits nothing is legal ("Transitions out of `waiting` ...: not shown"; no keepalive is required),
 * and a check that reads it with `send` (another principal's read, say) gets a transport error after
 * the 200 and its headers. The journal once kept `{}` for them, so the rules on response headers
 * failed the exchange with false reasons: "x-service-contract-version is missing", "the event stream
 * answered content-type \"\"" (audit helper-151 F3, on Express).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/probe/budget.ts';
import { closeDispatcher, createDispatcher, ProbeClient } from '../../src/probe/client.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { Redactor } from '../../src/redact/redactor.ts';
import { CONTRACT_HEADER, CONTRACT_VERSION } from '../../src/contract/v8/common.ts';

const STREAM = '/v8/missions/01a22268-b474-7982-ad0b-2322daeec475/events';
const held: ServerResponse[] = [];
let server: ReturnType<typeof createServer>;
let baseUrl = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    // The headers go out at once; the body never comes (until the test ends).
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', [CONTRACT_HEADER]: CONTRACT_VERSION });
    res.flushHeaders();
    held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of held) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('a plain read whose body stalls after its headers', () => {
  it('fails as transport trouble, and the journal keeps the status and headers that arrived', async () => {
    const dispatcher = createDispatcher();
    const probe = new ProbeClient({ baseUrl, redactor: new Redactor(), budget: new RequestBudget(10), timeoutMs: 300, streamTimeoutMs: 1_000, streamCloseGraceMs: 100, dispatcher });
    try {
      await expect(probe.send({ method: 'GET', path: STREAM, credential: null, label: 'a read of a stream that stalls' })).rejects.toThrow(/after answering 200/);
      const ex = probe.exchanges[0]!;
      expect(ex.status).toBe(200);
      expect(ex.error).toBeDefined();
      expect(ex.responseHeaders['content-type']).toBe('text/event-stream');
      expect(ex.responseHeaders[CONTRACT_HEADER]).toBe(CONTRACT_VERSION);

      // What the run-wide judgements read: the headers that came are judged as they were, not as missing.
      const judged = await judgeRecording(probe.exchanges, { env: {}, patterns: ['v8.contract.version-header', 'v8.missions.events.shape'] });
      const verdicts = Object.fromEntries(judged.results.map((r) => [r.rule.id, `${r.verdict}: ${r.reason ?? ''}`]));
      expect(verdicts['v8.contract.version-header']).toMatch(/^pass/);
      expect(verdicts['v8.missions.events.shape']).not.toMatch(/^fail/);
    } finally {
      await closeDispatcher(dispatcher);
    }
  });
});
