import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { linkTargets, pageLinksOf } from '../../../src/checks/v1/webhooks/listing-pages.ts';
import { embeddedProfile } from '../../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../../src/fake/server.ts';
import { parseProfile } from '../../../src/profile/load.ts';
import type { Profile } from '../../../src/profile/schema.ts';
import type { RuleResult } from '../../../src/rule/index.ts';
import { certify } from '../../../src/runner/certify.ts';
import { isRecord } from '../../../src/util/json.ts';

/**
 * "Query parameters and response shape of the delivery listing: not shown." A listing read in pages
 * (`v1.webhooks/paged-listing`: oldest first, run_id ignored) must pass the rules that look deliveries
 * up in it; a listing whose further pages apicert cannot reach without guessing a parameter makes
 * them inconclusive, never failed.
 */
const LISTING = 'v1.webhooks.deliveries.listing';
const REPLAY = 'v1.webhooks.deliveries.replay';
const DEAD_LETTER = 'v1.webhooks.deliveries.dead-letter';
const DELIVERIES = '/v1/webhook-deliveries';

const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

function listen(server: Server): Promise<string> {
  closing.push(() => new Promise((resolve) => server.close(resolve)));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

async function freePort(): Promise<number> {
  const probe = createServer();
  const origin = await listen(probe);
  await new Promise((resolve) => probe.close(resolve));
  return Number(new URL(origin).port);
}

/** A paged fake whose webhook tenant already holds deliveries to many endpoints, so a run's lie pages deep. */
async function pagedFake(): Promise<{ fake: RunningFake; profile: Profile }> {
  const fake = await startFake({ variants: ['v1.webhooks/paged-listing'] });
  closing.push(() => fake.close());
  const base = embeddedProfile(fake);
  const token = base.credentials.find((c) => c.name === 'webhooks-full')!.token;
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${fake.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json', 'idempotency-key': `k-${Math.random()}` }, ...(body ? { body: JSON.stringify(body) } : {}) });
  for (let i = 0; i < 40; i += 1) expect((await call('POST', '/v1/webhooks', { url: `https://hooks.example.com/apicert/history-${i}` })).status).toBe(201);
  expect((await call('POST', '/v1/execute', base.fixtures.webhooks.runs.completes)).status).toBe(200);
  // Every event of the run goes to the 40 endpoints: wait (bounded) until the history fills four pages.
  let pages = 0;
  for (let i = 0; i < 100 && pages < 4; i += 1) {
    const body: unknown = await (await call('GET', DELIVERIES)).json();
    pages = isRecord(body) && typeof body.last === 'string' ? Number(new URL(body.last, fake.baseUrl).searchParams.get('page')) : 0;
    if (pages < 4) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(pages).toBeGreaterThanOrEqual(4);
  const port = await freePort();
  const publicReceiverUrl = `http://127.0.0.1:${port}`;
  fake.context.config.webhookAllowedOrigins.push(publicReceiverUrl);
  const profile = parseProfile({ ...base, fixtures: { ...base.fixtures, webhooks: { ...base.fixtures.webhooks, publicReceiverUrl, receiverListen: { host: '127.0.0.1', port } } } }, 'paged listing profile');
  return { fake, profile };
}

type Rewrite = (headers: Record<string, string>, body: Record<string, unknown>) => void;

/**
 * A front for the fake that rewrites the delivery listing's paging, as another deployment would page
 * it; the fake's absolute links name the front, as a deployment's own would.
 */
async function front(upstream: string, rewrite: Rewrite): Promise<string> {
  let self = '';
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)).map(([name, value]) => [name, String(value)]));
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        const answer = await fetch(`${upstream}${req.url}`, { method: req.method!, headers, redirect: 'manual', ...(body ? { body } : {}) });
        const out: Record<string, string> = {};
        answer.headers.forEach((value, name) => {
          if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name)) out[name] = value;
        });
        if (out.link) out.link = out.link.replaceAll(upstream, self);
        let text = await answer.text();
        if (req.method === 'GET' && new URL(req.url!, upstream).pathname === DELIVERIES && answer.status === 200) {
          const json: unknown = JSON.parse(text);
          if (isRecord(json)) rewrite(out, json);
          text = JSON.stringify(json);
        }
        res.writeHead(answer.status, out).end(text);
      })().catch(() => res.writeHead(502).end());
    });
  });
  self = await listen(server);
  return self;
}

async function certifyThrough(profile: Profile, target: string, ids: string[]): Promise<Map<string, RuleResult>> {
  const { results } = await certify({ profile: { ...profile, target }, patterns: ids, seed: 13 });
  return new Map(results.map((r) => [r.rule.id, r]));
}

const withoutBodyLinks = (body: Record<string, unknown>) => {
  for (const name of ['next', 'prev', 'last', 'links']) delete body[name];
};

