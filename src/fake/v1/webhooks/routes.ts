/**
 * /v1 webhooks on the fake:
 * - `POST /v1/webhooks` (runs:read + runs:write): registers an endpoint, 201 with `signing_secret` once;
 * - `GET /v1/webhooks/{id}` (runs:read): readback, never with the secret;
 * - `GET /v1/webhook-deliveries` (runs:read): `{ data: [...] }`, newest first, filters
 *   `endpoint_id`, `run_id`, `event_id`, `status`, `limit` (1-500, default 100); under
 *   `v1.webhooks/paged-listing`, oldest first in small pages with Link and body links, filters ignored;
 * - `POST /v1/webhook-deliveries/{id}/replay` (runs:read + runs:write): 202, re-sends the event with
 *   the same `event_id`; replaying again sends it again, and the receiver's deduplication keeps the
 *   effect single, which is what "replay must stay idempotent" asks.
 */
import { webhookRegistration, type WebhookRegistration } from '../../../contract/v1/webhooks.ts';
import type { FakeCaller } from '../../auth.ts';
import { keylessRegistrar } from '../auth.ts';
import type { FakeContext } from '../../context.ts';
import { isRecord, parseJson } from '../../../util/json.ts';
import type { Route, RouteRequest } from '../../http.ts';
import { withExtraProperties } from '../../support/extra-properties.ts';
import { allowHeaders } from '../contract.ts';
import { V1Responder } from '../respond.ts';
import { WebhookEngine, type Delivery, type WebhookEndpoint } from './engine.ts';
import { refuseUrl } from './url-rules.ts';
import { frameworkNotFound } from '../contract/http-layer.ts';

const BOTH = ['runs:read', 'runs:write'] as const;

/** Endpoint and delivery ids as the wire shows them: strings, or (`v1.webhooks/integer-ids`) JSON integers. */
function idValue(fake: FakeContext, id: string | undefined): string | number | undefined {
  return id !== undefined && fake.variants.has('v1.webhooks/integer-ids') ? Number(id) : id;
}

function endpointView(fake: FakeContext, e: WebhookEndpoint): Record<string, unknown> {
  const filter = fake.variants.has('v1.webhooks/events-filter') ? 'events' : 'event_types';
  const view: Record<string, unknown> = { id: idValue(fake, e.id), url: e.url, [filter]: e.eventTypes, created_at: e.createdAt };
  if (e.description !== undefined) view.description = e.description;
  return fake.variants.has('v1.webhooks/extra-properties') ? withExtraProperties(view) : view;
}

/** A listing item in the fake's snake_case, or (`v1.webhooks/listing-camel-case`) in camelCase with the endpoint nested. */
function deliveryFields(fake: FakeContext, d: Delivery): Record<string, unknown> {
  const camel = fake.variants.has('v1.webhooks/listing-camel-case');
  const eventId = fake.variants.has('v1.webhooks/integer-event-ids') ? Number(d.eventId) : d.eventId;
  const view: Record<string, unknown> = camel
    ? { deliveryId: idValue(fake, d.id), endpoint: { endpointId: idValue(fake, d.endpointId) }, runId: d.runId, eventId, eventType: d.eventType }
    : { id: idValue(fake, d.id), endpoint_id: idValue(fake, d.endpointId), run_id: d.runId, event_id: eventId, event_type: d.eventType };
  Object.assign(view, { sequence: d.sequence, status: d.status, attempts: d.attempts.length, [camel ? 'createdAt' : 'created_at']: d.createdAt });
  const last = d.attempts.at(-1);
  if (last) view[camel ? 'lastAttempt' : 'last_attempt'] = last;
  if (d.replayOf) view[camel ? 'replayOf' : 'replay_of'] = idValue(fake, d.replayOf);
  if (fake.faults.has('v1.webhooks.deliveries.listing/no-run-id')) delete view[camel ? 'runId' : 'run_id'];
  return view;
}

function deliveryView(fake: FakeContext, d: Delivery): Record<string, unknown> {
  const view = deliveryFields(fake, d);
  return fake.variants.has('v1.webhooks/extra-properties') ? withExtraProperties(view) : view;
}

/** The listing's shape is not shown: `{data, has_more}`, a bare array, or `{items, page}`. */
function listingBody(fake: FakeContext, items: Record<string, unknown>[], hasMore: boolean): unknown {
  if (fake.variants.has('v1.webhooks/listing-array')) return items;
  const body = fake.variants.has('v1.webhooks/listing-camel-case') ? { items, page: { hasMore, size: items.length } } : { data: items, has_more: hasMore };
  // Items carry their extras already; adding again changes nothing in them and opens the wrapper too.
  return fake.variants.has('v1.webhooks/extra-properties') ? withExtraProperties(body) : body;
}

