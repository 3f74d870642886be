/**
 * The bridge between a recording and the kernel: a passive rule is an existing rule (same id,
 * sentence and level) whose check reads recorded exchanges instead of sending probes. The runner,
 * verdicts, evidence and reports are the active run's own.
 */
import { curlLine } from '../probe/evidence.ts';
import type { Profile } from '../profile/schema.ts';
import { lackingReason, runJudgement, serviceKey, Untestable, type CheckContext, type EvidenceEntry, type Exchange, type Judgement as RuleJudgement, type Rule } from '../rule/index.ts';
import { ENDPOINT_SECRET_LABEL } from '../webhooks/signature.ts';
import type { TrafficExchange } from './exchange.ts';

/** What the passive run judges: the recording, and the secrets it learned from it. */
export interface Recording {
  exchanges: readonly TrafficExchange[];
  /** Signing secret of webhook deliveries recorded at a receiver (from the environment), when given. */
  webhookSecret?: string;
  /** Name of the variable the webhook secret is read from, for the reason when it is missing. */
  webhookSecretVariable: string;
  /** Credentials learned from the recording (credential header values, signing secrets in answers): see secrets.ts. */
  credentials: readonly LearnedSecret[];
  /** How many exchanges each rule judged, filled as the rules run. */
  counts: Map<string, number>;
  /** The profile given with the recording (`--profile`): the facts traffic cannot show (scopes, principals, fixtures). */
  profile?: Profile;
}

export interface LearnedSecret {
  value: string;
  label: string;
  /** Judged as a secret an answer must not carry: a credential the deployment accepted, or a secret it issued. Every learned secret is hidden. */
  judged: boolean;
  /** The first exchange that showed it; -1 for the profile's credentials. */
  seenAt: number;
  /** The exchange whose answer first carried it (a signing secret): that answer may carry it. */
  issuedBy?: number;
}

export const RECORDING = serviceKey<Recording>('passive-recording');

/** Keeps evidence readable: each rule shows at most this many exchanges besides its failing ones. */
const SHOWN = 30;
const BODY_SHOWN = 4096;
/** Headers curl sets itself; repeating them would only break the reproduction. */
const TRANSPORT_HEADERS = new Set(['host', 'connection', 'content-length', 'accept-encoding', 'transfer-encoding']);

const evidenceEntries = new WeakMap<object, EvidenceEntry>();

/** The exchange as evidence, built once per exchange (so the probe client redacts it once however many rules show it). */
function evidenceOf(ex: TrafficExchange): EvidenceEntry {
  let entry = evidenceEntries.get(ex);
  if (!entry) {
    entry = evidenceEntryOf(ex);
    evidenceEntries.set(ex, entry);
  }
  return entry;
}

function evidenceEntryOf(ex: TrafficExchange): EvidenceEntry {
  const body = ex.requestBody === undefined ? undefined : ex.requestBody.slice(0, BODY_SHOWN);
  const headers = Object.fromEntries(Object.entries(ex.requestHeaders).filter(([name]) => !TRANSPORT_HEADERS.has(name)));
  const entry: EvidenceEntry = {
    label: `recorded exchange #${ex.index}${ex.startedAt ? ` at ${ex.startedAt}` : ''}`,
    request: { method: ex.method, url: ex.url, headers: ex.requestHeaders, ...(body !== undefined ? { body } : {}) },
    durationMs: ex.durationMs ?? 0,
    curl: curlLine(ex.method, ex.url, headers, body),
    direction: 'received',
  };
  if (ex.status !== undefined) {
    entry.response = { status: ex.status, headers: ex.responseHeaders };
    if (ex.responseBody !== undefined) entry.response.body = ex.responseBody.slice(0, BODY_SHOWN);
    if (ex.responseBodyTruncated || (ex.responseBody?.length ?? 0) > BODY_SHOWN) entry.response.bodyTruncated = true;
  }
  if (ex.error !== undefined) entry.error = ex.error;
  return entry;
}

