/** Endpoints: the delivery listing and the replay operation, whose shapes the seed does not show. */
import { type CheckContext, type Prerequisite, section, type ProbeResponse } from '../../../rule/index.ts';
import { newKey } from '../../../util/ids.ts';
import { isRecord } from '../../../util/json.ts';
import type { ReceivedDelivery } from '../../../webhooks/receiver.ts';
import { pageLinksOf } from './listing-pages.ts';
import { DELIVERIES, eventIdOf, type Hook, isTerminal, keptDeliveries, macMatches, ofRun, ownId, recordDeliveries, registrar, setupHook, startRun, untilTerminal } from './support.ts';
import { runDeliveries, sharedHook } from './shared.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:registrar'], fixtures: ['webhooks.runs.completes'], receiver: true } });

const SECTION = 'Endpoints';

/** Every object in a JSON document, depth-first and bounded, wherever the target nests its items. */
function objects(value: unknown, out: Record<string, unknown>[] = [], depth = 0): Record<string, unknown>[] {
  if (depth > 8 || out.length > 5_000) return out;
  if (Array.isArray(value)) for (const v of value) objects(v, out, depth + 1);
  else if (isRecord(value)) {
    out.push(value);
    for (const v of Object.values(value)) objects(v, out, depth + 1);
  }
  return out;
}

/** Whether the item, or an object directly in it (`endpoint: {id}`), carries the value; an integer id matches its decimal text. */
function holds(item: Record<string, unknown>, value: string): boolean {
  const is = (v: unknown) => v === value || (typeof v === 'number' && String(v) === value);
  return Object.values(item).some((v) => is(v) || (isRecord(v) && Object.values(v).some(is)));
}

/** Pages of one form of the listing apicert reads before it stops, like every probe: bounded. */
const MAX_PAGES = 20;
/** Requests left to the rest of the run when the listing would take the run's budget down to them. */
const BUDGET_RESERVE = 10;

/** What apicert can follow, said where a listing showed more pages it could not reach. */
const FOLLOWABLE = 'apicert follows, on the target\'s own origin, RFC 8288 Link headers (rel next, and last then prev) or body fields holding a page\'s URL or path (next, next_url, nextUrl, links.next, ...); a cursor alone would need a query parameter the description does not name, so give the listing a next link, or let run_id filter it';

interface Found {
  item?: Record<string, unknown>;
  /** The page holding the item, else the listing's first page. */
  res: ProbeResponse;
  /** Why the item may be on a page apicert did not read, when it was not found and the listing showed more pages. */
  more?: string;
}

/** Where a link leads: a path on the target's origin; a link to another origin is never followed, so the credential goes nowhere else. */
function sameOrigin(ctx: CheckContext, reference: string, page: string): string | undefined {
  const origin = new URL(ctx.http.baseUrl).origin;
  let url: URL;
  try {
    url = new URL(reference, new URL(page, ctx.http.baseUrl));
  } catch {
    return undefined;
  }
  const path = `${url.pathname}${url.search}`;
  // The probe resolves the path against the base URL again: `//host/...` would name another host there.
  return url.origin === origin && new URL(path, ctx.http.baseUrl).origin === origin ? path : undefined;
}

/** One direction of reading: the page to read next, the pages it read, and why it stopped with more possibly left. */
interface Walk {
  at?: string;
  read: Set<string>;
  why?: string;
}

/**
 * Reads one form of the listing until an item holds every wanted value. From the first page it
 * follows `next`; where the listing names its `last` page it also reads back from there by `prev`,
 * in turn, so a listing that runs oldest first shows its newest deliveries within the bound.
 * The item is absent for sure only when the pages read cover the listing: the forward walk ran out
 * of pages with no sign of more, or the two walks met.
 */
