import { randomInt } from 'node:crypto';
import type { Dispatcher } from 'undici';
import pkg from '../../package.json' with { type: 'json' };
import { RULES } from '../registry.ts';
import { type Rule, type RuleMeta, type RuleResult, type Surface, type TargetInfo, TransportError } from '../rule/index.ts';
import { embeddedProfile } from '../fake/embedded-profile.ts';
import type { FaultId } from '../fake/faults/index.ts';
import type { VariantId } from '../fake/variants/index.ts';
import { startFake, type RunningFake } from '../fake/server.ts';
import { RequestBudget } from '../probe/budget.ts';
import { closeDispatcher, createDispatcher, ProbeClient } from '../probe/client.ts';
import { networkDispatcher } from '../probe/dispatcher.ts';
import { RequestPacer } from '../probe/pacer.ts';
import { headersFor, networkSecrets } from '../profile/network.ts';
import { Stopped } from '../probe/transport.ts';
import { loadProfileFile } from '../profile/load.ts';
import type { Profile } from '../profile/schema.ts';
import { ownTextOf } from '../redact/own-text.ts';
import { Redactor, SECRET_SIGHTINGS } from '../redact/redactor.ts';
import { Journal, RUN_JOURNAL, type JournalLimits, type ProbeRequest } from '../rule/index.ts';
import { mcpEndpointOf } from '../profile/mcp-endpoint.ts';

/**
 * The run's one journal: every exchange of every check, for the rules that judge the whole run
 * (response-schema reads whole 2xx JSON answers, so a body is kept up to 1 MiB, as much as a
 * `--har-out` recording keeps of one: judge-traffic of it reads the same), 16 Mi characters of
 * bodies at most (large ones go first, then the oldest; their exchanges stay and say why): a target
 * answering with huge bodies cannot grow it past that.
 */
const RUN_JOURNAL_LIMITS: JournalLimits = { maxExchanges: 20_000, maxKeptBytes: 16 * 1024 * 1024, maxBodyBytes: 1024 * 1024 };
import { RUN_MEMO } from '../rule/index.ts';
import type { BaselineEntry } from '../reports/baseline.ts';
import { buildReport, shellWord, type Report } from '../reports/model.ts';
import { needsReceiver, startRunReceiver, type RunReceiver } from './receiver.ts';
import { WEBHOOK_RECEIVER, type AnsweredDelivery } from '../webhooks/receiver.ts';
import type { CheckServices } from './check-context.ts';
import { failureLimit } from './max-failures.ts';
import { notReached, runRules } from './run.ts';
import { selectForRun } from './selection.ts';
import { reclaimBetweenPhases } from '../util/reclaim.ts';

export const HARNESS_VERSION: string = pkg.version;

/** The target did not answer at all (the receiver certification); the CLI exits 3. */
export class TargetUnreachable extends Error {
  override readonly name = 'TargetUnreachable';
}

