/**
 * Records a certify run against the fake as HAR (what `certify --har-out` writes), strips everything
 * that only apicert would put there, reads it back as any recording and judges it passively.
 */
import type { FaultId } from '../../src/fake/faults/index.ts';
import { exchangeOfEntry } from '../../src/passive/har.ts';
import { judgeRecording, type PassiveJudgement } from '../../src/passive/judge.ts';
import { HarRecorder, hidingFor } from '../../src/passive/recorder.ts';
import type { TrafficExchange } from '../../src/passive/exchange.ts';
import type { Profile } from '../../src/profile/schema.ts';
import { NEVER_REACHED } from '../support/never-reached.ts';
import { certify, HARNESS_VERSION, redactorFor, type Certification, type CertifyOptions } from '../../src/runner/certify.ts';

/**
 * A recorder of another make knows nothing of apicert: no creator, comments or private fields. The
 * requests stay as they were sent, X-Apicert-* headers too: those are the probe catalogue's requests
 * (an undocumented header, a folded one), which any recorder keeps; stripping them once made an
 * unknown-header probe look like the base request it changed.
 */
export function stripApicert(har: { log: { entries: unknown[]; creator?: unknown } }): { log: { entries: unknown[] } } {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(Object.entries(value).filter(([k]) => !k.startsWith('_') && k !== 'comment').map(([k, v]) => [k, strip(v)]));
  };
  // The deliveries the run's receiver answered reach apicert, not the deployment's clients: another make's recorder of the
  // API traffic never sees them (suites/passive/delivery-recording.test.ts judges them from apicert's own recording).
  return { log: { entries: (strip(har.log.entries.filter((e) => !isReceiverDelivery(e))) as unknown[]) } };
}

function isReceiverDelivery(entry: unknown): boolean {
  const headers = (entry as { request?: { headers?: Array<{ name: string }> } }).request?.headers ?? [];
  return headers.some((h) => h.name.toLowerCase() === 'service-webhook-signature');
}

export function exchangesOf(har: { log: { entries: unknown[] } }): TrafficExchange[] {
  return har.log.entries.flatMap((e, i) => exchangeOfEntry(e, i) ?? []);
}

export interface Recorded {
  active: Certification;
  passive: PassiveJudgement;
  har: { log: { entries: unknown[] } };
}

export async function recordAndJudge(options: { patterns: string[]; faults?: FaultId[] }): Promise<Recorded> {
  const recorder = new HarRecorder();
  const active = await certify({ patterns: options.patterns, faults: options.faults ?? [], seed: 7, recorder });
  const profile = active.profile!;
  // Through JSON, as a file would: the judge reads only what the document holds.
  const written = JSON.parse(JSON.stringify(recorder.document(HARNESS_VERSION, hidingFor(profile, redactorFor(profile))))) as { log: { entries: unknown[] } };
  const har = stripApicert(written);
  // The profile gives what traffic cannot show (which credential holds which scopes), as `judge-traffic --profile` does.
  const passive = await judgeRecording(exchangesOf(har), { env: {}, profile });
  return { active, passive, har };
}

/** Fewer runs of the model-based rules: a recording holds what they sent, however many there were. */
export function fewerModelRuns(profile: Profile): Profile {
  return { ...profile, safety: { ...profile.safety, modelRuns: 5 } };
}

/**
 * Certifies with `options`, records the run, judges the recording passively with the run's profile and
 * returns every rule of the run that has a judgement whose passive verdict differs from its active one,
 * with both reasons, and every variant of `options` the fake never took. Silence is open: each line is
 * a judgement that reads the recording otherwise than the run it judged (another rule's traffic read
 * wrongly, or a legal choice held to one answer).
 */
export async function recordedDifferences(options: CertifyOptions): Promise<string[]> {
  const recorder = new HarRecorder();
  const active = await certify({ ...options, recorder });
  const profile = active.profile!;
  const written = JSON.parse(JSON.stringify(recorder.document(HARNESS_VERSION, hidingFor(profile, redactorFor(profile))))) as { log: { entries: unknown[] } };
  const passive = await judgeRecording(exchangesOf(stripApicert(written)), { env: {}, profile });
  const judged = new Map(active.results.filter((r) => r.rule.judgement).map((r) => [r.rule.id, r]));
  // A variant the rules run never bent the fake for proved nothing: the selection must reach it.
  const untaken = (options.variants ?? []).filter((v) => !(v in NEVER_REACHED) && !active.variantsTaken?.includes(v)).map((v) => `${v}: the fake never took this variant in the run`);
  return untaken.concat(passive.results
    .filter((r) => judged.has(r.rule.id) && r.verdict !== judged.get(r.rule.id)!.verdict)
    // A session id shaped like a token is hidden behind its own marker: every rule still tells sessions apart, and only
    // the rule on the id's characters cannot see them, so it is untestable, never judged.
    .filter((r) => !(r.rule.id === 'mcp.session.id-visible-ascii' && r.verdict === 'untestable' && /replaced it with a marker/.test(r.reason ?? '')))
    // Deliveries go to apicert's receiver, not out of apicert: a certify recording never holds them.
    .filter((r) => !(r.verdict === 'not-applicable' && /record webhook deliveries at your receiver/.test(r.reason ?? '')))
    // Judged neither way: the active run lacked what provokes the rule (a cap refused its registrations), so the recording holds nothing for it.
    .filter((r) => !(r.verdict === 'not-applicable' && judged.get(r.rule.id)!.verdict === 'untestable'))
    // The active run was cut short (transport trouble such as a reset connection on a busy machine, a deadline): it
    // reached no verdict to compare with, and a recording that saw nothing wrong in what was sent says no more.
    .filter((r) => !(judged.get(r.rule.id)!.verdict === 'inconclusive' && (r.verdict === 'pass' || r.verdict === 'not-applicable')))
    // A rate limiter refused every request the rule judges: the active run is inconclusive and the recording untestable, both naming the limit.
    .filter((r) => !(judged.get(r.rule.id)!.verdict === 'inconclusive' && r.verdict === 'untestable' && [r.reason, judged.get(r.rule.id)!.reason].every((why) => /rate limit refused it \(429/.test(why ?? ''))))
    .map((r) => {
      const a = judged.get(r.rule.id)!;
      return `${r.rule.id}: active ${a.verdict}${a.reason ? ` (${a.reason.split('\n')[0]})` : ''}, recording ${r.verdict}: ${r.reason?.split('\n')[0]}`;
    }));
}