async function searchPages(ctx: CheckContext, query: string, form: string, wanted: readonly string[]): Promise<Found> {
  const firstPath = `${DELIVERIES}${query}`;
  const forward: Walk = { at: firstPath, read: new Set() };
  const backward: Walk = { read: new Set() };
  let first: ProbeResponse | undefined;
  let met = false;
  // Read to its end with no sign of more, or met by the backward walk: the pages read cover the listing.
  const covered = () => met || (forward.at === undefined && forward.why === undefined);
  for (let page = 1; page <= MAX_PAGES && !covered() && (forward.at !== undefined || backward.at !== undefined); page += 1) {
    const walk = page === 1 || backward.at === undefined || (forward.at !== undefined && page % 2 === 0) ? forward : backward;
    const other = walk === forward ? backward : forward;
    const path = walk.at!;
    if (other.read.has(path)) {
      met = true;
      break;
    }
    if (page > 1 && ctx.http.remainingRequests() <= BUDGET_RESERVE) return { res: first!, more: `the run's request budget ran low after ${page - 1} pages of the listing${form}` };
    walk.read.add(path);
    const res = await ctx.http.send({ method: 'GET', path, credential: registrar(ctx), label: `list deliveries${form}${page > 1 ? `, page ${page}${walk === backward ? ' (from the last, backwards)' : ''}` : ''}` });
    first ??= res;
    const item = objects(res.json).find((o) => wanted.every((v) => holds(o, v)));
    if (item) return { item, res };
    if (res.status !== 200) {
      if (page === 1) return { res };
      walk.at = undefined;
      walk.why = `answered ${res.status} for one of its pages`;
      continue;
    }
    const links = pageLinksOf(res.headers, res.json);
    if (page === 1) {
      const last = links.last.map((l) => sameOrigin(ctx, l, path)).find((p) => p !== undefined && p !== path);
      if (last !== undefined) backward.at = last;
    }
    const onward = (walk === forward ? links.next : links.prev).map((l) => sameOrigin(ctx, l, path));
    const next = onward.find((p) => p !== undefined);
    walk.at = undefined;
    if (next !== undefined && other.read.has(next)) met = true;
    else if (next !== undefined && !walk.read.has(next)) walk.at = next;
    else if (walk === forward) {
      walk.why = onward.some((p) => p === undefined)
        ? 'names its next page on another origin, where apicert does not send the credential'
        : next !== undefined
          ? 'names as its next page one already read'
          : links.sign
            ? `shows more pages (${links.sign}) without naming the next one as a URL`
            : undefined;
    }
  }
  if (covered()) return { res: first! };
  if (forward.at !== undefined || backward.at !== undefined) return { res: first!, more: `the listing${form} names a page after the ${MAX_PAGES} apicert reads` };
  return { res: first!, more: `the listing${form} ${forward.why}` };
}

/**
 * The listing item naming one run and every other given value (an event id, an endpoint id: one
 * event goes to every endpoint of the tenant): the plain listing first, then filtered by run_id,
 * each followed page by page.
 */
export async function findDelivery(ctx: CheckContext, runId: string, also: Array<string | undefined> = [], options: { runInItem?: boolean } = {}): Promise<Found> {
  const wanted = [...(options.runInItem === false ? [] : [runId]), ...also.filter((v): v is string => v !== undefined)];
  const plain = await searchPages(ctx, '', '', wanted);
  if (plain.item) return plain;
  const filtered = await searchPages(ctx, `?run_id=${encodeURIComponent(runId)}`, ' filtered by run_id', wanted);
  if (filtered.item) return filtered;
  // The plain listing's answer is the one judged: a deployment may ignore or refuse a run_id parameter it never offered.
  const more = [plain.more, filtered.more].filter((m): m is string => m !== undefined).join('; ');
  return { res: plain.res, ...(more ? { more: `${more} (${FOLLOWABLE})` } : {}) };
}

/** The objects of a page that hold every wanted value, but those inside another such object (`endpoint: {...}`): one per listing item. */
function itemsHolding(page: unknown, wanted: readonly string[]): Record<string, unknown>[] {
  const holding = objects(page).filter((o) => wanted.every((v) => holds(o, v)));
  return holding.filter((o) => !holding.some((p) => p !== o && Object.values(p).includes(o)));
}

/** The prerequisite the replay lacks when no listing item can be told to be this endpoint's; its phrase is `v1.webhooks/secret-only-creation`'s `leavesUntestable`. */
function noEndpointId(eventId: string, why: string): Prerequisite {
  return { need: 'data', what: `no endpoint id in its creation response (id, endpoint_id or endpointId), so which delivery of event ${eventId} in the listing is this endpoint's cannot be told: ${why}`, remedy: "return the endpoint's id in the 201 of POST /v1/webhooks, or name the endpoint's URL in the listing's items, then run the rule again" };
}

/**
 * This endpoint's listing item for an event. One event goes to every endpoint of the tenant: with no
 * endpoint id from the 201 ("Fields of the registered endpoint record beyond `signing_secret`: not
 * shown."), an item naming the endpoint's URL is this endpoint's; else a lone item of the event is
 * replayed as maybe this endpoint's (`sure` false), and with several the rule does not guess: replaying
 * another endpoint's would send the event elsewhere, correctly, and fail a correct deployment.
 */