export interface CertifyOptions {
  /**
   * The target: a profile file's path (YAML or JSON, as `--profile`), or a loaded profile. Without
   * one the embedded fake is started and certified.
   */
  profile?: Profile | string;
  surfaces?: Surface[];
  /** Rule id globs, as `--rules` (`v8.missions.*`); the same as giving strings in `rules`. */
  patterns?: string[];
  /** `--rerun`: only these rule ids (those an earlier report did not pass), and the report's path. */
  only?: { ids: readonly string[]; from: string; digest?: string };
  /** `--exclude`: globs of rules set aside; each must match a rule, and the report lists those it removed. */
  exclude?: string[];
  /** `--max-failures`: start no further rule after this many gating failures. */
  maxFailures?: number;
  seed?: number;
  /** Run only the rules that read: every rule that creates or changes state is untestable. */
  readOnly?: boolean;
  /** The probe catalogue's depth (`--depth`), over the profile's `safety.probeDepth`. */
  depth?: Profile['safety']['probeDepth'];
  /** Only for the embedded fake: faults to switch on. */
  faults?: FaultId[];
  /** Only for the embedded fake: legal alternatives it takes (see "apicert variants"). */
  variants?: VariantId[];
  /**
   * The rules to run, as `--rules`: id globs (`['v8.missions.*']`), or Rule objects (from `rules`,
   * the catalog export) to run exactly those. Each glob must select a rule.
   */
  rules?: ReadonlyArray<Rule | string>;
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
  /** A rule `onResult` told passed (or did not apply) fails over the whole run's exchanges, or one whose own check judged nothing passes over them (src/runner/run-judgement.ts). */
  onRevised?: (result: RuleResult) => void;
  /** The whole run's deadline: rules not finished by then are `inconclusive` ("run deadline"). */
  deadlineMs?: number;
  /** Stops the run early (an interrupt); its reason, a `Stopped`, is what unfinished rules report. */
  signal?: AbortSignal;
  /** Called with the run's redactor as soon as it exists, before anything is sent. */
  onRedactor?: (redactor: Redactor) => void;
  /** Said to the user as soon as known (short secrets); already redacted. */
  onWarning?: (message: string) => void;
  /** The command that started the run, without --rules and --seed: each rerun line in the report extends it. */
  invocation?: string;
  allowUntestable?: boolean;
  /** Known failures, already validated against the catalog (see reports/baseline.ts). */
  baseline?: { file: string; entries: readonly BaselineEntry[] };
  /** `--max-rps`: the run's probes leave at most this many requests per second, across every check running at once; a rule that sends bursts (rate limits) is not held to it. */
  maxRps?: number;
  /** Keep every exchange of a passing rule in the report (`--full-evidence`); by default a passing rule keeps a sample. */
  fullEvidence?: boolean;
  /** Records every exchange the run sends (`certify --har-out`), at the connection pool. */
  /** Records what the run sends (an interceptor on its dispatcher) and, when it can, the deliveries its receiver answers. */
  recorder?: { interceptor: Dispatcher.DispatcherComposeInterceptor; inbound?: (delivery: AnsweredDelivery) => void };
}

/** What `certify()` works with once the library's shorthands are resolved: a loaded profile and Rule objects. */
type ResolvedOptions = Omit<CertifyOptions, 'profile' | 'rules'> & { profile?: Profile; rules?: readonly Rule[]; profilePath?: string };

/** A misuse of the library's options: a message saying what to pass, as the CLI's usage errors do. */
export class CertifyOptionsError extends Error {
  override readonly name = 'CertifyOptionsError';
}

async function resolveOptions(options: CertifyOptions): Promise<ResolvedOptions> {
  const given = options.rules ?? [];
  const globs = given.filter((r): r is string => typeof r === 'string');
  const objects = given.filter((r): r is Rule => typeof r === 'object' && r !== null && typeof (r as Rule).id === 'string' && typeof (r as Rule).check === 'function');
  if (globs.length + objects.length !== given.length) throw new CertifyOptionsError('certify({ rules }): give rule id globs (e.g. "v8.missions.*") or Rule objects from the rules export');
  if (globs.length && objects.length) throw new CertifyOptionsError('certify({ rules }): give globs or Rule objects, not both');
  if (options.profile !== undefined && typeof options.profile !== 'string' && (typeof options.profile !== 'object' || options.profile === null)) throw new CertifyOptionsError('certify({ profile }): give a profile file path or a profile loaded with loadProfileFile / parseProfile');
  if (typeof options.profile === 'string' && options.profile.trim() === '') throw new CertifyOptionsError('certify({ profile }) is empty: give a profile file path, or leave profile out to certify the embedded reference fake');
  const profile = typeof options.profile === 'string' ? await loadProfileFile(options.profile) : options.profile;
  return {
    ...options,
    profile,
    rules: objects.length ? objects : undefined,
    patterns: globs.length ? [...(options.patterns ?? []), ...globs] : options.patterns,
    ...(typeof options.profile === 'string' ? { profilePath: options.profile } : {}),
  };
}

