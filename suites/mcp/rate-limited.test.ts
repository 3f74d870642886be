/**
 * A 429 on /mcp is the gateway's rate limit, not an MCP failure. The gateway description covers /v8
 * and /mcp: "A per-principal rate limit exists (`429`). Its numeric values: not shown." Every /mcp
 * rule reads a 429 as /v8's rules do: a lack naming the limit, never a case; an active setup waits
 * out one 429 and, refused again, says the limiter stopped it.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import { certify } from '../../src/runner/certify.ts';
import { modelProxy, type ModelProxy } from '../harness/model-proxy.ts';
import { journal, MCP_BASE, operating, post, TOKEN, verdicts, type Part } from './mcp-recording.ts';

let running: Array<RunningFake | ModelProxy> = [];
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()));
  running = [];
});

const LIMIT = /per-principal rate limit refused it \(429/;

const limited = (): Part => ({
  method: 'POST',
  status: 429,
  responseHeaders: { 'content-type': 'application/problem+json', 'retry-after': '0' },
  responseBody: JSON.stringify({ type: 'https://errors.example/rate-limited', title: 'rate limited', status: 429, detail: 'slow down', requestId: randomUUID() }),
});

const initializeRequest = (id: string): Part => post({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'client', version: '1' } } }, undefined);

describe('a 429 on /mcp is no verdict of an MCP rule', () => {
  it('leaves every rule that needs an answer inconclusive, naming the limit, when every /mcp request is answered 429', async () => {
    const fake = await startFake();
    const proxy = await modelProxy(fake.baseUrl, (req) => (req.path.startsWith('/mcp') ? { answer: { status: 429, headers: { 'retry-after': '0' }, json: { title: 'rate limited', status: 429 } } } : undefined));
    running.push(proxy, fake);
    const { results } = await certify({ profile: { ...embeddedProfile(fake), target: proxy.url }, patterns: ['mcp.*'], seed: 7 });
    expect(results.length).toBeGreaterThan(30);
    expect(results.filter((r) => r.verdict === 'fail').map((r) => `${r.rule.id}: ${r.reason ?? ''}`)).toEqual([]);
    // Which secrets an answer carries is judged on any answer, the limiter's too: the one rule a 429 can pass.
    for (const r of results.filter((r) => r.rule.id !== 'mcp.redaction.run-secrets')) {
      expect([r.rule.id, ['inconclusive', 'untestable'].includes(r.verdict)]).toEqual([r.rule.id, true]);
      expect([r.rule.id, r.reason]).toEqual([r.rule.id, expect.stringMatching(LIMIT)]);
    }
    expect(results.find((r) => r.rule.id === 'mcp.lifecycle.requests-before-initialized')?.reason).toMatch(/^setup: initialize was answered 429 twice, the second time after the wait it asked for/);
    // Each refused request was sent again once, after the wait its 429 asked for.
    expect(proxy.answered.get(429)).toBeGreaterThanOrEqual(2 * results.length - 2);
  }, 60_000);

  it('judges the initializations the limiter admitted in a recording, and lacks the one it refused', async () => {
    const parts: Part[] = [{ ...initializeRequest('refused'), ...limited() }, ...operating('7f0c3a52-3b8e-4d0e-9c55-2f1d6e4b8a01')];
    const judged = await verdicts(parts, ['mcp.lifecycle.initialize-result', 'mcp.lifecycle.version-echo', 'mcp.session.id-visible-ascii', 'mcp.transport.accepted-202']);
    expect(Object.fromEntries(Object.entries(judged).map(([id, v]) => [id, v.verdict]))).toEqual({
      'mcp.lifecycle.initialize-result': 'pass',
      'mcp.lifecycle.version-echo': 'pass',
      'mcp.session.id-visible-ascii': 'pass',
      'mcp.transport.accepted-202': 'pass',
    });
  });

  it('leaves a recording whose only initialize was refused 429 untestable, naming the limit', async () => {
    const profile = parseProfile({ target: MCP_BASE, credentials: [{ name: 'mcp', token: TOKEN, surfaces: ['mcp'] }] }, 'test profile');
    const { results } = await judgeRecording(journal([{ ...initializeRequest('refused'), ...limited() }]), { surfaces: ['mcp'], patterns: ['mcp.lifecycle.initialize-result', 'mcp.lifecycle.version-unknown', 'mcp.session.id-unique'], profile, env: {} });
    expect(results.map((r) => [r.rule.id, r.verdict])).toEqual([
      ['mcp.lifecycle.initialize-result', 'untestable'],
      ['mcp.lifecycle.version-unknown', 'untestable'],
      ['mcp.session.id-unique', 'untestable'],
    ]);
    for (const r of results) expect(r.reason).toMatch(LIMIT);
  });
});
