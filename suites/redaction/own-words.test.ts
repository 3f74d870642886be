/**
 * A secret that is a common word (`pass`, `error`, `required`, `v8`) never rewrites apicert's own
 * text: verdicts, levels, the gate line, field names, fixed console sentences and the markers
 * themselves stay as written in every report format and on the console, and nothing crashes. The
 * target's text (evidence) still loses the word wherever it stands whole. Audit helper-69 #2.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { consoleText, redactOutputWith, safeText } from '../../src/cli/output.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake } from '../../src/fake/server.ts';
import { gateWords } from '../../src/reports/model.ts';
import { writeRunReports } from '../../src/reports/run-folder.ts';
import { REPORT_FORMATS } from '../../src/reports/write.ts';
import { Redactor } from '../../src/redact/redactor.ts';
import { certify } from '../../src/runner/certify.ts';
import { VERDICTS } from '../../src/rule/index.ts';

/** Words apicert itself writes: verdicts, levels, gate words, parts of markers and of fixed sentences. */
const OWN_WORDS = ['pass', 'fail', 'error', 'required', 'should', 'v8', 'gate', 'inconclusive', 'untestable', 'not-applicable', 'redacted', 'token', 'full', 'the', 'a', 'rules', 'internal', 'Bearer', 'PASS', 'FAIL'];
const RANDOM = 'k3J9xQpLm2ZtV7wR0aYb4Nc8';

function wordRedactor(): Redactor {
  const r = new Redactor();
  for (const w of OWN_WORDS) r.add(w, `token:w-${w}`);
  r.add(RANDOM, 'token:random');
  return r;
}

/** Whole-token occurrences of `word` in `text` (as the redactor's whole-token rule reads them). */
function wholeTokens(text: string, word: string): number {
  return text.split(new RegExp(`(?<![A-Za-z0-9_-])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9_-])`)).length - 1;
}

describe('word secrets and apicert own text: the redactor', () => {
  it('reads a finished output as own text: verdict words, gate line and fixed sentences stay; a secret that is no word still goes', () => {
    const r = wordRedactor();
    const lines = [
      'pass         v8.missions.get.ok',
      'fail         v8.missions.get.unknown-404: answered 200, expected 404',
      'http://127.0.0.1:1 (remote): gate PASS - judged 3 of 3 selected rules (pass or fail); required 3 pass, 0 fail, 0 untestable, 0 inconclusive, 0 n/a',
      'apicert: internal error, please report it: boom',
      'apicert: warning: the secret token:full is only 4 characters long: it is redacted only where it stands as a whole token',
      '{"verdict":"pass","level":"required","summary":{"required":{"pass":1,"fail":0,"not-applicable":0}}}',
    ];
    for (const line of lines) expect(r.outputText(line)).toBe(line);
    expect(r.outputText(`pass: the target answered ${RANDOM}`)).toBe('pass: the target answered «redacted:token:random»');
  });

  it("reads the target's text whole: a word secret standing whole in a body is hidden, inside a longer word it stays", () => {
    const r = wordRedactor();
    expect(r.text('{"password":"pass","mode":"passive"}')).toBe('{"password":"«redacted:token:w-pass»","mode":"passive"}');
    expect(wholeTokens(r.text('you sent Bearer error'), 'error')).toBe(0);
  });

  it('never rewrites a marker it wrote, whichever words the secrets are', () => {
    const r = wordRedactor();
    const once = r.text('{"echo":"pass"}');
    expect(once).toBe('{"echo":"«redacted:token:w-pass»"}');
    expect(r.text(once)).toBe(once);
    expect(r.outputText(once)).toBe(once);
    expect(r.text('Authorization: Bearer «redacted» and «redacted:token:w-full»')).toBe('Authorization: «redacted:token:w-Bearer» «redacted» and «redacted:token:w-full»');
  });

  it('a look-alike marker from the target does not shelter a secret', () => {
    const r = wordRedactor();
    const read = r.text('«redacted:pass»');
    expect(read).toContain('«redacted:token:w-pass»');
    expect(wholeTokens(read, 'pass')).toBe(0);
    expect(r.outputText(`«redacted:${RANDOM}»`)).toBe('«redacted:«redacted:token:random»»');
  });

  it('every line the console prints is read as own text', () => {
    const r = wordRedactor();
    redactOutputWith(r);
    const line = 'fail         v8.missions.get.ok: the gate is required';
    expect(consoleText(line)).toBe(line);
    expect(safeText('internal error, please report it')).toBe('internal error, please report it');
    expect(consoleText(`leaked ${RANDOM}`)).toBe('leaked «redacted:token:random»');
  });
});

describe('word secrets and apicert own text: the reports', () => {
  it('every format keeps verdicts, counts, gate and field names, does not crash, and still hides the word in evidence', async () => {
    const fake = await startFake({});
    try {
      const { report, redactor } = await certify({ profile: embeddedProfile(fake), seed: 7, patterns: ['v8.missions.get.*'] });
      if (!redactor) throw new Error('certify gives the run its redactor');
      for (const w of OWN_WORDS) redactor.add(w, `token:w-${w}`);
      // A word the target wrote in an answer's body, taken as one more secret: the evidence must lose it.
      const bodies = report.rules.flatMap((r) => r.evidence.map((e) => e.response?.body ?? ''));
      const echoed = bodies.join('\n').match(/"status"\s*:\s*"([a-z]+)"/)?.[1];
      expect(echoed, 'a mission body with a status word').toBeDefined();
      redactor.add(echoed!, 'token:echoed');

      const root = mkdtempSync(join(tmpdir(), 'apicert-own-words-'));
      const written = await writeRunReports(report, root, REPORT_FORMATS, {}, redactor);
      const file = (name: string) => readFileSync(join(written.dir, name), 'utf8');

      const json = JSON.parse(file('report.json')) as typeof report;
      expect(json.rules.map((r) => [r.id, r.verdict, r.level])).toEqual(report.rules.map((r) => [r.id, r.verdict, r.level]));
      expect(json.summary.required).toEqual(report.summary.required);
      expect(Object.keys(json.summary.required).sort()).toEqual([...VERDICTS].sort());
      expect(json.summary.gate).toBe(report.summary.gate);
      expect(Object.keys(json)).toEqual(Object.keys(report));
      expect(Object.keys(json.rules[0]!)).toEqual(Object.keys(report.rules[0]!));

      const req = report.summary.required;
      expect(file('summary.md')).toContain(`- Required rules: ${req.pass} pass, ${req.fail} fail, ${req.untestable} untestable`);
      expect(file('summary.md')).toContain(gateWords(report).words);
      const html = file('report.html');
      for (const r of report.rules) expect(html).toContain(`data-verdict="${r.verdict}"`);
      expect(file('junit.xml').match(/<testcase /g)?.length).toBe(report.rules.length);
      for (const name of ['report.json', 'summary.md', 'report.html', 'junit.xml']) expect(file(name), name).not.toMatch(/«redacted:[^»]*«/);

      // The target's text: the status word it wrote is hidden wherever it stood whole in a body.
      const keptBodies = json.rules.flatMap((r) => r.evidence.map((e) => e.response?.body ?? '')).join('\n');
      expect(keptBodies).toContain('«redacted:token:echoed»');
      expect(wholeTokens(keptBodies, echoed!)).toBe(0);
    } finally {
      await fake.close();
    }
  }, 120_000);
});
