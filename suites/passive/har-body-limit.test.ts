/**
 * A recorded body past the reader's body limit: kept as its prefix, marked cut. A body of ASCII text
 * (the catalogue's 1 MiB probe bodies in every certify recording) is cut as text, never copied to
 * bytes and decoded back; any other body still goes the bytes' way, cut at a character's edge.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { contentText } from '../../src/passive/content.ts';
import { exchangeOfEntry } from '../../src/passive/har.ts';

const LIMIT = 4096;

function entryWith(body: string) {
  return {
    request: { method: 'POST', url: 'https://api.example/v8/missions', headers: [{ name: 'content-type', value: 'application/json' }], postData: { mimeType: 'application/json', text: body } },
    response: { status: 413, headers: [{ name: 'content-type', value: 'text/plain' }], content: { mimeType: 'text/plain', text: body } },
  };
}

/** Calls of Buffer.from with a string of at least `length` characters. */
function bufferCopiesOf(spy: { mock: { calls: unknown[][] } }, length: number): number {
  return spy.mock.calls.filter(([value]) => typeof value === 'string' && value.length >= length).length;
}

describe('a HAR body past the body limit', () => {
  afterEach(() => vi.restoreAllMocks());

  it('keeps the first limit characters of an ASCII body, cut, without copying it to bytes', () => {
    const body = `{"apicert":"${'a'.repeat(LIMIT * 2)}"}`;
    const from = vi.spyOn(Buffer, 'from');
    const ex = exchangeOfEntry(entryWith(body), 0, LIMIT)!;
    expect(bufferCopiesOf(from, LIMIT)).toBe(0);
    from.mockRestore();
    // What the bytes' way gives for the same body.
    const byBytes = contentText(Buffer.from(body, 'utf8'), undefined, LIMIT);
    expect(byBytes).toEqual({ text: body.slice(0, LIMIT), truncated: true });
    expect(ex.requestBody).toBe(byBytes.text);
    expect(ex.requestBodyTruncated).toBe(true);
    expect(ex.responseBody).toBe(byBytes.text);
    expect(ex.responseBodyTruncated).toBe(true);
  });

  it('cuts a body that is not ASCII at a character edge, as before', () => {
    // Two-byte characters: the limit falls inside one of them (an odd byte count), whose half is dropped.
    const body = `"${'é'.repeat(LIMIT)}"`;
    const ex = exchangeOfEntry(entryWith(body), 0, LIMIT + 1)!;
    const byBytes = contentText(Buffer.from(body, 'utf8'), undefined, LIMIT + 1);
    expect(ex.requestBody).toBe(byBytes.text);
    expect(ex.requestBody).toBe(`"${'é'.repeat(LIMIT / 2)}`);
    expect(ex.requestBodyTruncated).toBe(true);
    expect(ex.responseBody).toBe(byBytes.text);
    expect(ex.responseBodyTruncated).toBe(true);
  });

  it('keeps an ASCII body at the limit whole', () => {
    const body = 'b'.repeat(LIMIT);
    const ex = exchangeOfEntry(entryWith(body), 0, LIMIT)!;
    expect(ex.requestBody).toBe(body);
    expect(ex.requestBodyTruncated).toBeUndefined();
    expect(ex.responseBody).toBe(body);
    expect(ex.responseBodyTruncated).toBeUndefined();
  });
});