interface WebhookSurface {
  fake: FakeContext;
  v1: V1Responder;
  engine: WebhookEngine;
  registerScopes: readonly string[];
}

/**
 * The members the fake validates: under `v1.webhooks/events-filter` only `events` is the filter, and
 * `event_types` an extra property the request allows, so its value is never judged (`event_types: 5` is taken).
 */
function readFields(fake: FakeContext, value: unknown): unknown {
  const read = anyDescription(fake, value);
  if (!fake.variants.has('v1.webhooks/events-filter') || !isRecord(read) || !('event_types' in read)) return read;
  const { event_types: _extra, ...rest } = read;
  return rest;
}

/** Under `v1.webhooks/description-any-type` a description that is no string is taken, unread: a label the fake need not interpret. */
function anyDescription(fake: FakeContext, value: unknown): unknown {
  if (!fake.variants.has('v1.webhooks/description-any-type') || !isRecord(value) || !('description' in value) || typeof value.description === 'string') return value;
  const { description: _label, ...rest } = value;
  return rest;
}

/** The registration body, validated with its URL judged; answers 400 itself and returns undefined when refused. */
async function registration({ fake, v1 }: WebhookSurface, r: RouteRequest): Promise<WebhookRegistration | undefined> {
  const parsed = parseJson(await r.body());
  if (!parsed.ok) {
    v1.problem(r.res, 400, 'invalid_request', { detail: 'The request body is not valid JSON.', retryable: false });
    return undefined;
  }
  const body = webhookRegistration.safeParse(readFields(fake, parsed.value));
  if (!body.success) {
    const fieldErrors = body.error.issues.slice(0, 64).map((i) => ({ path: i.path.join('.') || '(root)', code: 'invalid', message: i.message.slice(0, 512) }));
    v1.problem(r.res, 400, 'invalid_request', { detail: 'The webhook registration is invalid: send { url, event_types?, description? }.', retryable: false, fieldErrors });
    return undefined;
  }
  const extra = Object.keys(body.data).filter((k) => !['url', 'event_types', 'events', 'description'].includes(k));
  if (extra.length > 0 && fake.faults.has('v1.webhooks.register.created/extra-refused')) {
    v1.problem(r.res, 400, 'invalid_request', { detail: `Unknown member(s): ${extra.join(', ')}.`, retryable: false });
    return undefined;
  }
  const refused = refuseUrl(fake, body.data.url);
  if (refused) {
    v1.problem(r.res, 400, 'invalid_request', { detail: refused.message, retryable: false, fieldErrors: [{ path: 'url', code: refused.code, message: refused.message }] });
    return undefined;
  }
  return body.data;
}

/**
 * The registrar: a key holding the scopes registration needs. "Related errors: `authentication_failed`,
 * `authorization_failed`, `entitlement_failed`." names no code for a missing scope: the fake says
 * authorization_failed, and entitlement_failed under the variant.
 */
function registrar({ fake, v1, registerScopes }: WebhookSurface, r: RouteRequest): FakeCaller | undefined {
  const caller = keylessRegistrar(fake, r) ?? v1.authorize(r, []);
  if (!caller) return undefined;
  const missing = registerScopes.filter((s) => !caller.scopes.has(s));
  if (missing.length === 0) return caller;
  const code = fake.variants.has('v1.webhooks/scope-entitlement-failed') ? 'entitlement_failed' : 'authorization_failed';
  v1.problem(r.res, 403, code, { detail: `Registering an endpoint needs the scope(s) ${missing.join(', ')}.`, retryable: false });
  return undefined;
}

/**
 * Live endpoints a tenant may hold under `v1.webhooks/registration-cap`. A full certify run registers
 * eight in the webhook tenant (src/checks/v1/webhooks/shared.ts): seven let most rules register, and
 * the eighth is refused, so the run shows the rules a cap leaves untestable.
 */
export const REGISTRATION_CAP = 7;

/**
 * "Mapping of each `code` to an HTTP status: not shown." and the description sets no number of
 * endpoints: under the variant a tenant holding `REGISTRATION_CAP` endpoints is refused the next
 * with 403 `entitlement_failed`, checked before the body is read (whatever its URL), as a plan's
 * quota is. No operation removes an endpoint, so the room never comes back.
 */
