/**
 * `npm run bench:generated`: prints figures, asserts nothing. The generated contract probes against
 * the embedded fake: requests generated (the deterministic plan and random bodies from the schemas),
 * sent through apicert's probe client and judged by every oracle, per second, beside a plain undici
 * loop sending the same requests (pre-built bytes, body read and dropped) in the same run, rounds
 * alternating so a drift of the machine's speed touches both.
 */
import fc from 'fast-check';
import { request } from 'undici';
import { ENDPOINTS } from '../src/contract/endpoints.ts';
import { arbitraryOf } from '../src/contract/schema-cases.ts';
import { randomCase } from '../src/checks/generated/engine.ts';
import { expectationOf, sentOf, type Known } from '../src/checks/generated/expectation.ts';
import { judgeAnswer } from '../src/checks/generated/judgement.ts';
import { deterministicPlan, type Generated, type PlanContext } from '../src/checks/generated/requests.ts';
import { embeddedProfile } from '../src/fake/embedded-profile.ts';
import { startFake } from '../src/fake/server.ts';
import { RequestBudget } from '../src/probe/budget.ts';
import { closeDispatcher, createDispatcher } from '../src/probe/client.ts';
import type { Profile } from '../src/profile/schema.ts';
import { probeFor, redactorFor } from '../src/runner/certify.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PARALLEL = 4;
const RANDOM_PER_BODY = 8;
/** Rounds run first and not counted: module loading, JIT and the fake's first state weigh on neither figure. */
const WARMUP_ROUNDS = 1;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function planContexts(profile: Profile): PlanContext[] {
  const fixtures: Record<string, unknown> = {
    'v8.missions.succeeds': profile.fixtures.v8.missions.succeeds,
    'v8.capabilitySearch': profile.fixtures.v8.capabilitySearch,
    'v1.turn': profile.fixtures.v1.turn,
    'v1.tasks.completes': profile.fixtures.v1.tasks.completes,
  };
  const m = profile.fixtures.v8.memory;
  if (m.compartment && m.purpose) fixtures['v8.memory'] = { compartment: m.compartment, purpose: m.purpose, queryText: 'bench', classes: m.classes ?? ['note'] };
  return (['v8', 'v1'] as const).map((surface) => ({
    surface,
    credential: [...profile.credentials].filter((c) => c.surfaces.includes(surface)).sort((a, b) => b.scopes.length - a.scopes.length)[0]!,
    fixtures,
    existing: {},
    readOnly: false,
  }));
}

/** What apicert generates in one run: the deterministic plan of both surfaces and random valid bodies. */
function generate(contexts: readonly PlanContext[], seed: number): Generated[] {
  const out: Generated[] = [];
  for (const context of contexts) {
    const plan = deterministicPlan(context).requests;
    out.push(...plan);
    for (const endpoint of ENDPOINTS.filter((e) => e.surface === context.surface)) {
      for (const spec of endpoint.bodies) {
        const template = plan.find((g) => g.endpoint === endpoint && g.request.json !== undefined);
        if (!template) continue;
        for (const json of fc.sample(arbitraryOf(spec.schema, template.request.json), { seed, numRuns: RANDOM_PER_BODY })) out.push(randomCase(template, spec, json));
      }
    }
  }
  return out;
}

async function pool<T>(items: readonly T[], each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    while (next < items.length) await each(items[next++]!);
  }));
}


async function main(): Promise<void> {
  const fake = await startFake();
  const profile: Profile = { ...embeddedProfile(fake), safety: { ...embeddedProfile(fake).safety, requestBudget: 10_000_000 } };
  const contexts = planContexts(profile);
  const dispatcher = createDispatcher();
  const redactor = redactorFor(profile);
  const sample = generate(contexts, 2);
  const known: Known = { existing: [], parked: [], bases: contexts[0]!.fixtures };
  console.log(`generated probes bench on Node ${process.version}: ${sample.length} requests a round (both surfaces, ${RANDOM_PER_BODY} random bodies per endpoint body), ${PARALLEL} in flight, ${ROUNDS} rounds each after ${WARMUP_ROUNDS} not counted`);

  const apicertRates: number[] = [];
  const plainRates: number[] = [];
  let failing = 0;
  const apicertRound = async (round: number) => {
    // Generation, sending through the probe client (budget, evidence, redaction) and judging all count.
    const started = performance.now();
    const generated = generate(contexts, round + 2);
    const probe = probeFor(profile, redactor, new RequestBudget(profile.safety.requestBudget), dispatcher);
    await pool(generated, async (g) => {
      const res = await probe.send(g.request);
      const sent = sentOf(g.request);
      const judgement = judgeAnswer(sent, expectationOf(sent, known), res);
      for (const f of Object.values(judgement.findings)) if (!f.ok) { failing += 1; if (process.env.BENCH_DEBUG) console.log(f.reason.slice(0, 300)); }
    });
    apicertRates.push(generated.length / ((performance.now() - started) / 1000));
  };
  const plainRound = async (round: number) => {
    // The same requests (same seed) as ready bytes, built before the clock starts; each body read as text and dropped.
    const plain = generate(contexts, round + 2).map((g) => {
      const headers: Record<string, string> = { ...g.request.headers };
      if (g.request.credential) headers.authorization = `Bearer ${g.request.credential.token}`;
      const body = g.request.json !== undefined ? JSON.stringify(g.request.json) : g.request.rawBody;
      if (body !== undefined && !('content-type' in headers)) headers['content-type'] = 'application/json';
      return { url: new URL(g.request.path, fake.baseUrl).toString(), method: g.request.method, headers, body };
    });
    const started = performance.now();
    await pool(plain, async (p) => {
      const res = await request(p.url, { method: p.method, headers: p.headers, body: p.body, dispatcher });
      await res.body.text();
    });
    plainRates.push(plain.length / ((performance.now() - started) / 1000));
  };
  for (let round = -WARMUP_ROUNDS; round < ROUNDS; round += 1) {
    if (round === 0) {
      apicertRates.length = 0;
      plainRates.length = 0;
      failing = 0;
    }
    // Alternate which goes first, so the fake's growing state weighs on both alike.
    if (round % 2 === 0 || round < 0) {
      await apicertRound(round);
      await plainRound(round);
    } else {
      await plainRound(round);
      await apicertRound(round);
    }
  }
  const a = median(apicertRates);
  const b = median(plainRates);
  console.log(`apicert (generate + send + judge): median ${a.toFixed(0)} requests/s [${apicertRates.map((r) => r.toFixed(0)).join(', ')}]`);
  console.log(`plain undici loop (same requests): median ${b.toFixed(0)} requests/s [${plainRates.map((r) => r.toFixed(0)).join(', ')}]`);
  // Paired by round: both loops of a round ran back to back, so a drift of the machine touches both.
  const paired = apicertRates.map((r, i) => r / plainRates[i]!);
  console.log(`ratio apicert / plain: median of the rounds' ratios ${median(paired).toFixed(2)} [${paired.map((r) => r.toFixed(2)).join(', ')}]; ratio of the medians ${(a / b).toFixed(2)}${failing ? ` (note: ${failing} oracle failures against the clean fake)` : ''}`);
  await closeDispatcher(dispatcher, 1000);
  await fake.close();
}

await main();