async function ownDelivery(ctx: CheckContext, hook: Hook, runId: string, eventId: string): Promise<Found & { sure: boolean }> {
  if (hook.endpointId !== undefined) return { ...(await findDelivery(ctx, runId, [eventId, hook.endpointId], { runInItem: false })), sure: true };
  const byUrl = await findDelivery(ctx, runId, [eventId, hook.endpoint.url], { runInItem: false });
  if (byUrl.item) return { ...byUrl, sure: true };
  const found = await findDelivery(ctx, runId, [eventId], { runInItem: false });
  const items = found.item ? itemsHolding(found.res.json, [eventId]).length : 0;
  if (items > 1) ctx.untestable(noEndpointId(eventId, `the listing's page holds ${items} deliveries of it, one per endpoint the event went to`));
  return { ...found, sure: false };
}

export const deliveryListing = rule({
  id: 'v1.webhooks.deliveries.listing',
  title: 'GET /v1/webhook-deliveries lists deliveries with their endpoint and run identifiers',
  level: 'required',
  activeOnly: "matches the listing against deliveries apicert's receiver got for a run apicert started",
  spec: { section: SECTION, quote: 'The listing exposes the endpoint and run identifiers of deliveries.' },
  async check(ctx: CheckContext) {
    const { hook, runId } = await runDeliveries(ctx);
    const { item, res, more } = await findDelivery(ctx, runId);
    ctx.check(res.status === 200, `the delivery listing answered ${res.status}, expected 200`, res);
    if (!item && more && res.status === 200) ctx.inconclusive(`no page of the delivery listing apicert read names run ${runId}, and more may follow: ${more}`);
    ctx.expect(item !== undefined, `no item of the delivery listing names run ${runId}, whose deliveries the receiver got`);
    if (hook.endpointId) {
      const { item: ofEndpoint, more: endpointMore } = await findDelivery(ctx, runId, [hook.endpointId]);
      if (!ofEndpoint && endpointMore) ctx.inconclusive(`no page of the delivery listing apicert read names both run ${runId} and the endpoint ${hook.endpointId}, and more may follow: ${endpointMore}`);
      ctx.check(ofEndpoint !== undefined, `no listing item names both run ${runId} and the endpoint ${hook.endpointId} that received it`);
    } else ctx.observe('endpoint identifier', null, 'the creation response had no id, so the endpoint identifier in the listing could not be matched');
    ctx.observe('listing item fields', Object.keys(item!).sort(), 'query parameters and response shape of the listing: not shown');
  },
});