function overCap({ fake, v1, engine }: WebhookSurface, r: RouteRequest, tenant: string): boolean {
  if (!fake.variants.has('v1.webhooks/registration-cap')) return false;
  const held = [...engine.endpoints.values()].filter((e) => e.tenant === tenant).length;
  if (held < REGISTRATION_CAP) return false;
  v1.problem(r.res, 403, 'entitlement_failed', { detail: `This tenant's plan allows ${REGISTRATION_CAP} webhook endpoints and holds ${held}.`, retryable: false });
  return true;
}

async function register(surface: WebhookSurface, r: RouteRequest): Promise<void> {
  const { fake, v1, engine } = surface;
  const caller = registrar(surface, r);
  if (!caller || overCap(surface, r, caller.tenant)) return;
  const body = await registration(surface, r);
  if (!body) return;
  if (fake.faults.has('v1.webhooks.register.secret-once/shown-twice')) {
    const existing = [...engine.endpoints.values()].find((e) => e.tenant === caller.tenant && e.url === body.url);
    if (existing) {
      v1.json(r.res, 201, { ...endpointView(fake, existing), signing_secret: existing.secret });
      return;
    }
  }
  // Both names of the filter are honoured; `event_types` (the name used in practice) wins when both are sent.
  // Under the variant only the reference schema's `events` is read, and `event_types` is just an extra property.
  const eventTypes = fake.variants.has('v1.webhooks/events-filter') ? undefined : body.event_types;
  const filterField = eventTypes ? 'event_types' : body.events ? 'events' : null;
  const endpoint = engine.register({
    tenant: caller.tenant,
    principal: caller.principal,
    url: body.url,
    eventTypes: eventTypes ?? body.events ?? null,
    filterField,
    ...(body.description !== undefined ? { description: body.description } : {}),
  });
  // "Fields of the registered endpoint record beyond `signing_secret`: not shown.": under the variant the 201 names no id either.
  const created: Record<string, unknown> = fake.variants.has('v1.webhooks/secret-only-creation') ? { signing_secret: endpoint.secret } : { ...endpointView(fake, endpoint), signing_secret: endpoint.secret };
  if (fake.faults.has('v1.webhooks.register.created/no-secret')) delete created.signing_secret;
  v1.json(r.res, fake.faults.has('v1.webhooks.register.created/answers-200') ? 200 : 201, created);
}

function readback({ fake, v1, engine }: WebhookSurface, r: RouteRequest): void {
  const caller = v1.authorize(r, ['runs:read']);
  if (!caller) return;
  const endpoint = engine.endpoints.get(r.params[0]!);
  if (!endpoint || endpoint.tenant !== caller.tenant) {
    v1.problem(r.res, 404, 'invalid_request', { detail: 'No webhook endpoint with this id.', retryable: false });
    return;
  }
  v1.json(r.res, 200, endpointView(fake, endpoint));
}

/** `GET /v1/webhooks`: a method the description does not list; served only under `v1.webhooks/endpoint-listing`, else 405 like any other. */
function listEndpoints({ fake, v1, engine }: WebhookSurface, r: RouteRequest): void {
  if (!fake.variants.has('v1.webhooks/endpoint-listing')) {
    // No route takes it: a framework's own not-found answer where a variant says so, else the 405 of any unlisted method.
    if (frameworkNotFound(fake, r.res, r.req.method ?? 'GET', r.path)) return;
    v1.problem(r.res, 405, 'invalid_request', { detail: 'This path does not accept this method.', retryable: false, headers: allowHeaders(fake, ['POST']) });
    return;
  }
  const caller = v1.authorize(r, ['runs:read']);
  if (!caller) return;
  v1.json(r.res, 200, { data: [...engine.endpoints.values()].filter((e) => e.tenant === caller.tenant).map((e) => endpointView(fake, e)) });
}

/**
 * Items a page of `v1.webhooks/paged-listing` holds. Every run event goes to every endpoint of the
 * tenant, and a clean run registers many, so a run's deliveries lie a few pages from the newest end
 * of roughly twenty: deep enough that reading from the oldest end alone cannot reach them.
 */
const PAGE_ITEMS = 50;

/**
 * `v1.webhooks/paged-listing`: oldest first, `PAGE_ITEMS` a page (`?page=N`), every filter ignored;
 * the other pages are named by an RFC 8288 `Link` header of absolute URLs (rel next, prev, last)
 * and by paths in the body (`next`, `prev`, `last`; `links: {...}` in camelCase), null where none.
 */
