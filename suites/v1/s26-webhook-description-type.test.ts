/**
 * Audit s26 /v1 F3: "Webhook endpoint creation request fields as used in practice: ... `description` (string)."
 * is read descriptively, as it is for `event_types`: a registration whose description is not a string may
 * be taken (v1.webhooks/description-any-type). `url`'s type stays stated.
 */
import { describe, expect, it } from 'vitest';
import { expectationOf, type SentRequest } from '../../src/checks/generated/expectation.ts';

const known = { existing: [], parked: [], bases: {}, publicReceiverUrl: 'https://hooks.example.net/in' };
const register = (json: unknown): SentRequest => ({ method: 'POST', path: '/v1/webhooks', headers: { 'content-type': 'application/json' }, credential: 'v1-full', json, body: JSON.stringify(json) });

describe('POST /v1/webhooks: description of another JSON type', () => {
  it('is no stated refusal, while a url that is no string still is', () => {
    for (const description of [42, { a: 1 }, null, true, ['x']]) {
      expect(expectationOf(register({ url: 'https://hooks.example.net/in', description }), known).kind, JSON.stringify(description)).not.toBe('refuse');
    }
    expect(expectationOf(register({ url: 42 }), known).kind).toBe('refuse');
  });
});
