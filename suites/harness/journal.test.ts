/** The one journal of exchanges stays inside its bounds and says what it dropped. */
import { describe, expect, it } from 'vitest';
import { Journal, keptBytes } from '../../src/rule/index.ts';

const exchange = (body: string) => ({ method: 'GET', url: 'http://x.test/v8/coverage', path: '/v8/coverage', requestHeaders: {}, responseHeaders: {}, status: 200, responseBody: body });

describe('the journal', () => {
  it('cuts a body at its per-body bound and says so', () => {
    const journal = new Journal({ maxExchanges: 10, maxKeptBytes: 1_000, maxBodyBytes: 100 });
    const ex = journal.add(exchange('x'.repeat(500)));
    expect(ex.responseBody).toHaveLength(100);
    expect(ex.responseBodyTruncated).toBe(true);
  });

  it('drops the oldest bodies past its byte bound, keeping the exchanges and saying why', () => {
    const journal = new Journal({ maxExchanges: 100, maxKeptBytes: 1_000, maxBodyBytes: 400 });
    for (let i = 0; i < 20; i += 1) journal.add(exchange('y'.repeat(400)));
    const kept = journal.exchanges;
    expect(kept).toHaveLength(20);
    expect(kept.reduce((n, ex) => n + keptBytes(ex), 0)).toBeLessThanOrEqual(1_000);
    expect(kept[0]!.responseBody).toBeUndefined();
    expect(kept[0]!.responseBodyMissing).toMatch(/byte bound/);
    expect(kept.at(-1)!.responseBody).toHaveLength(400);
  });

  it('drops a large answer before small ones, oldest first: one unpaged listing frees what hundreds of small answers would', () => {
    // Old code dropped the oldest first: two 1 MiB listings in a 4 MiB journal of small answers let every small one before them go (an audit's generated run kept 300 of 1,000 answers).
    const journal = new Journal({ maxExchanges: 10_000, maxKeptBytes: 2_500_000, maxBodyBytes: 2_000_000 });
    for (let i = 0; i < 500; i += 1) journal.add(exchange(`{"n":${i}}`.padEnd(2_000)));
    journal.add(exchange('L'.repeat(1_000_000)));
    for (let i = 0; i < 100; i += 1) journal.add(exchange('s'.repeat(1_000)));
    journal.add(exchange('M'.repeat(1_000_000)));
    const kept = journal.exchanges;
    expect(kept.reduce((n, ex) => n + keptBytes(ex), 0)).toBeLessThanOrEqual(2_500_000);
    expect(kept.filter((ex) => ex.responseBodyMissing !== undefined).map((ex) => ex.index)).toEqual([500]);
    expect(kept.at(-1)!.responseBody).toHaveLength(1_000_000);
    // Past what dropping large answers frees, the oldest small ones go, as before.
    for (let i = 0; i < 30; i += 1) journal.add(exchange('t'.repeat(50_000)));
    const after = journal.exchanges;
    expect(after.reduce((n, ex) => n + keptBytes(ex), 0)).toBeLessThanOrEqual(2_500_000);
    expect(after.find((ex) => ex.index === 601)!.responseBodyMissing).toMatch(/byte bound/);
    expect(after[0]!.responseBodyMissing).toMatch(/byte bound/);
    expect(after.at(-1)!.responseBody).toHaveLength(50_000);
  });

  it('keeps the newest exchanges past its count bound and counts the rest', () => {
    const journal = new Journal({ maxExchanges: 5, maxKeptBytes: 1_000_000, maxBodyBytes: 100 });
    for (let i = 0; i < 12; i += 1) journal.add(exchange(String(i)));
    expect(journal.exchanges.map((e) => e.responseBody)).toEqual(['7', '8', '9', '10', '11']);
    expect(journal.dropped).toBe(7);
  });

  it('counts a body that arrives after its exchange was added (a stream read to its end)', () => {
    const journal = new Journal({ maxExchanges: 100, maxKeptBytes: 1_000, maxBodyBytes: 800 });
    const early = journal.add({ ...exchange(''), responseBody: undefined });
    for (let i = 0; i < 3; i += 1) journal.add(exchange('z'.repeat(300)));
    journal.complete(early, { events: [{ data: 'e'.repeat(700), atMs: 5 }] });
    expect(journal.exchanges.reduce((n, ex) => n + keptBytes(ex), 0)).toBeLessThanOrEqual(1_000);
  });
});
