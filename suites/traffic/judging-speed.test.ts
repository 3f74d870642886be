/**
 * The judging-speed changes of helper-132 (issue #35) keep every output: the report digest is the
 * hash of the canonical JSON whichever way its pieces are encoded, each reused piece comes with the
 * object it is the text of (so the digest keys its encodings by object, not by megabytes of text),
 * and a turn body's keys are read where a key name stands exactly as a `matchAll` of the whole body
 * reads them.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { turnKeys } from '../../src/checks/generated/traffic.ts';
import { digestOf, type Report } from '../../src/reports/model.ts';
import { canonicalJson, canonicalPieces } from '../../src/util/json.ts';

const TURN_KEY = /"(?:requestId|idempotencyKey)"\s*:\s*"([^"]{1,256})"/g;
const byMatchAll = (body: string): string[] => [...body.matchAll(TURN_KEY)].map((m) => m[1]!);

describe('canonical pieces and the report digest', () => {
  it('hands each reused object with its text, the same text wherever it recurs', () => {
    const shared = { b: 'x'.repeat(50), a: [1, 2] };
    const value = { rules: [{ evidence: [shared] }, { evidence: [shared, { c: 'é' }] }] };
    const pieces: Array<[string, boolean, object | undefined]> = [];
    canonicalPieces(value, new Set([shared]), (text, reused, of) => void pieces.push([text, reused, of]));
    expect(pieces.map(([t]) => t).join('')).toBe(canonicalJson(value));
    const reused = pieces.filter(([, r]) => r);
    expect(reused).toHaveLength(2);
    for (const [text, , of] of reused) {
      expect(of).toBe(shared);
      expect(text).toBe(canonicalJson(shared));
    }
    expect(reused[0]![0]).toBe(reused[1]![0]);
    expect(pieces.filter(([, r]) => !r).every(([, , of]) => of === undefined)).toBe(true);
  });

  it('is the sha256 of the canonical JSON, evidence shown by many rules included', () => {
    const entry = { label: 'recorded exchange #1', request: { method: 'GET', url: 'https://x.example/v8/health', headers: { accept: 'application/json' } }, curl: "curl 'https://x.example/v8/health' — «é»", durationMs: 0 };
    const other = { label: 'recorded exchange #2', request: { method: 'POST', url: 'https://x.example/v1/execute', headers: {}, body: '{"mode":"turn"}' }, curl: 'curl', durationMs: 0 };
    const body = { version: '0.1.0', rules: [{ id: 'a', evidence: [entry, other] }, { id: 'b', evidence: [other] }, { id: 'c', evidence: [entry] }] } as unknown as Omit<Report, 'digest'>;
    expect(digestOf(body)).toBe(`sha256:${createHash('sha256').update(canonicalJson(body)).digest('hex')}`);
  });
});

describe('turn body keys', () => {
  const bodies = [
    '',
    '{"mode":"turn","requestId":"r-1","messages":[]}',
    '{"idempotencyKey":"k-1","requestId":"r-2","x":{"requestId":"nested"}}',
    '{ "requestId" :  "spaced" , "idempotencyKey":"" }',
    '{"a":"\\"requestId\\":\\"escaped\\"","requestId":"real"}',
    '{"requestId":"a"requestId":"b"}',
    `{"requestId":"${'x'.repeat(257)}","idempotencyKey":"ok"}`,
    '{"requestId":"with \\" quote"}',
    '"requestId":"first""idempotencyKey":"second""requestId":"third"',
    '{"requestId":123,"idempotencyKey":"k"}',
    '"requestId"',
    '{"requestId": "ab", "requestId": "cd"}',
  ];
  it.each(bodies)('reads %j as matchAll does', (body) => {
    expect(turnKeys(body)).toEqual(byMatchAll(body));
  });

  it('reads random mixtures of key names, quotes and values as matchAll does', () => {
    const parts = ['"requestId"', '"idempotencyKey"', ':', ' ', '"', 'v', '"v1"', ',', '{', '}', '\\"', 'requestId', '"requestId":"', '"idempotencyKey":"k"'];
    let seed = 7;
    const next = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let i = 0; i < 2000; i += 1) {
      let body = '';
      const n = next(30);
      for (let k = 0; k < n; k += 1) body += parts[next(parts.length)];
      expect(turnKeys(body)).toEqual(byMatchAll(body));
    }
  });
});