/** How the reason of a rule only an active run judges begins (judge-traffic's console counts them by it). */
export const ACTIVE_ONLY = 'needs an active probe (run "apicert certify")';

/** A rule that needs an active probe: not-applicable, and the reason says why (the rule's own `activeOnly` line when it has one). */
export function activeOnly(rule: Rule): Rule {
  const why = rule.activeOnly ?? 'the rule judges answers to requests apicert chooses to send; a recording cannot show it';
  return {
    ...rule,
    check: async (ctx) => ctx.notApplicable(`${ACTIVE_ONLY}: ${why}`),
  };
}

/** The exchange whose answer issued a secret the recording learned, as `issuedBy`. */
function issuer(recording: Recording, value: string): { issuedBy?: number } {
  const learned = recording.credentials.find((c) => c.value === value);
  return learned?.issuedBy === undefined ? {} : { issuedBy: learned.issuedBy };
}

/** How a recorded exchange is named in a case: its place in the recording, then its request. */
export function recordedName(ex: Exchange): string {
  return `recorded exchange #${ex.index} ${ex.method} ${ex.path}`;
}

/**
 * The rule's one judgement (`rule.judgement`) over the recording: the same function the active
 * check's verdict comes from. Nothing to judge is not-applicable, naming what to record; exchanges
 * it applies to whose judged part the recording lacks make it untestable, naming that part.
 */
export function recordedRule(rule: Rule, judgement: RuleJudgement): Rule {
  return {
    ...rule,
    check: async (ctx) => {
      const recording = ctx.service(RECORDING);
      if (!recording) return ctx.inconclusive('no recording was given to the passive run (a harness defect: report it)');
      const shown = new Map<number, number>();
      const show = (ex: Exchange, always: boolean): number | undefined => {
        const known = shown.get(ex.index);
        if (known !== undefined) return known;
        if (!always && shown.size >= SHOWN) return undefined;
        const at = ctx.http.record(evidenceOf(ex));
        shown.set(ex.index, at);
        return at;
      };
      // Only what the recording shows was issued or accepted, and the profile's tokens (learnSecrets adds them): not every string a client sent.
      const secrets = judgedSecrets(recording);
      const run = runJudgement(ctx, judgement, recording.exchanges, { source: 'recording', profile: recording.profile, show, name: recordedName, secrets, settled: (r) => recording.counts.set(ctx.rule.id, r.judged.size) });
      if (run.judged.size > 0) return;
      if (run.lacking.length > 0) throw new Untestable({ need: 'recording', what: lackingReason(run, recordedName) });
      ctx.notApplicable(`the recording holds no exchange this rule can judge: record ${judgement.record}`);
    },
  };
}

const judgedLists = new WeakMap<Recording, readonly LearnedSecret[]>();

/** The recording's judged secrets as one list per recording (so the echo judgements build one locator). */
function judgedSecrets(recording: Recording): readonly LearnedSecret[] {
  let list = judgedLists.get(recording);
  if (!list) {
    const byValue = new Map<string, LearnedSecret>();
    for (const c of recording.credentials) if (c.judged) byValue.set(c.value, c);
    // The endpoint's signing secret from the environment: the delivery rules verify with it; where an answer issued it, it may carry it.
    if (recording.webhookSecret !== undefined && !byValue.has(recording.webhookSecret)) byValue.set(recording.webhookSecret, { value: recording.webhookSecret, label: ENDPOINT_SECRET_LABEL, judged: true, seenAt: -1, ...issuer(recording, recording.webhookSecret) });
    for (const c of recording.profile?.credentials ?? []) if (!byValue.has(c.token)) byValue.set(c.token, { value: c.token, label: `token:${c.name}`, judged: true, seenAt: -1 });
    list = [...byValue.values()];
    judgedLists.set(recording, list);
  }
  return list;
}