describe('paged delivery listing', () => {
  it('follows Link headers and body links: listing, replay and dead-letter pass on the paged-listing variant', { timeout: 120_000 }, async () => {
    const { results, variantsTaken } = await certify({ variants: ['v1.webhooks/paged-listing'], patterns: [LISTING, REPLAY, DEAD_LETTER], seed: 13 });
    expect(variantsTaken).toEqual(['v1.webhooks/paged-listing']);
    for (const r of results) expect(r.verdict, `${r.rule.id}: ${r.reason}`).toBe('pass');
  });

  it('reads back from the last page of an oldest-first listing whose run lies pages deep, by Link header or by body alone', { timeout: 120_000 }, async () => {
    const { fake, profile } = await pagedFake();
    const byHeader = await front(fake.baseUrl, (_headers, body) => withoutBodyLinks(body));
    const byBody = await front(fake.baseUrl, (headers) => delete headers.link);
    for (const target of [byHeader, byBody]) {
      const results = await certifyThrough(profile, target, [LISTING, REPLAY]);
      for (const id of [LISTING, REPLAY]) expect(results.get(id)!.verdict, `${id}: ${results.get(id)!.reason}`).toBe('pass');
      const labels = results.get(LISTING)!.evidence.map((e) => e.label ?? '');
      expect(labels.some((l) => /^list deliveries, page \d+ \(from the last, backwards\)$/.test(l)), labels.join('\n')).toBe(true);
    }
  });

  it('is inconclusive, not failed, when the listing shows more pages only by a cursor apicert cannot follow without guessing', { timeout: 120_000 }, async () => {
    const { fake, profile } = await pagedFake();
    const cursorOnly = await front(fake.baseUrl, (headers, body) => {
      delete headers.link;
      const next = typeof body.next === 'string' ? new URL(body.next, fake.baseUrl).searchParams.get('page') : null;
      withoutBodyLinks(body);
      body.next_cursor = next === null ? null : Buffer.from(`page:${next}`).toString('base64url');
    });
    const results = await certifyThrough(profile, cursorOnly, [LISTING, REPLAY]);
    for (const id of [LISTING, REPLAY]) {
      expect(results.get(id)!.verdict, `${id}: ${results.get(id)!.reason}`).toBe('inconclusive');
      expect(results.get(id)!.reason).toContain('more may follow');
    }
    expect(results.get(LISTING)!.reason).toContain('has_more: true');
    expect(results.get(LISTING)!.reason).toContain('give the listing a next link, or let run_id filter it');
  });

  it('still fails a paged listing that names no run, once the pages read cover it', { timeout: 120_000 }, async () => {
    const { fake, profile } = await pagedFake();
    const noRunIds = await front(fake.baseUrl, (_headers, body) => {
      for (const item of Array.isArray(body.data) ? body.data : []) if (isRecord(item)) delete item.run_id;
    });
    const results = await certifyThrough(profile, noRunIds, [LISTING]);
    expect(results.get(LISTING)!.verdict, results.get(LISTING)!.reason).toBe('fail');
    expect(results.get(LISTING)!.reason).toContain('no item of the delivery listing names run');
    expect(results.get(LISTING)!.evidence.some((e) => /^list deliveries, page \d+$/.test(e.label ?? ''))).toBe(true);
  });

  it('never follows a next link to another origin, so the credential goes nowhere else', { timeout: 120_000 }, async () => {
    const { fake, profile } = await pagedFake();
    const elsewhere: string[] = [];
    const other = await listen(createServer((req, res) => {
      elsewhere.push(`${req.method} ${req.url} ${req.headers.authorization === undefined ? '' : 'with a credential'}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
    }));
    const foreign = await front(fake.baseUrl, (headers, body) => {
      withoutBodyLinks(body);
      if (headers.link) headers.link = headers.link.replaceAll(/<http:\/\/[^/>]+/g, `<${other}`);
    });
    const results = await certifyThrough(profile, foreign, [LISTING]);
    expect(elsewhere).toEqual([]);
    expect(results.get(LISTING)!.verdict, results.get(LISTING)!.reason).toBe('inconclusive');
    expect(results.get(LISTING)!.reason).toContain('names its next page on another origin');
  });
});

describe('page links', () => {
  it('reads RFC 8288 Link headers: quoted and bare rel, several relation types, commas and semicolons in quoted values, the first rel only', () => {
    const header = '<https://a.example/p?page=2>; rel="next last"; title="x, y; z", </p?page=1>; REL=Prev, <other>; rel="alternate"; rel="next", <third>; anchor="#a"; rel=next';
    expect(linkTargets(header, 'next')).toEqual(['https://a.example/p?page=2', 'third']);
    expect(linkTargets(header, 'last')).toEqual(['https://a.example/p?page=2']);
    expect(linkTargets(header, 'prev')).toEqual(['/p?page=1']);
    expect(linkTargets('', 'next')).toEqual([]);
    expect(linkTargets('garbage; rel=next', 'next')).toEqual([]);
  });

  it('takes URL-valued body fields as links and cursors or has_more as signs of more pages', () => {
    expect(pageLinksOf({}, { data: [], next_url: 'https://a.example/x?c=2', links: { prev: { href: '/x?c=0' } }, meta: { last: '?c=9' } })).toEqual({ next: ['https://a.example/x?c=2'], prev: ['/x?c=0'], last: ['?c=9'] });
    expect(pageLinksOf({}, { data: [], next: 'b3BhcXVl', has_more: true }).sign).toBe('next: "b3BhcXVl", has_more: true');
    expect(pageLinksOf({}, { items: [], page: { nextCursor: 'abc' } }).sign).toBe('nextCursor: "abc"');
    // A cursor beside has_more: false leads nowhere; a bare cursor may name the page just read.
    expect(pageLinksOf({}, { data: [], next_cursor: 'abc', has_more: false }).sign).toBeUndefined();
    expect(pageLinksOf({}, { data: [], cursor: 'abc', next: null }).sign).toBeUndefined();
    expect(pageLinksOf({}, [{ id: 1 }])).toEqual({ next: [], prev: [], last: [] });
  });
});
