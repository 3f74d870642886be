import { randomInt } from 'node:crypto';
import type { Dispatcher } from 'undici';
import pkg from '../../package.json' with { type: 'json' };
import { RULES } from '../registry.ts';
import { type Rule, type RuleResult, type Surface, type TargetInfo, TransportError } from '../rule/index.ts';
import { embeddedProfile } from '../fake/embedded-profile.ts';
import type { FaultId } from '../fake/faults/index.ts';
import type { VariantId } from '../fake/variants/index.ts';
import { startFake, type RunningFake } from '../fake/server.ts';
import { RequestBudget } from '../probe/budget.ts';
import { createDispatcher, ProbeClient } from '../probe/client.ts';
import type { Profile } from '../profile/schema.ts';
import { Redactor, SECRET_SIGHTINGS } from '../redact/redactor.ts';
import { buildReport, type Report } from '../reports/model.ts';
import { needsReceiver, startRunReceiver, type RunReceiver } from './receiver.ts';
import { WEBHOOK_RECEIVER } from '../webhooks/receiver.ts';
import type { CheckServices } from './check-context.ts';
import { runRules, selectRules } from './run.ts';

export const HARNESS_VERSION: string = pkg.version;

/** The target did not answer at all; the CLI exits 3. */
export class TargetUnreachable extends Error {
  override readonly name = 'TargetUnreachable';
}

export interface CertifyOptions {
  /** A loaded profile; without one the embedded fake is started and certified. */
  profile?: Profile;
  surfaces?: Surface[];
  patterns?: string[];
  seed?: number;
  /** Run only the rules that read: every rule that creates or changes state is untestable. */
  readOnly?: boolean;
  /** Only for the embedded fake: faults to switch on. */
  faults?: FaultId[];
  /** Only for the embedded fake: legal alternatives it takes (see "apicert variants"). */
  variants?: VariantId[];
  rules?: readonly Rule[];
  /** Only for the embedded fake: change its profile before the run (tests take fixtures or credentials away). */
  adjustEmbeddedProfile?: (profile: Profile) => Profile;
  /** `false` runs every check without consulting its declared needs: only to test the declarations. */
  checkNeeds?: boolean;
  /** SHOULD rules gate too. */
  strict?: boolean;
  /** What the report says the target is: a profile's target is `remote` unless apicert started it from an image. */
  container?: { image: string };
  /** The rules selected, before the first one starts. */
  onPlan?: (rules: readonly Rule[]) => void;
  onStart?: (rule: Rule) => void;
  onResult?: (result: RuleResult) => void;
}

export interface Certification {
  report: Report;
  results: RuleResult[];
}

export function redactorFor(profile: Profile): Redactor {
  const redactor = new Redactor();
  for (const c of profile.credentials) redactor.add(c.token, `token:${c.name}`);
  return redactor;
}

/** Any HTTP answer proves the target is there; only a transport error means it is not. */
async function preflight(probe: ProbeClient, baseUrl: string): Promise<void> {
  try {
    await probe.fork().send({ method: 'GET', path: '/v8/missions/00000000-0000-7000-8000-000000000000', credential: null, label: 'preflight' });
  } catch (error) {
    if (error instanceof TransportError) {
      throw new TargetUnreachable(`${baseUrl} did not answer (${error.message}): check the URL, the network path and that the deployment is up`);
    }
    throw error;
  }
}

/** The run's probe client: the profile's target and safety limits, one budget, one redactor. */
export function probeFor(profile: Profile, redactor: Redactor, budget: RequestBudget, dispatcher: Dispatcher): ProbeClient {
  return new ProbeClient({
    baseUrl: profile.target,
    redactor,
    budget,
    timeoutMs: profile.safety.requestTimeoutMs,
    streamTimeoutMs: profile.safety.streamTimeoutMs,
    streamCloseGraceMs: profile.safety.streamCloseGraceMs,
    dispatcher,
  });
}

export async function certify(options: CertifyOptions = {}): Promise<Certification> {
  const startedAt = new Date();
  // A filter that selects nothing is a usage error, found before a target is touched.
  const rules = selectRules(options.rules ?? RULES, { surfaces: options.surfaces, patterns: options.patterns });
  let fake: RunningFake | undefined;
  let profile = options.profile;
  if (!profile) {
    fake = await startFake({ faults: options.faults ?? [], variants: options.variants ?? [] });
    profile = embeddedProfile(fake);
    if (options.adjustEmbeddedProfile) profile = options.adjustEmbeddedProfile(profile);
  }
  if (options.readOnly) profile = { ...profile, safety: { ...profile.safety, allowMutations: false } };
  const target: TargetInfo = { baseUrl: profile.target, kind: fake ? 'embedded-fake' : options.container ? 'container' : 'remote' };
  const dispatcher = createDispatcher();
  const budget = new RequestBudget(profile.safety.requestBudget);
  const redactor = redactorFor(profile);
  const probe = probeFor(profile, redactor, budget, dispatcher);
  const seed = options.seed ?? randomInt(0, 2 ** 31 - 1);
  let hooks: RunReceiver = {};
  try {
    await preflight(probe, profile.target);
    options.onPlan?.(rules);
    if (needsReceiver(rules) || options.checkNeeds === false) hooks = await startRunReceiver(profile, fake);
    const services: CheckServices = {
      redactor,
      provided: new Map<string, unknown>([[SECRET_SIGHTINGS.name, redactor.sightings], ...(hooks.receiver ? [[WEBHOOK_RECEIVER.name, hooks.receiver] as const] : [])]),
      missing: new Map(hooks.missing ? [[WEBHOOK_RECEIVER.name, hooks.missing]] : []),
    };
    const results = await runRules({ target, profile, rules, seed, probe, services, checkNeeds: options.checkNeeds, onStart: options.onStart, onResult: options.onResult });
    const { origin, pathname } = new URL(profile.target);
    const reportTarget: Report['target'] = { baseUrl: pathname === '/' ? origin : `${origin}${pathname}`, kind: target.kind };
    if (fake && options.faults?.length) reportTarget.faults = [...options.faults];
    if (fake && options.variants?.length) reportTarget.variants = [...options.variants];
    if (options.container) reportTarget.image = options.container.image;
    const report = buildReport({ results, version: HARNESS_VERSION, target: reportTarget, startedAt, finishedAt: new Date(), seed, requests: budget.used, strict: options.strict ?? false });
    return { report, results };
  } finally {
    await dispatcher.close();
    await hooks.receiver?.close();
    await fake?.close();
  }
}
