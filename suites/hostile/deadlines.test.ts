/** A check's deadline and the run's stop abort the requests the check started; shutdown never waits on a stuck socket. */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/probe/budget.ts';
import { closeDispatcher, createDispatcher, ProbeClient } from '../../src/probe/client.ts';
import { Stopped } from '../../src/probe/transport.ts';
import { parseProfile } from '../../src/profile/load.ts';
import { Redactor } from '../../src/redact/redactor.ts';
import { defineRule } from '../../src/rule/index.ts';
import { runRule } from '../../src/runner/run.ts';
import { until } from '../support/bounded.ts';

async function silentServer(): Promise<{ url: string; open: Set<ServerResponse>; close(): void }> {
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    req.resume();
    open.add(res);
    res.on('close', () => open.delete(res));
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, open, close: () => server.close() };
}

const silentRule = defineRule({
  id: 'v8.missions.events.silent-probe',
  surface: 'v8',
  title: 'reads a stream that never speaks',
  level: 'required',
  destructive: 'read',
  spec: { document: 'v8-integration-gateway.md', section: 'test', quote: 'test' },
  async check(ctx) {
    await ctx.http.stream({ method: 'GET', path: '/v8/missions/x/events', credential: null, maxMs: 60_000 });
    ctx.expect(true, 'unreachable');
  },
});

describe('deadlines', () => {
  it('aborts a stream the check opened when the check deadline passes, and when the run stops', async () => {
    const target = await silentServer();
    const dispatcher = createDispatcher();
    const profile = parseProfile({ target: target.url }, 'test');
    const probe = new ProbeClient({ baseUrl: target.url, redactor: new Redactor(), budget: new RequestBudget(100), timeoutMs: 1_000, streamTimeoutMs: 60_000, streamCloseGraceMs: 100, dispatcher });
    const options = { target: { baseUrl: target.url, kind: 'remote' as const }, profile, seed: 1, probe };
    try {
      const timedOut = await runRule(silentRule, { ...options, checkTimeoutMs: 300 });
      expect(timedOut.verdict).toBe('inconclusive');
      expect(timedOut.reason).toMatch(/did not finish within/);
      // Bounded, with room for a busy machine: the guarantee is an end, not its exact moment.
      expect(timedOut.durationMs).toBeLessThan(5_000);

      const stop = new AbortController();
      const running = runRule(silentRule, { ...options, signal: stop.signal });
      setTimeout(() => stop.abort(new Stopped('run deadline: test')), 200);
      const stopped = await running;
      expect(stopped.verdict).toBe('inconclusive');
      expect(stopped.reason).toBe('run deadline: test');
      // The server sees both requests end: nothing is left streaming into apicert. Its 'close' events come once it has
      // processed the aborts, which a busy machine delays; the bound is 5 s, far below the stream's own 60 s.
      await until('the server to see both requests end', () => target.open.size === 0, 5_000);
      expect(target.open.size).toBe(0);
    } finally {
      const started = performance.now();
      await closeDispatcher(dispatcher, 200);
      expect(performance.now() - started).toBeLessThan(5_000);
      target.close();
    }
  });
});
