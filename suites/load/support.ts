/** Runs the load scenarios in vitest: a fetch transport, the fake as target, summaries built in memory. */
import { randomUUID } from 'node:crypto';
import { loadConfig, type LoadConfig } from '../../src/load/config.ts';
import { envFromProfile } from '../../src/load/profile-env.ts';
import type { LoadScript } from '../../src/load/rules.ts';
import { emptySummary, record, verdictsOf, type LoadRuleResult, type LoadSummary } from '../../src/load/summary.ts';
import type { LoadRequest, LoadResponse, StepResult, Transport } from '../../src/load/transport.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import type { FakeConfigInput } from '../../src/fake/context.ts';
import type { FaultId } from '../../src/fake/faults/index.ts';
import type { VariantId } from '../../src/fake/variants/index.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { V1_RATE_PROBE_KEY } from '../../src/fake/rate-limit.ts';

async function send(request: LoadRequest): Promise<LoadResponse> {
  const init: RequestInit = { method: request.method, headers: request.headers, signal: AbortSignal.timeout(request.timeoutMs ?? 10_000) };
  if (request.body !== undefined) init.body = request.body;
  try {
    const res = await fetch(request.url, init);
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => (headers[name] = value));
    return { status: res.status, headers, body: await res.text() };
  } catch (error) {
    return { status: 0, headers: {}, body: '', error: String(error), timedOut: (error as Error).name === 'TimeoutError' };
  }
}

/** Like k6's http.batch: every request at once, answers in order. Counts requests per `name` tag. */
export class FetchTransport implements Transport {
  readonly sent = new Map<string, number>();
  batch(requests: readonly LoadRequest[]): Promise<LoadResponse[]> {
    for (const r of requests) this.sent.set(r.name, (this.sent.get(r.name) ?? 0) + 1);
    return Promise.all(requests.map(send));
  }
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}

export interface Target {
  fake: RunningFake;
  config: LoadConfig;
  transport: FetchTransport;
}

export async function fakeTarget(faults: FaultId[] = [], fakeConfig: FakeConfigInput = {}, env: Record<string, string> = {}, variants: VariantId[] = []): Promise<Target> {
  const fake = await startFake({ faults, variants, config: fakeConfig });
  const config = loadConfig({ ...envFromProfile(embeddedProfile(fake)), ...env });
  return { fake, config, transport: new FetchTransport() };
}

export const newKey = () => `apicert-load-${randomUUID()}`;

/** The fake's /v1 rate-limit probe key allows 10 requests per window, so a burst of a few dozen crosses it. */
export const V1_PROBE_LIMIT: FakeConfigInput = { rateLimits: { v1: { credentials: { [V1_RATE_PROBE_KEY]: { requests: 10, windowSeconds: 60 } } } } };

/** Runs `iterations` steps (`concurrency` at a time) and folds them into a summary, as k6 would. */
export async function summarise(script: LoadScript, target: string, step: () => Promise<StepResult>, iterations = 1, concurrency = 1): Promise<LoadSummary> {
  const summary = emptySummary(script, target);
  for (let done = 0; done < iterations; done += concurrency) {
    const steps = await Promise.all(Array.from({ length: Math.min(concurrency, iterations - done) }, step));
    for (const s of steps) record(summary, s);
  }
  return summary;
}

export function verdictOf(summary: LoadSummary, rule: string): LoadRuleResult {
  const found = verdictsOf(summary).find((r) => r.id === rule);
  if (!found) throw new Error(`${rule} is not a rule of ${summary.script}`);
  return found;
}
