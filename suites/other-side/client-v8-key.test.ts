/**
 * Audit 114 (F6): v8 Endpoints rule 2, "Mutating operations require `Idempotency-Key`: 16-128
 * characters, only alphanumerics and `.`, `_`, `:`, `-`. Reads, search and query do not."
 */
import { describe, expect, it } from 'vitest';
import { recorded, sessionJudge } from './client-sessions.ts';

const judge = sessionJudge();
const ID = 'client.v8.endpoints.idempotency-key';
const RUN = '/v8/missions/0190a3a2-0000-7000-8000-000000000001';
const mutation = (index: number, path: string, key?: string) =>
  recorded({ index, method: 'POST', path, headers: { 'content-type': 'application/json', ...(key !== undefined ? { 'idempotency-key': key } : {}) }, body: '{}', status: 202 });
const run = async (...exchanges: ReturnType<typeof recorded>[]) => (await judge({ scenario: 'capability-health', exchanges })).get(ID);

describe('client.v8.endpoints.idempotency-key', () => {
  it('passes keys of 16 and 128 characters of every allowed kind, on missions, signals and cancel', async () => {
    const result = await run(mutation(0, '/v8/missions', 'a'.repeat(15) + '-'), mutation(1, `${RUN}/signals`, `Az09._:-${'x'.repeat(120)}`), mutation(2, `${RUN}/cancel`, '0190a3a2-0000-7000-8000-000000000001'));
    expect([result?.verdict, result?.reason]).toEqual(['pass', undefined]);
  });

  it.each([
    ['no key', undefined, /#0 POST \/v8\/missions carried no Idempotency-Key/],
    ['15 characters', 'a'.repeat(15), /of 15 characters/],
    ['129 characters', 'a'.repeat(129), /of 129 characters/],
    ['a character outside the set', `${'a'.repeat(16)}/`, /with "\/" among them/],
  ])('fails a mission created with %s', async (_, key, reason) => {
    const result = await run(mutation(0, '/v8/missions', key));
    expect(result?.verdict).toBe('fail');
    expect(result?.reason).toMatch(reason);
  });

  it('does not judge reads, search or query, nor POST /v8/intents, whose place among the mutations is left open', async () => {
    const reads = [
      recorded({ index: 0, method: 'POST', path: '/v8/capabilities/search', body: '{}', status: 200 }),
      recorded({ index: 1, method: 'POST', path: '/v8/memory/query', body: '{}', status: 200 }),
      recorded({ index: 2, method: 'GET', path: RUN, status: 200 }),
      recorded({ index: 3, method: 'POST', path: '/v8/intents', body: '{}', status: 404 }),
    ];
    expect((await run(...reads))?.verdict).toBe('not-applicable');
    // A client stopped at the deadline may have sent its mission later.
    expect((await judge({ scenario: 'capability-health', exchanges: reads, ended: 'deadline' })).get(ID)?.verdict).toBe('inconclusive');
  });
});
