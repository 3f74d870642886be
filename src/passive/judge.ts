/**
 * The passive run: judges recorded exchanges with every rule that needs no probe, through the same
 * runner, verdicts and report model as `certify`; the report says `mode: passive`. Rules that need
 * a probe are not-applicable with that reason. Nothing is sent anywhere.
 */
import { randomInt } from 'node:crypto';
import { RequestBudget } from '../probe/budget.ts';
import { ProbeClient } from '../probe/client.ts';
import { createDispatcher, closeDispatcher } from '../probe/transport.ts';
import { parseProfile } from '../profile/load.ts';
import type { Profile } from '../profile/schema.ts';
import { ownTextOf } from '../redact/own-text.ts';
import { MARKER_START, Redactor, SHORT_SECRET, TARGET_ISSUED_SESSION } from '../redact/redactor.ts';
import { RULES } from '../registry.ts';
import { buildReport, type Report } from '../reports/model.ts';
import type { Rule, RuleResult, Surface } from '../rule/index.ts';
import { HARNESS_VERSION } from '../runner/certify.ts';
import { runRules, selectRules } from '../runner/run.ts';
import type { TrafficExchange } from './exchange.ts';
import { activeOnly, recordedRule, RECORDING, type LearnedSecret, type Recording } from './judging.ts';
import { hidingFor, type SecretHiding } from './recorder.ts';
import { learnSecrets, sessionIds, type SecretLabels } from './secrets.ts';

import { WEBHOOK_SECRET_VARIABLE } from '../webhooks/signature.ts';

export { WEBHOOK_SECRET_VARIABLE };

/**
 * A redactor that hides every secret the recording showed (and the webhook secret given), keeping
 * apicert's own text as every run does; without `sessions`, the session ids the target issued are
 * left to the secret shapes it hides anyway.
 */
export function redactorForRecording(exchanges: readonly TrafficExchange[], credentials: readonly LearnedSecret[], webhookSecret?: string, sessions = true): Redactor {
  const redactor = new Redactor();
  // A credential refused wherever it was sent is no secret anyone holds (a probe's 4,096 `a`s): hidden where it stands whole, as the recording's writer hides it (recordingHiding), not followed in fragments through every text.
  // A recorder's marker (`«redacted:token:<name>»`) hides nothing: registered, its fragments would hide the profile credential's name in every reason.
  for (const c of credentials) if (!c.value.startsWith(MARKER_START)) redactor.add(c.value, c.label, { whole: !c.judged });
  if (sessions) for (const id of sessionIds(exchanges)) redactor.add(id, TARGET_ISSUED_SESSION);
  if (webhookSecret) redactor.add(webhookSecret, 'env:webhook-secret');
  redactor.protect(ownTextOf(RULES));
  return redactor;
}

/**
 * How apicert writes a recording of `exchanges` (`proxy --har-out`) with their secrets hidden, as
 * `certify --har-out` writes its own: each profile credential by its own marker and the profile's
 * facts; every other credential the deployment accepted or issued, and the webhook secret, by the
 * redactor. A credential it refused is a client's, not a secret it holds (a generated probe's 4,096
 * `a`s): it is replaced whole in the credential headers it was sent in only, since the redactor
 * would hide its fragments in every body and the recording would no longer hold the requests that
 * were judged. The session ids the target issued stay unless shaped like a credential: the session
 * rules judge them.
 */
export function recordingHiding(exchanges: readonly TrafficExchange[], profile: Profile | undefined, env: NodeJS.ProcessEnv = process.env, labels?: SecretLabels): SecretHiding {
  const learned = learnSecrets(exchanges, profile?.credentials, labels);
  const held = learned.filter((c) => c.judged);
  const refused = learned.filter((c) => !c.judged && !c.value.startsWith(MARKER_START)).map(({ value, label }) => ({ value, label }));
  const hiding = hidingFor(profile, redactorForRecording(exchanges, held, env[WEBHOOK_SECRET_VARIABLE] || undefined, false));
  // A held credential is replaced whole before any refused one: a refused value may be a part of it (a key sent without its
  // prefix), and replaced first it would leave `service_sk_«redacted:…»`, whose prefix a judge of the file then learns as a credential.
  const whole = held.filter((c) => c.value.length >= SHORT_SECRET && !c.value.startsWith(MARKER_START)).map(({ value, label }) => ({ value, label }));
  // The traffic is the clients' own: what an answer echoed of its request's credential is hidden there too, refused or not.
  return { ...hiding, secrets: [...hiding.secrets, ...whole], inCredentialHeaders: refused, echoes: true };
}

