/**
 * What a run keeps of bodies, kept without extra copies (suites/hostile holds the memory cap itself):
 * evidence redacted again keeps its clipped texts as they are, a body read and decoded with its
 * buffer freed says what decoding the same bytes says, and the journal's prefix of a body is that
 * prefix whatever its characters.
 */
import fc from 'fast-check';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { decodeBody, readBody } from '../../src/probe/body.ts';
import { clip, clipped, EVIDENCE_BODY_LIMIT } from '../../src/probe/evidence.ts';
import { Journal } from '../../src/rule/index.ts';

const text = fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 300 }));

describe('evidence clipped once', () => {
  it('gives what clip gives, and returns a clipped text itself instead of a copy', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 200 }), (value, limit) => {
        const once = clip(value, limit).text;
        expect(clipped(value, limit)).toBe(once);
        expect(Object.is(clipped(once, limit), once)).toBe(true);
      }),
    );
  });

  it('cuts a long body at the evidence limit', () => {
    expect(clipped('1,'.repeat(EVIDENCE_BODY_LIMIT))).toBe(clip('1,'.repeat(EVIDENCE_BODY_LIMIT)).text);
  });
});

describe('a body read and its buffer freed', () => {
  const chunked = (bytes: Uint8Array, cuts: number[]) => {
    const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
    const chunks: Buffer[] = [];
    let at = 0;
    for (const p of [...points, bytes.length]) {
      if (p > at) chunks.push(Buffer.from(bytes.subarray(at, p)));
      at = Math.max(at, p);
    }
    return Readable.from(chunks);
  };

  it('decodes as the same bytes decode, cut at the cap or whole, valid UTF-8 or not', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 200 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.integer({ min: 1, max: 250 }),
        fc.constantFrom('application/json', 'text/plain', 'text/event-stream'),
        fc.boolean(),
        async (bytes, cuts, cap, type, declared) => {
          const got = await readBody(chunked(bytes, cuts), cap, declared ? bytes.length : undefined, type);
          const kept = Buffer.from(bytes.subarray(0, cap));
          expect(got).toEqual(decodeBody(kept, bytes.length > cap, type));
        },
      ),
    );
  });

  it('reads a body past a megabyte, whole', async () => {
    const body = Buffer.from('é,'.repeat(400_000));
    const got = await readBody(Readable.from([body.subarray(0, 333_333), body.subarray(333_333)]), 2 * 1024 * 1024, body.length, 'application/json');
    expect(got).toEqual({ text: 'é,'.repeat(400_000), truncated: false });
  });
});

describe("the journal's prefix of a body", () => {
  it('is the first characters of the body, whatever they are', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 300 }), (body, max) => {
        const journal = new Journal({ maxExchanges: 10, maxKeptBytes: 10_000, maxBodyBytes: max });
        const ex = journal.add({ method: 'GET', url: 'http://x.test/v8/coverage', path: '/v8/coverage', requestHeaders: {}, responseHeaders: {}, status: 200, responseBody: body });
        expect(ex.responseBody).toBe(body.length > max ? body.slice(0, max) : body);
      }),
    );
  });
});
