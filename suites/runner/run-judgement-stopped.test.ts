/**
 * A rule that is not a rule of the whole run, whose own check was stopped (every request it sent
 * refused 503, so its setup failed), is judged over the run's exchanges once the run is done: a
 * failing case among another check's exchanges fails it, and cases that all held pass it, as
 * `judge-traffic` of certify's recording judges it (audit s27-mcp F2(b): mcp.jsonrpc.* inconclusive in
 * certify, pass in judge-traffic).
 *
 * mcp.transport.request-response is judged; mcp.jsonrpc.id-echoed's check sends the requests (a
 * digit-string id among them) that it judges too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { FaultSet } from '../../src/fake/faults/index.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { certify } from '../../src/runner/certify.ts';
import { modelProxy, type ModelProxy } from '../harness/model-proxy.ts';

const JUDGED = 'mcp.transport.request-response';
const OTHER = 'mcp.jsonrpc.id-echoed';

let fake: RunningFake | undefined;
let proxy: ModelProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await fake?.close();
  fake = undefined;
  proxy = undefined;
});

/** Certifies both rules one after the other; every request of JUDGED's own check is refused 503, and `broken` breaks id echo while OTHER's runs. */
async function stoppedRun(broken: boolean) {
  const running = (fake = await startFake({}));
  let refusing = false;
  proxy = await modelProxy(running.baseUrl, () => (refusing ? { answer: { status: 503, headers: { 'content-type': 'text/plain' }, body: 'unavailable' } } : undefined));
  const embedded = embeddedProfile(running);
  const told: RuleResult[] = [];
  const revised: RuleResult[] = [];
  const { results } = await certify({
    profile: { ...embedded, target: proxy.url, safety: { ...embedded.safety, concurrency: 1 } },
    patterns: [OTHER, JUDGED],
    seed: 7,
    onStart: (rule) => {
      if (rule.id === OTHER && broken) running.context.faults = new FaultSet(['mcp.jsonrpc.id-echoed/digit-string-as-number']);
      if (rule.id === JUDGED) refusing = true;
    },
    onResult: (r) => {
      told.push(r);
      running.context.faults = new FaultSet();
      refusing = false;
    },
    onRevised: (r) => revised.push(r),
  });
  const own = told.find((r) => r.rule.id === JUDGED)!;
  return { own, result: results.find((r) => r.rule.id === JUDGED)!, revised };
}

describe('the run’s judgement of a stopped rule that is not a rule of the whole run', () => {
  it('a failing case in another check’s exchanges fails it', async () => {
    const { own, result, revised } = await stoppedRun(true);
    expect(own.verdict, own.reason).toBe('inconclusive');
    expect(result.verdict, result.reason).toBe('fail');
    expect(result.reason).toMatch(/^judged over every exchange of the run \(its own check ended inconclusive: /);
    expect(result.reason).toContain(own.reason);
    expect(result.evidence[result.cases[0]!.exchange!]!.label).toMatch(/exchange of another rule's check/);
    expect(revised.map((r) => r.rule.id)).toEqual([JUDGED]);
  }, 120_000);

  it('cases that all held in another check’s exchanges pass it, saying its own check was stopped', async () => {
    const { own, result, revised } = await stoppedRun(false);
    expect(own.verdict, own.reason).toBe('inconclusive');
    expect(result.verdict, result.reason).toBe('pass');
    expect(result.reason).toMatch(/^judged over every exchange of the run \(its own check ended inconclusive: .*\): \d+ exchange\(s\) of the run judged, every case held$/);
    expect(result.reason).toContain(own.reason);
    expect(result.cases).toEqual([]);
    expect(revised.map((r) => r.rule.id)).toEqual([JUDGED]);
  }, 120_000);
});
