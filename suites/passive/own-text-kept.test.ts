/**
 * Redaction never alters apicert's own text, and a recording that hides session ids still tells
 * sessions apart. Under `mcp.session/jwt-ids` the fake issues JWT-shaped session ids, which
 * `certify --har-out` hides. The judge of that recording used to learn every id a request carried as
 * a secret, apicert's made-up `not a session id!` included, and then followed a fragment of it
 * into a sentence ("withou«redacted:mcp-session-id»."). The recorder also gave every session
 * the same marker, so the session rules were untestable on that recording.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { TrafficExchange } from '../../src/passive/exchange.ts';
import { exchangeOfEntry } from '../../src/passive/har.ts';
import { judgeRecording, type PassiveJudgement } from '../../src/passive/judge.ts';
import { HarRecorder, hidingFor } from '../../src/passive/recorder.ts';
import { learnSecrets, sessionIds } from '../../src/passive/secrets.ts';
import { ownTextOf } from '../../src/redact/own-text.ts';
import { Redactor, TARGET_ISSUED_SESSION } from '../../src/redact/redactor.ts';
import { RULES } from '../../src/registry.ts';
import { certify, HARNESS_VERSION, redactorFor } from '../../src/runner/certify.ts';
import { exchangesOf, stripApicert } from './record.ts';

/** A marker glued to a letter or digit: it replaced part of a word, not a whole value. */
const INSIDE_A_WORD = /[A-Za-z0-9]«redacted|»[A-Za-z0-9]/;

/** The text around the first marker inside a word, or "whole". */
function cutWord(text: string): string {
  const at = INSIDE_A_WORD.exec(text)?.index;
  return at === undefined ? 'whole' : text.slice(Math.max(0, at - 60), at + 40);
}

function postWithSession(index: number, sent: string | undefined, status: number, issued?: string) {
  return exchangeOfEntry(
    {
      startedDateTime: '2026-01-01T00:00:00.000Z',
      request: { method: 'POST', url: 'http://127.0.0.1:1/mcp', headers: sent === undefined ? [] : [{ name: 'Mcp-Session-Id', value: sent }] },
      response: { status, headers: issued === undefined ? [] : [{ name: 'Mcp-Session-Id', value: issued }], content: { mimeType: 'application/json', text: '{}' } },
    },
    index,
  )!;
}

describe('the ids a target issued, as secrets', () => {
  it('are learned from its answers and from requests it accepted, never from an id it refused or a marker', () => {
    const ids = sessionIds([
      postWithSession(0, undefined, 200, 'f3a9c2e1-issued-by-the-target'),
      postWithSession(1, 'opened-before-the-recording-7c1d', 202),
      postWithSession(2, 'not a session id!', 400),
      postWithSession(3, 'apicert-never-issued-session', 404),
      postWithSession(4, '«redacted:mcp-session-id#1»', 200),
    ]);
    expect([...ids].sort()).toEqual(['f3a9c2e1-issued-by-the-target', 'opened-before-the-recording-7c1d']);
  });

  it('are hidden where they stand whole, in any form, and a fragment of one is never followed into a sentence', () => {
    const redactor = new Redactor();
    redactor.add('not a session id!', TARGET_ISSUED_SESSION);
    const sentence = 'send a new initialize request without a session id.';
    expect(redactor.text(sentence)).toBe(sentence);
    expect(redactor.text('Mcp-Session-Id: not a session id!')).toBe(`Mcp-Session-Id: «redacted:${TARGET_ISSUED_SESSION}»`);
    expect(redactor.text('{"id":"not%20a%20session%20id!"}')).toBe(`{"id":"«redacted:${TARGET_ISSUED_SESSION}»"}`);
  });

  it('a credential header joining a marker with other values is learned part by part, never as one secret holding a marker', () => {
    const joined = exchangeOfEntry(
      {
        startedDateTime: '2026-01-01T00:00:00.000Z',
        request: { method: 'GET', url: 'http://127.0.0.1:1/v8/missions', headers: [{ name: 'Authorization', value: 'Bearer «redacted:token:full», Bearer k3J9xQpLm2ZtV7wR0aYb4Nc8' }] },
        response: { status: 401, headers: [], content: { mimeType: 'application/json', text: '{}' } },
      },
      0,
    )!;
    expect(learnSecrets([joined]).map((s) => [s.value, s.label])).toEqual([
      ['«redacted:token:full»', 'token:full'],
      ['k3J9xQpLm2ZtV7wR0aYb4Nc8', 'authorization#2'],
    ]);
  });

  it("keep every judgement's record and none text among apicert's own text", () => {
    const own = ownTextOf(RULES);
    const judged = RULES.filter((r) => r.judgement);
    expect(judged.length).toBeGreaterThan(100);
    for (const r of judged) {
      expect(own.has(r.judgement!.record), r.id).toBe(true);
      if (r.judgement!.none !== undefined) expect(own.has(r.judgement!.none), r.id).toBe(true);
    }
  });
});

describe('a certify recording of JWT-shaped session ids, judged', () => {
  let exchanges: TrafficExchange[] = [];
  let text = '';
  let passive: PassiveJudgement;
  beforeAll(async () => {
    const recorder = new HarRecorder();
    const active = await certify({ variants: ['mcp.session/jwt-ids'], seed: 13, surfaces: ['mcp'], recorder, adjustEmbeddedProfile: (p) => ({ ...p, safety: { ...p.safety, modelRuns: 5 } }) });
    const profile = active.profile!;
    text = JSON.stringify(recorder.document(HARNESS_VERSION, hidingFor(profile, redactorFor(profile))));
    exchanges = exchangesOf(stripApicert(JSON.parse(text) as { log: { entries: unknown[] } }));
    passive = await judgeRecording(exchanges, { env: {}, profile });
  }, 120_000);

  it("hides no part of a word: apicert's text and the target's stay whole", () => {
    for (const r of passive.results) {
      const said = [r.reason ?? '', ...r.cases.map((c) => c.reason), JSON.stringify(r.evidence)].join('\n');
      expect(`${r.rule.id}: ${cutWord(said)}`).toBe(`${r.rule.id}: whole`);
    }
  });

  it('gives each session its own marker, so the session rules judge it', () => {
    const issued = exchanges.map((ex) => ex.responseHeaders['mcp-session-id']).filter((id) => id !== undefined);
    expect(issued.length).toBeGreaterThan(5);
    for (const id of issued) expect(id).toMatch(/^«redacted:mcp-session-id#\d+»$/);
    expect(new Set(issued).size).toBe(issued.length);
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{8,}\./);
    const verdict = new Map(passive.results.map((r) => [r.rule.id, r.verdict]));
    for (const id of ['mcp.session.delete-terminates', 'mcp.transport.get-405', 'mcp.jsonrpc.method-not-found', 'mcp.sse.event-ids-unique', 'mcp.revisions.protocol-version-header']) {
      expect(`${id}: ${verdict.get(id)}`).toBe(`${id}: pass`);
    }
    // The characters of a hidden id are not in the recording: that rule alone cannot judge it.
    expect(verdict.get('mcp.session.id-visible-ascii')).toBe('untestable');
  });
});