/** Every rule of the catalogue: its one judgement over the recording where it has one, else not-applicable (needs a probe). */
export function passiveCatalogue(): Rule[] {
  return RULES.map((rule) => (rule.judgement ? recordedRule(rule, rule.judgement) : activeOnly(rule)));
}

/** Ids of the rules a recording can judge: those with a judgement. */
export function passiveRuleIds(): string[] {
  return RULES.filter((r) => r.judgement).map((r) => r.id);
}

export interface PassiveOptions {
  surfaces?: Surface[];
  patterns?: string[];
  /** The environment the webhook secret is read from (process.env by default). */
  env?: NodeJS.ProcessEnv;
  strict?: boolean;
  startedAt?: Date;
  /** Where the recording came from, for the report's target (an upstream URL, a HAR's first origin). */
  source?: string;
  onResult?: (result: RuleResult) => void;
  /** Called with the redactor as soon as it exists: everything printed after goes through it. */
  onRedactor?: (redactor: Redactor) => void;
  /** The profile's facts traffic cannot show (credentials' scopes and principals, fixtures); its tokens are secrets of the run. */
  profile?: Profile;
  /** How learned secrets are named (the proxy's run key, so live findings name them alike); numbered by default. */
  labels?: SecretLabels;
  /** Exchanges the record dropped before judging (the proxy's limits): the verdicts judge the rest only, and the report says so. */
  dropped?: { exchanges: number; limits: string };
}

export interface PassiveJudgement {
  report: Report;
  results: RuleResult[];
  redactor: Redactor;
}

function sourceOf(exchanges: readonly TrafficExchange[]): string {
  for (const ex of exchanges) {
    try {
      return new URL(ex.url).origin;
    } catch {
      continue;
    }
  }
  return 'http://recording.invalid';
}

export async function judgeRecording(exchanges: readonly TrafficExchange[], options: PassiveOptions = {}): Promise<PassiveJudgement> {
  const startedAt = options.startedAt ?? new Date();
  const rules = selectRules(passiveCatalogue(), { surfaces: options.surfaces, patterns: options.patterns });
  const env = options.env ?? process.env;
  const webhookSecret = env[WEBHOOK_SECRET_VARIABLE] || undefined;
  const credentials = learnSecrets(exchanges, options.profile?.credentials, options.labels);
  const redactor = redactorForRecording(exchanges, credentials, webhookSecret);
  options.onRedactor?.(redactor);
  const source = options.source ?? sourceOf(exchanges);
  for (const c of options.profile?.credentials ?? []) redactor.add(c.token, `token:${c.name}`);
  const recording: Recording = { exchanges, credentials, webhookSecretVariable: WEBHOOK_SECRET_VARIABLE, counts: new Map(), ...(webhookSecret ? { webhookSecret } : {}), ...(options.profile ? { profile: options.profile } : {}) };
  const profile = options.profile ?? parseProfile({ target: source, credentials: [] }, 'the recording');
  // The probe client sends nothing here: it only keeps each rule's evidence, redacted like any run's.
  const dispatcher = createDispatcher();
  const probe = new ProbeClient({ baseUrl: source, redactor, budget: new RequestBudget(0), timeoutMs: 1_000, streamTimeoutMs: 1_000, streamCloseGraceMs: 100, dispatcher });
  const seed = randomInt(0, 2 ** 31 - 1);
  try {
    const results = await runRules({
      target: { baseUrl: source, kind: 'remote' },
      profile,
      rules,
      seed,
      probe,
      checkNeeds: false,
      services: { redactor, provided: new Map([[RECORDING.name, recording]]) },
      onResult: options.onResult,
    });
    const report = buildReport({
      results,
      version: HARNESS_VERSION,
      target: { baseUrl: redactor.text(source), kind: 'remote' },
      catalog: RULES,
      startedAt,
      finishedAt: new Date(),
      seed,
      requests: exchanges.length,
      strict: options.strict ?? false,
      passive: { judged: recording.counts },
      ...(options.dropped && options.dropped.exchanges > 0 ? { dropped: options.dropped } : {}),
    });
    return { report, results, redactor };
  } finally {
    await closeDispatcher(dispatcher);
  }
}
