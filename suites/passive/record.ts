/**
 * Records a certify run against the fake as HAR (what `certify --har-out` writes), strips everything
 * that only apicert would put there, reads it back as any recording and judges it passively.
 */
import type { FaultId } from '../../src/fake/faults/index.ts';
import { exchangeOfEntry } from '../../src/passive/har.ts';
import { judgeRecording, type PassiveJudgement } from '../../src/passive/judge.ts';
import { HarRecorder, hidingFor } from '../../src/passive/recorder.ts';
import type { TrafficExchange } from '../../src/passive/exchange.ts';
import { certify, HARNESS_VERSION, redactorFor, type Certification } from '../../src/runner/certify.ts';

/** A recorder of another make knows nothing of apicert: no creator, comments, private fields or apicert headers. */
export function stripApicert(har: { log: { entries: unknown[]; creator?: unknown } }): { log: { entries: unknown[] } } {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip).filter((v) => !(isHeader(v) && /apicert/i.test(v.name)));
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(Object.entries(value).filter(([k]) => !k.startsWith('_') && k !== 'comment').map(([k, v]) => [k, strip(v)]));
  };
  return { log: { entries: (strip(har.log.entries) as unknown[]) } };
}

function isHeader(v: unknown): v is { name: string; value: string } {
  return typeof v === 'object' && v !== null && typeof (v as { name?: unknown }).name === 'string' && typeof (v as { value?: unknown }).value === 'string';
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
  const written = JSON.parse(JSON.stringify(recorder.document(HARNESS_VERSION, hidingFor(profile.credentials, redactorFor(profile))))) as { log: { entries: unknown[] } };
  const har = stripApicert(written);
  // The profile gives what traffic cannot show (which credential holds which scopes), as `judge-traffic --profile` does.
  const passive = await judgeRecording(exchangesOf(har), { env: {}, profile });
  return { active, passive, har };
}