/** The rerun prefix when the caller did not say how it was invoked: with the profile it ran with, whenever its file is known. */
function defaultInvocation(options: ResolvedOptions, target: string): string {
  if (options.profilePath) return `npx apicert certify --profile ${shellWord(options.profilePath)}`;
  if (options.profile) return `npx apicert certify --target ${new URL(target).origin}`;
  return `npx apicert certify${options.faults?.length ? ` --faults ${options.faults.join(',')}` : ''}${options.variants?.length ? ` --variant ${options.variants.join(',')}` : ''}`;
}

export interface Certification {
  report: Report;
  results: RuleResult[];
  /** The run's redactor, for every byte printed or written after the run. */
  redactor?: Redactor;
  /** Set when the first probe failed: what happened, for the user. Every rule is then `inconclusive`. */
  firstProbeFailure?: string;
  /** Only for the embedded fake: the variants it bent for during the run (a variant never taken proved nothing). */
  variantsTaken?: VariantId[];
  /** The profile the run used (the embedded fake's, when apicert started it). */
  profile?: Profile;
}

export const DEFAULT_DEADLINE_MS = 30 * 60_000;
/** How long shutdown waits for connections, the receiver and the fake before dropping them. */
const SHUTDOWN_GRACE_MS = 1_000;

/** The run's redactor: every credential of the profile hidden, apicert's own text (`rules`' ids, quotes, the profile's field names) kept. */
export function redactorFor(profile: Profile, rules: readonly RuleMeta[] = RULES): Redactor {
  const redactor = new Redactor();
  for (const c of profile.credentials) redactor.add(c.token, `token:${c.name}`);
  for (const [label, value] of networkSecrets(profile.network, process.env)) redactor.add(value, label);
  redactor.protect(ownTextOf(rules, profile));
  return redactor;
}

/**
 * The first probe: a request without a credential to a surface the run selected (a gateway may route
 * only the surfaces it serves, and the profile's network.headers are per surface). /v8 and /v1 get a
 * read of an unknown resource. An MCP-only run POSTs `{}` to the MCP endpoint, which no server answers
 * with an event stream (it holds no JSON-RPC request: "the server MUST either return Content-Type:
 * text/event-stream ... or ... application/json" is said of input holding requests), where a GET might
 * open one.
 */
export function preflightRequest(rules: readonly Pick<Rule, 'surface'>[], profile: Pick<Profile, 'target' | 'fixtures'>): ProbeRequest {
  const surfaces = new Set(rules.map((r) => r.surface));
  const read = (path: string): ProbeRequest => ({ method: 'GET', path, credential: null, label: 'preflight' });
  if (surfaces.has('v8')) return read('/v8/missions/00000000-0000-7000-8000-000000000000');
  if (surfaces.has('v1')) return read('/v1/runs/00000000-0000-7000-8000-000000000000');
  return { method: 'POST', path: mcpEndpointOf(profile), credential: null, headers: { accept: 'application/json, text/event-stream' }, json: {}, label: 'preflight' };
}

/**
 * Any complete HTTP answer proves the target is there; else what happened, for the user and for every rule.
 * `probe` is the run's without its recorder and journal: the first probe is apicert's question whether
 * the target is up, no rule's, so neither a rule of the whole run nor judge-traffic of --har-out judges it.
 */
async function preflight(probe: ProbeClient, baseUrl: string, request: ProbeRequest): Promise<{ message: string; reason: string } | undefined> {
  try {
    await probe.send(request);
    return undefined;
  } catch (error) {
    if (!(error instanceof TransportError)) throw error;
    const reason = `not run: the first probe failed (${error.message})`;
    const answered = / \(after answering \d+\)$/.test(error.message);
    const message = answered
      ? `${baseUrl} answered the first probe but the exchange failed (${error.message}): the target is up but misbehaving`
      : `${baseUrl} did not answer the first probe (${error.message}): check the URL, the network path and that the deployment is up`;
    return { message, reason };
  }
}

