import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { constantTimeEqual, MemoryEventStore, signWebhook, verifyWebhook } from '../../../src/webhooks/index.ts';

const NOW_MS = 1_790_000_000_000;
const NOW_S = Math.floor(NOW_MS / 1000);

const identifier = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,40}$/);
const secret = fc.string({ minLength: 8, maxLength: 64, unit: 'grapheme-ascii' });

/** A delivery as a sender would build it, with its raw bytes. */
const delivery = fc
  .record({
    eventId: identifier,
    runId: identifier,
    sequence: fc.integer({ min: 0, max: 1_000_000 }),
    data: fc.jsonValue({ maxDepth: 2 }),
    secret,
    skew: fc.integer({ min: -300, max: 300 }),
    pretty: fc.boolean(),
  })
  .map((d) => {
    const body = { apiVersion: 'v1', event_id: d.eventId, run_id: d.runId, sequence: d.sequence, data: d.data };
    // Senders may space their JSON any way: the MAC covers the bytes, whatever they are.
    return { ...d, timestamp: String(NOW_S + d.skew), rawBody: d.pretty ? JSON.stringify(body, null, 2) : JSON.stringify(body) };
  });

async function headersFor(d: { eventId: string; timestamp: string; rawBody: string | Uint8Array; secret: string }): Promise<Record<string, string>> {
  return {
    'service-webhook-id': d.eventId,
    'service-webhook-timestamp': d.timestamp,
    'service-webhook-signature': await signWebhook(d),
  };
}

/** One byte changed to any other value. */
function flipByte(bytes: Uint8Array, index: number, delta: number): Uint8Array {
  const out = new Uint8Array(bytes);
  const i = index % out.length;
  out[i] = (out[i]! + delta) % 256;
  return out;
}

/** One printable ASCII character changed to another one (ids, timestamps and secrets here are ASCII). */
function flipChar(text: string, index: number, delta: number): string {
  const i = index % text.length;
  const shifted = 0x20 + ((text.charCodeAt(i) - 0x20 + 1 + (delta % 94)) % 95);
  return text.slice(0, i) + String.fromCharCode(shifted) + text.slice(i + 1);
}