export const replay = rule({
  id: 'v1.webhooks.deliveries.replay',
  title: 'Replaying a delivery re-sends the same event_id with a valid signature, so receivers stay idempotent',
  level: 'required',
  activeOnly: "calls the replay operation the profile names and waits for the replayed delivery at apicert's receiver",
  needs: { fixtures: ['webhooks.replay'] },
  spec: { section: SECTION, quote: 'Path and payload of the delivery replay operation: not shown. Replay exists and must stay idempotent.' },
  async check(ctx: CheckContext) {
    const operation = ctx.profile.fixtures.webhooks.replay;
    if (!operation) ctx.untestable({ need: 'fixture', path: 'webhooks.replay', remedy: 'give the method and path of the replay operation, e.g. { method: POST, path: "/v1/webhook-deliveries/{delivery_id}/replay" }' });
    const hook = await sharedHook(ctx);
    const runId = await startRun(ctx, 'completes');
    const { deliveries, terminal } = await untilTerminal(ctx, hook, runId);
    if (!terminal) ctx.untestable({ need: 'receiver', remedy: `no terminal delivery for run ${runId} reached it, so there is nothing to replay` });
    const original = deliveries.find(isTerminal)!;
    const eventId = eventIdOf(original) ?? '';
    // Whether the listing names runs is the listing rule's verdict: the item is found by event and endpoint.
    const { item, more, sure } = await ownDelivery(ctx, hook, runId, eventId);
    const deliveryId = item ? ownId(item, 'delivery') : undefined;
    if (operation.path.includes('{delivery_id}') && deliveryId === undefined) {
      ctx.inconclusive(`the delivery listing shows no id (id, delivery_id or deliveryId) for event ${eventId} of run ${runId}${item ? '' : more ? `: no page apicert read holds it, and more may follow: ${more}` : ': no item holds it'}`);
    }
    const path = operation.path.replaceAll('{delivery_id}', encodeURIComponent(String(deliveryId))).replaceAll('{event_id}', encodeURIComponent(eventId));
    const before = hook.endpoint.deliveries.length;
    const res = await ctx.http.send({ method: operation.method, path, credential: registrar(ctx), headers: { 'idempotency-key': newKey() }, label: 'replay the terminal delivery' });
    ctx.check(res.status >= 200 && res.status < 300, `the replay answered ${res.status}, expected 2xx`);
    const timeout = ctx.profile.fixtures.webhooks.deliveryTimeoutMs;
    const replayedOf = (ds: readonly ReceivedDelivery[]) => ofRun(ds.slice(before), runId).filter(isTerminal);
    const arrived = await hook.endpoint.waitFor((ds) => replayedOf(ds).length > 0, timeout);
    const replayed = replayedOf(keptDeliveries(ctx, hook.endpoint, runId));
    recordDeliveries(ctx, hook.endpoint, [original, ...replayed]);
    // An item not known to be this endpoint's may have been replayed, correctly, to another endpoint.
    if (!arrived && !sure) ctx.untestable(noEndpointId(eventId, `the one listing item apicert found for event ${eventId} was replayed, but no replayed delivery reached the receiver within ${timeout} ms, and that item may be another endpoint's`));
    ctx.check(arrived, `no replayed delivery of run ${runId}'s terminal event reached the receiver within ${timeout} ms`);
    const originalSigned = await macMatches(original, hook.secret);
    for (const d of replayed) {
      ctx.check(eventIdOf(d) === eventId, `the replay carries event_id ${String(eventIdOf(d))}, not the original ${eventId}: a receiver would repeat the effect`, d);
      if (originalSigned) ctx.check(await macMatches(d, hook.secret), 'the replayed delivery does not carry a valid signature although the original did', d);
    }
    ctx.observe('receiver saw the replay as a duplicate', replayed.map((d) => (d.verification?.ok ? d.verification.duplicate : null)));
    ctx.observe('replay response status', res.status, 'path and payload of the replay operation: not shown');
  },
});

export const deadLetter = rule({
  id: 'v1.webhooks.deliveries.dead-letter',
  title: 'Retry schedule and dead-letter of a delivery that always fails (recorded, not judged)',
  level: 'observation',
  activeOnly: 'an observation of retries of a delivery apicert keeps failing, over time',
  spec: { section: 'Events > Webhooks', quote: 'Retry schedule, dead-letter rules and replay parameters: not shown.' },
  async check(ctx: CheckContext) {
    // Its own endpoint: one failing every attempt until the sender gives up may be paused or disabled whole (dead-letter rules: not shown), which must cost the shared endpoint nothing.
    const hook = await setupHook(ctx, { respond: () => ({ status: 500 }) });
    const runId = await startRun(ctx, 'completes');
    const wait = ctx.profile.fixtures.webhooks.deadLetterWaitMs;
    const arrived = await hook.endpoint.waitFor((ds) => ofRun(ds, runId).some(isTerminal), Math.min(wait, ctx.profile.fixtures.webhooks.deliveryTimeoutMs));
    if (!arrived) ctx.untestable({ need: 'receiver', remedy: `no terminal delivery for run ${runId} reached it` });
    const key = eventIdOf(ofRun(keptDeliveries(ctx, hook.endpoint, runId), runId).find(isTerminal)!);
    const started = performance.now();
    let status: unknown;
    // Poll the listing until the target reports a dead-letter-like status or the wait ends.
    while (performance.now() - started < wait) {
      await ctx.sleep(Math.min(1_000, wait));
      const { item } = await findDelivery(ctx, runId, [key, hook.endpointId]);
      status = item?.status;
      if (typeof status === 'string' && /dead|exhaust|abandon|failed/i.test(status)) break;
    }
    const attempts = keptDeliveries(ctx, hook.endpoint, runId).filter((d) => eventIdOf(d) === key);
    recordDeliveries(ctx, hook.endpoint, attempts);
    ctx.expect(attempts.length >= 1, 'the failing delivery reached the receiver');
    ctx.observe('attempts of an always-failing delivery', attempts.length, `within ${wait} ms`);
    ctx.observe('delays between attempts (ms)', attempts.slice(1).map((d, i) => d.receivedAt - attempts[i]!.receivedAt));
    ctx.observe('listing status after the attempts', status ?? null);
  },
});
