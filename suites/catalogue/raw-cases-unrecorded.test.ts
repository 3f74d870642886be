/**
 * The catalogue's raw-message cases (framing and the other forms an HTTP client cannot write) go on
 * a socket of their own, past any HTTP recorder: `certify --har-out` does not hold them, nor does a
 * proxy's or a browser's recording. A certify run that failed a raw case and judge-traffic of its own
 * recording that passed read as the same verdict, silently (audits helper-151 F9 on Express,
 * helper-142 F10 on Fastify: two Host lines, which Node accepts). The verdicts stay what they are
 * (what is absent is not judged); judge-traffic now says, on each catalogue rule, which raw cases
 * only an active run judges.
 */
import { describe, expect, it } from 'vitest';
import { judgeRecording } from '../../src/passive/judge.ts';
import { HarRecorder, hidingFor } from '../../src/passive/recorder.ts';
import { certify, HARNESS_VERSION, redactorFor } from '../../src/runner/certify.ts';
import { exchangeOfEntry } from '../../src/passive/har.ts';

const RULES = ['v8.catalogue.no-5xx', 'v8.catalogue.problem-json', 'v8.catalogue.error-status'];
const SUBJECT = 'raw-message catalogue cases, judged only by an active run (certify)';

describe('judge-traffic names the raw-message catalogue cases a recording cannot hold', () => {
  it('observes them on every catalogue rule of certify\'s own recording, and leaves the verdicts as they are', async () => {
    // A fault in a raw case: chunked framing answered 500. Certify fails it; its recording holds no such case.
    const recorder = new HarRecorder();
    const active = await certify({ patterns: RULES, faults: ['v8.catalogue.no-5xx/chunked-body-500'], seed: 7, recorder });
    const activeVerdicts = Object.fromEntries(active.results.map((r) => [r.rule.id, r.verdict]));
    expect(activeVerdicts['v8.catalogue.no-5xx']).toBe('fail');
    expect(active.results.flatMap((r) => r.observations).filter((o) => o.subject === SUBJECT)).toEqual([]);

    const profile = active.profile!;
    const har = JSON.parse(JSON.stringify(recorder.document(HARNESS_VERSION, hidingFor(profile, redactorFor(profile))))) as { log: { entries: unknown[] } };
    const exchanges = har.log.entries.flatMap((e, i) => exchangeOfEntry(e, i) ?? []);
    const passive = await judgeRecording(exchanges, { env: {}, profile, patterns: RULES });
    for (const id of RULES) {
      const result = passive.results.find((r) => r.rule.id === id)!;
      // The recorded cases alone hold: the pass is theirs, and the observation says what it leaves out.
      expect(result.verdict, id).toBe('pass');
      const said = result.observations.filter((o) => o.subject === SUBJECT);
      expect(said, id).toHaveLength(1);
      expect(said[0]!.value).toMatch(/^\d+ case\(s\) of \d+ operator\(s\) at depth default: .*framing\.chunked/);
      expect(said[0]!.value).toContain('framing.duplicate-host');
      expect(said[0]!.note).toContain('no recording holds them: this verdict judges the recorded cases only');
      expect(said[0]!.note).toContain("certify --rules 'v8.catalogue.*' judges these");
    }
  }, 120_000);
});