describe('verifyWebhook', () => {
  it('accepts every correctly signed delivery within the tolerance (property)', async () => {
    await fc.assert(
      fc.asyncProperty(delivery, async (d) => {
        const result = await verifyWebhook({ rawBody: d.rawBody, headers: await headersFor(d), secret: d.secret, now: NOW_MS });
        expect(result).toMatchObject({ ok: true, status: 204, duplicate: false });
      }),
      { numRuns: 200 },
    );
  });

  it('signs exactly as an independent HMAC-SHA-256 over <event_id>.<timestamp>.<raw body> (property)', async () => {
    await fc.assert(
      fc.asyncProperty(delivery, async (d) => {
        const expected = `v1=${createHmac('sha256', d.secret).update(`${d.eventId}.${d.timestamp}.${d.rawBody}`).digest('hex')}`;
        expect(await signWebhook(d)).toBe(expected);
      }),
      { numRuns: 100 },
    );
  });

  it('refuses a delivery after any single-byte change of body, id, timestamp or secret (property)', async () => {
    const part = fc.constantFrom('body', 'id', 'timestamp', 'secret');
    await fc.assert(
      fc.asyncProperty(delivery, part, fc.nat(), fc.integer({ min: 1, max: 255 }), async (d, which, index, delta) => {
        const headers = await headersFor(d);
        let rawBody: string | Uint8Array = d.rawBody;
        let key = d.secret;
        if (which === 'body') rawBody = flipByte(new TextEncoder().encode(d.rawBody), index, delta);
        if (which === 'id') headers['service-webhook-id'] = flipChar(d.eventId, index, delta);
        if (which === 'timestamp') headers['service-webhook-timestamp'] = flipChar(d.timestamp, index, delta);
        if (which === 'secret') key = flipChar(d.secret, index, delta);
        const result = await verifyWebhook({ rawBody, headers, secret: key, now: NOW_MS });
        expect(result.ok, `${which} changed`).toBe(false);
        expect(result.status).toBe(401);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses timestamps more than 300 s from the receiver clock, either way (property)', async () => {
    const skew = fc.oneof(fc.integer({ min: 301, max: 10_000_000 }), fc.integer({ min: -10_000_000, max: -301 }));
    await fc.assert(
      fc.asyncProperty(delivery, skew, async (d, s) => {
        const moved = { ...d, timestamp: String(NOW_S + s) };
        const result = await verifyWebhook({ rawBody: moved.rawBody, headers: await headersFor(moved), secret: d.secret, now: NOW_MS });
        expect(result).toMatchObject({ ok: false, status: 401, reason: s > 0 ? 'future-timestamp' : 'stale-timestamp' });
      }),
      { numRuns: 200, examples: [[{ eventId: 'e', runId: 'r', sequence: 1, data: null, secret: 'secret-1', skew: 0, pretty: false, timestamp: '', rawBody: '{"apiVersion":"v1","event_id":"e","run_id":"r","sequence":1}' }, 301]] },
    );
  });

  it('accepts the edges of the tolerance and a timestamp in milliseconds is refused', async () => {
    const rawBody = JSON.stringify({ apiVersion: 'v1', event_id: 'evt_1', run_id: 'run_1', sequence: 3 });
    for (const skew of [-300, 300]) {
      const d = { eventId: 'evt_1', timestamp: String(NOW_S + skew), rawBody, secret: 'whsec_edge' };
      expect((await verifyWebhook({ rawBody, headers: await headersFor(d), secret: d.secret, now: NOW_MS })).ok).toBe(true);
    }
    const ms = { eventId: 'evt_1', timestamp: String(NOW_MS), rawBody, secret: 'whsec_edge' };
    const refused = await verifyWebhook({ rawBody, headers: await headersFor(ms), secret: ms.secret, now: NOW_MS });
    expect(refused).toMatchObject({ ok: false, status: 401, reason: 'future-timestamp' });
    expect(refused.ok ? '' : refused.message).toContain('milliseconds');
  });

  it('answers 400 for a bad apiVersion or an id header that differs from the body, 401 for a bad or malformed signature', async () => {
    const base = { eventId: 'evt_1', timestamp: String(NOW_S), secret: 'whsec_codes' };
    const v2 = JSON.stringify({ apiVersion: 'v2', event_id: 'evt_1', run_id: 'run_1', sequence: 1 });
    expect(await verifyWebhook({ rawBody: v2, headers: await headersFor({ ...base, rawBody: v2 }), secret: base.secret, now: NOW_MS })).toMatchObject({ status: 400, reason: 'bad-api-version' });
    const other = JSON.stringify({ apiVersion: 'v1', event_id: 'evt_2', run_id: 'run_1', sequence: 1 });
    expect(await verifyWebhook({ rawBody: other, headers: await headersFor({ ...base, rawBody: other }), secret: base.secret, now: NOW_MS })).toMatchObject({ status: 400, reason: 'id-mismatch' });
    const ok = JSON.stringify({ apiVersion: 'v1', event_id: 'evt_1', run_id: 'run_1', sequence: 1 });
    const headers = await headersFor({ ...base, rawBody: ok });
    const upper = { ...headers, 'service-webhook-signature': `v1=${headers['service-webhook-signature']!.slice(3).toUpperCase()}` };
    expect(await verifyWebhook({ rawBody: ok, headers: upper, secret: base.secret, now: NOW_MS })).toMatchObject({ status: 401, reason: 'malformed-signature' });
    expect(await verifyWebhook({ rawBody: ok, headers, secret: 'whsec_other', now: NOW_MS })).toMatchObject({ status: 401, reason: 'bad-signature' });
    const { 'service-webhook-id': _dropped, ...noId } = headers;
    expect(await verifyWebhook({ rawBody: ok, headers: noId, secret: base.secret, now: NOW_MS })).toMatchObject({ status: 401, reason: 'missing-header' });
  });

  it('takes an integer event_id whose digits the id header carries, as the delivery contract does (the seed names the field, not its type)', async () => {
    const base = { eventId: '42', timestamp: String(NOW_S), secret: 'whsec_integer_ids' };
    const integer = JSON.stringify({ apiVersion: 'v1', event_id: 42, run_id: 'run_1', sequence: 1 });
    expect(await verifyWebhook({ rawBody: integer, headers: await headersFor({ ...base, rawBody: integer }), secret: base.secret, now: NOW_MS })).toMatchObject({ ok: true, status: 204, event: { event_id: 42 } });
    const fractional = JSON.stringify({ apiVersion: 'v1', event_id: 42.5, run_id: 'run_1', sequence: 1 });
    expect(await verifyWebhook({ rawBody: fractional, headers: await headersFor({ ...base, eventId: '42.5', rawBody: fractional }), secret: base.secret, now: NOW_MS })).toMatchObject({ status: 400, reason: 'id-mismatch' });
  });

  it('skips an empty secret during a rotation, and says what is wrong when every secret is empty', async () => {
    const base = { eventId: 'evt_1', timestamp: String(NOW_S), secret: 'whsec_rotated' };
    const body = JSON.stringify({ apiVersion: 'v1', event_id: 'evt_1', run_id: 'run_1', sequence: 1 });
    const headers = await headersFor({ ...base, rawBody: body });
    expect(await verifyWebhook({ rawBody: body, headers, secret: [base.secret, ''], now: NOW_MS })).toMatchObject({ ok: true });
    await expect(verifyWebhook({ rawBody: body, headers, secret: '', now: NOW_MS })).rejects.toThrow(/signing_secret: every secret given is empty/);
  });

  it('reports a duplicate event_id as success without repeating, reads fetch Headers, and accepts any secret during a rotation', async () => {
    const rawBody = JSON.stringify({ apiVersion: 'v1', event_id: 'evt_dup', run_id: 'run_1', sequence: 1 });
    const signed = await headersFor({ eventId: 'evt_dup', timestamp: String(NOW_S), rawBody, secret: 'whsec_new' });
    const store = new MemoryEventStore();
    const input = { rawBody, headers: new Headers(signed), secret: ['whsec_old', 'whsec_new'], now: new Date(NOW_MS), store };
    expect(await verifyWebhook(input)).toMatchObject({ ok: true, duplicate: false, event: { run_id: 'run_1', sequence: 1 } });
    expect(await verifyWebhook(input)).toMatchObject({ ok: true, status: 204, duplicate: true });
    // A failed effect gives the claim back: the sender's retry is then processed, not skipped.
    store.release('evt_dup');
    expect(await verifyWebhook(input)).toMatchObject({ ok: true, duplicate: false });
  });

  it('compares strings fully, whatever their lengths', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(constantTimeEqual(a, b)).toBe(a === b);
        expect(constantTimeEqual(a, a)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