function pagedListing({ fake, v1, engine }: WebhookSurface, r: RouteRequest, tenant: string): void {
  const all = [...engine.deliveries.values()].filter((d) => d.tenant === tenant);
  const lastPage = Math.max(1, Math.ceil(all.length / PAGE_ITEMS));
  const asked = r.query.get('page');
  const page = asked === null ? 1 : Number(asked);
  if (!Number.isInteger(page) || page < 1 || page > lastPage) {
    v1.problem(r.res, 400, 'invalid_request', { detail: `page is an integer from 1 to ${lastPage}: take it from a link of the listing.`, retryable: false, fieldErrors: [{ path: 'page', code: 'out_of_range', message: `page is an integer from 1 to ${lastPage}` }] });
    return;
  }
  const items = all.slice((page - 1) * PAGE_ITEMS, page * PAGE_ITEMS).map((d) => deliveryView(fake, d));
  const pathOf = (n: number) => `/v1/webhook-deliveries?page=${n}`;
  const links = { next: page < lastPage ? pathOf(page + 1) : null, prev: page > 1 ? pathOf(page - 1) : null, last: pathOf(lastPage) };
  const body = listingBody(fake, items, page < lastPage);
  if (isRecord(body)) {
    if (fake.variants.has('v1.webhooks/listing-camel-case')) body.links = links;
    else Object.assign(body, links);
  }
  const host = r.header('host');
  const header = Object.entries(links).flatMap(([rel, path]) => (path !== null && host ? [`<http://${host}${path}>; rel="${rel}"`] : []));
  v1.json(r.res, 200, body, header.length > 0 ? { link: header.join(', ') } : {});
}

function listDeliveries(surface: WebhookSurface, r: RouteRequest): void {
  const { fake, v1, engine } = surface;
  const caller = v1.authorize(r, ['runs:read']);
  if (!caller) return;
  const limitRaw = r.query.get('limit');
  const limit = limitRaw === null ? 100 : Number(limitRaw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) {
    v1.problem(r.res, 400, 'invalid_request', { detail: 'limit is an integer from 1 to 500.', retryable: false, fieldErrors: [{ path: 'limit', code: 'out_of_range', message: 'limit is an integer from 1 to 500' }] });
    return;
  }
  if (fake.variants.has('v1.webhooks/paged-listing')) {
    pagedListing(surface, r, caller.tenant);
    return;
  }
  const filters = { endpointId: r.query.get('endpoint_id'), runId: r.query.get('run_id'), eventId: r.query.get('event_id'), status: r.query.get('status') };
  const matching = [...engine.deliveries.values()]
    .reverse()
    .filter(
      (d) =>
        d.tenant === caller.tenant &&
        (!filters.endpointId || d.endpointId === filters.endpointId) &&
        (!filters.runId || d.runId === filters.runId) &&
        (!filters.eventId || d.eventId === filters.eventId) &&
        (!filters.status || d.status === filters.status),
    );
  v1.json(r.res, 200, listingBody(fake, matching.slice(0, limit).map((d) => deliveryView(fake, d)), matching.length > limit));
}

function replay({ fake, v1, engine }: WebhookSurface, r: RouteRequest): void {
  const caller = v1.authorize(r, BOTH);
  if (!caller) return;
  const original = engine.deliveries.get(r.params[0]!);
  if (!original || original.tenant !== caller.tenant) {
    v1.problem(r.res, 404, 'invalid_request', { detail: 'No delivery with this id: take one from GET /v1/webhook-deliveries.', retryable: false });
    return;
  }
  const replayed = engine.replay(original);
  v1.json(r.res, 202, deliveryView(fake, replayed));
}

export function webhookRoutes(fake: FakeContext): Route[] {
  const registerScopes = fake.faults.has('v1.webhooks.register.scopes-403/write-only-accepted') ? ['runs:write'] : BOTH;
  const surface: WebhookSurface = { fake, v1: new V1Responder(fake), engine: new WebhookEngine(fake), registerScopes };
  return [
    { method: 'POST', pattern: /^\/v1\/webhooks$/, handler: (r) => register(surface, r) },
    { method: 'GET', pattern: /^\/v1\/webhooks\/([^/]+)$/, handler: (r) => readback(surface, r) },
    { method: 'GET', pattern: /^\/v1\/webhooks$/, handler: (r) => listEndpoints(surface, r) },
    { method: 'GET', pattern: /^\/v1\/webhook-deliveries$/, handler: (r) => listDeliveries(surface, r) },
    { method: 'POST', pattern: /^\/v1\/webhook-deliveries\/([^/]+)\/replay$/, handler: (r) => replay(surface, r) },
  ];
}