/** The run's probe client: the profile's target and safety limits, one budget, one redactor, the run's stop. */
export function probeFor(profile: Profile, redactor: Redactor, budget: RequestBudget, dispatcher: Dispatcher, signal?: AbortSignal, pacer?: RequestPacer, runJournal?: Journal): ProbeClient {
  return new ProbeClient({
    ...(pacer ? { pacer } : {}),
    ...(runJournal ? { runJournal } : {}),
    baseUrl: profile.target,
    redactor,
    budget,
    timeoutMs: profile.safety.requestTimeoutMs,
    // A body may take a few idle periods to arrive; no single request may take longer than this.
    totalTimeoutMs: 3 * profile.safety.requestTimeoutMs,
    streamTimeoutMs: profile.safety.streamTimeoutMs,
    streamCloseGraceMs: profile.safety.streamCloseGraceMs,
    dispatcher,
    ...(profile.network ? { network: profile.network } : {}),
    ...(profile.network?.headers ? { headersFor: (url: URL) => headersFor(profile.network, url) } : {}),
    ...(signal ? { signal } : {}),
  });
}

function within(promise: Promise<unknown> | undefined, ms: number): Promise<void> {
  if (!promise) return Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise.then(() => undefined, () => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}

export async function certify(input: CertifyOptions = {}): Promise<Certification> {
  const startedAt = new Date();
  const options = await resolveOptions(input);
  // A filter that selects nothing is a usage error, found before a target is touched.
  const { rules, excluded } = selectForRun(options.rules ?? RULES, { surfaces: options.surfaces, patterns: options.patterns, only: options.only, exclude: options.exclude });
  // A profile's network settings (CA, client certificate, proxy) are read before anything starts: a mistake is exit 2 with nothing sent.
  const dispatcher = options.profile ? await networkDispatcher(options.profile.network) : createDispatcher();
  let fake: RunningFake | undefined;
  let profile = options.profile;
  if (!profile) {
    fake = await startFake({ faults: options.faults ?? [], variants: options.variants ?? [] });
    profile = embeddedProfile(fake);
    if (options.adjustEmbeddedProfile) profile = options.adjustEmbeddedProfile(profile);
  }
  if (options.readOnly) profile = { ...profile, safety: { ...profile.safety, allowMutations: false } };
  if (options.depth) profile = { ...profile, safety: { ...profile.safety, probeDepth: options.depth } };
  const target: TargetInfo = { baseUrl: profile.target, kind: fake ? 'embedded-fake' : options.container ? 'container' : 'remote' };
  const budget = new RequestBudget(profile.safety.requestBudget);
  const redactor = redactorFor(profile, options.rules ?? RULES);
  options.onRedactor?.(redactor);
  for (const warning of redactor.warnings) options.onWarning?.(warning);
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const stop = new AbortController();
  const deadline = setTimeout(() => stop.abort(new Stopped(`run deadline: the run's --deadline of ${Math.round(deadlineMs / 1000)} s passed first`)), deadlineMs);
  const onInterrupt = () => stop.abort(options.signal?.reason instanceof Stopped ? options.signal.reason : new Stopped('interrupted'));
  if (options.signal?.aborted) onInterrupt();
  else options.signal?.addEventListener('abort', onInterrupt, { once: true });
  const pacer = options.maxRps !== undefined ? new RequestPacer(options.maxRps) : undefined;
  const runJournal = new Journal(RUN_JOURNAL_LIMITS);
  const probe = probeFor(profile, redactor, budget, options.recorder ? dispatcher.compose(options.recorder.interceptor) : dispatcher, stop.signal, pacer, runJournal);
  const seed = options.seed ?? randomInt(0, 2 ** 31 - 1);
  const limit = options.maxFailures === undefined ? undefined : failureLimit(options.maxFailures, { strict: options.strict ?? false, expected: new Set(options.baseline?.entries.map((e) => e.rule)) });
  const onResult = (result: RuleResult) => {
    limit?.note(result);
    options.onResult?.(result);
  };
  let hooks: RunReceiver = {};
  try {
    const firstProbeFailure = await preflight(probeFor(profile, redactor, budget, dispatcher, stop.signal, pacer), profile.target, preflightRequest(rules, profile));
    let results: RuleResult[];
    if (firstProbeFailure !== undefined) {
      const reason = redactor.text(firstProbeFailure.reason);
      results = rules.map((rule) => notReached(rule, reason));
      for (const r of results) options.onResult?.(r);
    } else {
      options.onPlan?.(rules);
      if (needsReceiver(rules) || options.checkNeeds === false) hooks = await startRunReceiver(profile, fake, options.recorder?.inbound);
      const services: CheckServices = {
        redactor,
        provided: new Map<string, unknown>([[SECRET_SIGHTINGS.name, redactor.sightings], [RUN_JOURNAL.name, runJournal], [RUN_MEMO.name, new Map()], ...(hooks.receiver ? [[WEBHOOK_RECEIVER.name, hooks.receiver] as const] : [])]),
        missing: new Map(hooks.missing ? [[WEBHOOK_RECEIVER.name, hooks.missing]] : []),
      };
      results = await runRules({ target, profile, rules, seed, probe, services, checkNeeds: options.checkNeeds, readOnly: options.readOnly, onStart: options.onStart, onResult, onRevised: options.onRevised, signal: stop.signal, ...(limit ? { halt: limit.signal } : {}) });
    }
    const { origin, pathname } = new URL(profile.target);
    const reportTarget: Report['target'] = { baseUrl: pathname === '/' ? origin : `${origin}${pathname}`, kind: target.kind };
    if (fake && options.faults?.length) reportTarget.faults = [...options.faults];
    if (fake && options.variants?.length) reportTarget.variants = [...options.variants];
    if (options.container) reportTarget.image = options.container.image;
    const halted = [stop.signal, limit?.signal].find((s) => s?.aborted);
    // The whole sentence, with what to do: every report states it once, above the rules it left unjudged.
    const stopped = firstProbeFailure !== undefined ? redactor.text(firstProbeFailure.message) : halted ? (halted.reason as Error).message : undefined;
    // The rules' garbage goes before the reports are built, which need memory of their own.
    reclaimBetweenPhases();
    const report = buildReport({
      results,
      version: HARNESS_VERSION,
      target: reportTarget,
      profile,
      catalog: options.rules ?? RULES,
      startedAt,
      finishedAt: new Date(),
      seed,
      requests: budget.used,
      invocation: options.invocation ?? defaultInvocation(options, profile.target),
      passingEvidence: options.fullEvidence ? 'full' : 'sampled',
      allowUntestable: options.allowUntestable,
      baseline: options.baseline,
      strict: options.strict ?? false,
      excluded,
      selection: {
        surfaces: options.surfaces,
        rules: options.patterns,
        exclude: options.exclude,
        ...(options.only ? { rerunOf: { report: options.only.from, ...(options.only.digest ? { digest: options.only.digest } : {}) } } : {}),
      },
      ...(stopped ? { stopped } : {}),
      warnings: redactor.warnings,
    });
    const certification: Certification = { report, results, redactor, profile };
    if (firstProbeFailure !== undefined) certification.firstProbeFailure = redactor.text(firstProbeFailure.message);
    if (fake) certification.variantsTaken = fake.context.variants.taken();
    return certification;
  } finally {
    clearTimeout(deadline);
    options.signal?.removeEventListener('abort', onInterrupt);
    if (!stop.signal.aborted) stop.abort(new Stopped('the run ended'));
    await closeDispatcher(dispatcher, SHUTDOWN_GRACE_MS);
    await within(hooks.receiver?.close(), SHUTDOWN_GRACE_MS);
    await within(fake?.close(), SHUTDOWN_GRACE_MS);
  }
}
