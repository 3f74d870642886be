/** Resources > Run, usage and webhook endpoint records; Authentication: registering an endpoint. */
import { type CheckContext, type Exchange, section } from '../../../rule/index.ts';
import { webhookCreated, webhookRegistration } from '../../../contract/v1/webhooks.ts';
import { exchangesOf, issuesOf, onSurface, operation, parsedAs, recordOf, requestJson, responseJson, wholeBody } from '../../../traffic/read.ts';
import { FULL_SCOPES } from '../support/fabric.ts';
import { callerOf, limiterRefused, registrations, RoomRefusals, testReceiverUrl } from '../support/traffic.ts';
import { canonicalJson, isRecord } from '../../../util/json.ts';
import { type ReceiverEndpoint, WEBHOOK_RECEIVER } from '../../../webhooks/receiver.ts';
import { SIGNING_SECRET_MARKER } from '../../../webhooks/signature.ts';
import { DELIVERIES, holdingOnly, keptDeliveries, needRoom, ofRun, ownId, publicUrl, receiverOf, registerWebhook, registrar, startRun, typeOf, WEBHOOKS } from './support.ts';
import { sharedHook } from './shared.ts';
import { MARKER_START } from '../../../redact/redactor.ts';
import { setupSent } from '../support/limiter.ts';
import { sentAsData } from '../../../traffic/secrets.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md' });

const SECTION = 'Resources and their fields > Run, usage and webhook endpoint records';

export const registerCreated = rule({
  id: 'v1.webhooks.register.created',
  title: 'Registering a public HTTPS endpoint answers 201 with a signing_secret',
  level: 'required',
  needs: { credentials: ['v1:registrar'] },
  spec: { section: SECTION, quote: 'The request allows extra properties. … The creation response (HTTP `201`) returns `signing_secret` exactly once, at creation.' },
  judgement: {
    // Whatever members beside url it carries: "The request allows extra properties."
    record: "a POST /v1/webhooks registering a URL for the first time (extra members included), by a caller holding runs:read and runs:write: answered 201 when the URL is known to be public (on the profile's receiver, fixtures.webhooks.publicReceiverUrl, or differing from a registration accepted for the caller before only in its URL's path and in members the description does not name) or when it was answered 2xx at all (a refusal of another URL is open), with a signing_secret",
    judge(j) {
      const seen = new Set<string>();
      const acceptedTwins = new Set<string>();
      let judged = false;
      const room = new RoomRefusals();
      registrations(j, (ex, url) => {
        // A refusal for room (a cap the description leaves open) says nothing of this URL: not judged, and not its first registration.
        if (room.passOver(ex)) return;
        const scope = `${callerOf(ex)}\n${url}`;
        const first = !seen.has(scope);
        seen.add(scope);
        // What a second registration of one URL answers is not shown.
        if (!first) return;
        // Only the receiver the profile vouches for is known public: any other name may resolve into a private
        // network (localtest.me, the nip.io names), which a deployment may refuse at registration ("Rejected: ...
        // private networks"), so its refusal is open. But a registration answered 2xx created the endpoint,
        // whatever URL it named: "The creation response (HTTP `201`)" is that answer, with the secret.
        const served = ex.status !== undefined && ex.status >= 200 && ex.status < 300;
        // A registration that differs from one the deployment accepted for this caller only in the letters and digits of its URL's
        // path and in members the description does not name cannot be refused for its URL or named members: only for the extra ones.
        const twin = twinKey(ex, url);
        const twinAccepted = twin !== undefined && acceptedTwins.has(twin);
        if (served && twin !== undefined) acceptedTwins.add(twin);
        if (!testReceiverUrl(j, url) && !twinAccepted && !served) return;
        judged = true;
        if (!j.check(ex, ex.status === 201, `registering ${url} answered ${ex.status}, expected 201`)) return;
        if (wholeBody(j, ex) === undefined) return;
        const parsed = parsedAs(webhookCreated, responseJson(ex));
        j.check(ex, parsed.success, `the registration response does not carry a signing_secret (${parsed.success ? '' : issuesOf(parsed.error)})`);
      });
      room.settle(j, judged);
    },
  },
  async provoke(ctx: CheckContext) {
    // apicert's own receiver, when the run has one, is a URL known public; else a public-looking name, whose 201 (if any) is judged.
    // A fresh URL of its own, not the shared endpoint: the judgement judges a URL's first registration.
    const receiver = ctx.service(WEBHOOK_RECEIVER);
    const url = receiver ? receiver.endpoint().url : publicUrl();
    const res = await registerWebhook(ctx, { url, description: 'apicert registration probe' }, receiver ? "register the receiver's public https endpoint" : 'register a public-looking https endpoint');
    if (isRecord(res.json)) ctx.observe('fields of the creation response', Object.keys(res.json).sort(), 'the seed shows only signing_secret');
    // "The request allows extra properties": a member the description never names, on another fresh URL.
    const other = receiver ? receiver.endpoint().url : publicUrl();
    await registerWebhook(ctx, { url: other, description: 'apicert registration probe', apicert_extra: { note: 'the registration request allows extra properties' } }, 'register with a member the description does not name');
  },
});

export const registerScopes = rule({
  id: 'v1.webhooks.register.scopes-403',
  title: 'A key holding only runs:read, or only runs:write, cannot register an endpoint (refused as authorization_failed or entitlement_failed; the status is recorded)',
  level: 'required',
  needs: { credentials: ['v1:holding-only:runs:read', 'v1:holding-only:runs:write'] },
  spec: { section: 'Authentication', quote: 'Creating or changing a webhook endpoint needs a key holding both `runs:read` and `runs:write`.' },
  judgement: {
    record: 'a POST /v1/webhooks by an unexpired key the profile says lacks runs:read or runs:write',
    judge(j) {
      for (const ex of exchangesOf(j.exchanges, 'v1.webhooks.create')) {
        if (operation(ex) !== 'v1.webhooks.create' || ex.status === undefined || limiterRefused(ex)) continue;
        if (!parsedAs(webhookRegistration, requestJson(ex)).success) continue;
        // Which scopes a key holds is not in the traffic: the profile says (untestable without one).
        const key = j.credentialOf(ex);
        if (!key || key.expired || !key.surfaces.includes('v1') || FULL_SCOPES.every((s) => key.scopes.includes(s))) continue;
        // "Mapping of each `code` to an HTTP status: not shown", and RFC 6750 gives 403 for insufficient_scope only
        // as a SHOULD: the refusal and its code are judged, the status recorded.
        if (!j.check(ex, ex.status >= 400 && ex.status < 500, `registration with a key holding [${key.scopes.join(', ')}] answered ${ex.status}, expected a refusal with code authorization_failed or entitlement_failed`)) continue;
        if (wholeBody(j, ex) === undefined) continue;
        // "Related errors: `authentication_failed`, `authorization_failed`, `entitlement_failed`." names no code
        // for a missing scope: either refusal of a valid key is a reading; which one is recorded.
        const code = recordOf(responseJson(ex))?.code;
        j.check(ex, code === 'authorization_failed' || code === 'entitlement_failed', `registration with a key holding [${key.scopes.join(', ')}] was refused with code ${JSON.stringify(code)}, expected authorization_failed or entitlement_failed`);
        j.observe(`refusal of a registration with [${key.scopes.join(', ')}]`, { status: ex.status, code: code ?? null });
      }
    },
  },
  async provoke(ctx: CheckContext) {
    for (const scope of ['runs:read', 'runs:write'] as const) {
      await registerWebhook(ctx, { url: publicUrl() }, `register with a key holding only ${scope}`, holdingOnly(ctx, scope));
    }
  },
});

export const secretOnce = rule({
  id: 'v1.webhooks.register.secret-once',
  title: 'The signing_secret never appears again: not on re-registration, readback, listings or errors',
  level: 'required',
  needs: { credentials: ['v1:holding-only:runs:read', 'v1:registrar'] },
  spec: { section: SECTION, quote: 'The creation response (HTTP `201`) returns `signing_secret` exactly once, at creation.' },
  judgement: {
    record: 'a POST /v1/webhooks answered with a signing_secret, and /v1 answers after it',
    judge(j) {
      // Each secret's case text is written once: every later /v1 answer is a case of every secret before it.
      const issued: Array<{ secret: string; reason: string; also: Exchange[] }> = [];
      // What every secret issued so far begins with: an answer that holds it nowhere holds none of them
      // (one search instead of one per secret; a recorder's numbered markers share most of their text).
      let shared = '';
      for (const ex of j.exchanges) {
        if (!onSurface(ex, 'v1') || ex.status === undefined) continue;
        if (issued.length > 0) {
          const parts = [ex.responseBody ?? '', ...Object.values(ex.responseHeaders)];
          const none = !parts.some((p) => p.includes(shared));
          // A secret this request sent as data (a client pasted it into a description) and its answer repeats is the client's text coming back, not the secret shown again.
          for (const { secret, reason, also } of issued) j.check(ex, none || !parts.some((p) => p.includes(secret)) || sentAsData(ex, secret), reason, also);
        }
        if (operation(ex) !== 'v1.webhooks.create' || ex.status < 200 || ex.status >= 300) continue;
        const secret = recordOf(responseJson(ex))?.signing_secret;
        if (typeof secret !== 'string' || secret.length === 0) continue;
        // A recorder that hid it behind a marker every hidden secret shares left nothing to follow; apicert's own
        // recordings number each hidden secret, so its marker is followed like the secret.
        if (secret.includes(MARKER_START) && !secret.startsWith(SIGNING_SECRET_MARKER)) j.lacks(ex, 'the signing_secret: the recorder hid it behind a marker every hidden secret shares');
        else if (issued.length < 1_000) {
          shared = issued.length === 0 ? secret : commonPrefix(shared, secret);
          issued.push({ secret, reason: `the answer carries the signing_secret that exchange #${ex.index} returned at creation`, also: [ex] });
        }
      }
    },
  },
  async provoke(ctx: CheckContext) {
    // An endpoint of its own: the secret is shown once, at the creation this rule must see, then followed through what comes after.
    const url = publicUrl();
    const first = await setupSent(ctx, 'the registration', () => registerWebhook(ctx, { url }, 'register an endpoint'));
    needRoom(ctx, first);
    const created = isRecord(first.json) ? first.json : {};
    // The 201 and its signing_secret are v1.webhooks.register.created's to judge; this rule follows any secret a creation issued (judge above).
    if (first.status < 200 || first.status >= 300) ctx.inconclusive(`setup failed: registration answered ${first.status}, so no signing_secret was issued to follow (v1.webhooks.register.created judges the 201)`);
    if (typeof created.signing_secret !== 'string' || created.signing_secret.length === 0) ctx.inconclusive(`setup failed: registration answered ${first.status} without a signing_secret (v1.webhooks.register.created judges that)`);
    const id = ownId(created, 'endpoint');
    await registerWebhook(ctx, { url }, 'register the same URL again');
    await registerWebhook(ctx, { url: 'http://hooks.example.com/not-https' }, 'an error response (http URL)');
    await registerWebhook(ctx, { url }, 'an error response (key without runs:write)', holdingOnly(ctx, 'runs:read'));
    await ctx.http.send({ method: 'GET', path: WEBHOOKS, credential: registrar(ctx), label: 'list endpoints (if the target has a listing)' });
    await ctx.http.send({ method: 'GET', path: DELIVERIES, credential: registrar(ctx), label: 'list deliveries' });
    if (id) await ctx.http.send({ method: 'GET', path: `${WEBHOOKS}/${encodeURIComponent(id)}`, credential: registrar(ctx), label: 'read the endpoint back (if the target has a readback)' });
  },
});

/** What a registration's acceptance may depend on but extra members and the letters and digits of its URL's path: caller, the rest of the URL, and the named members; undefined for a URL that is none. */
function twinKey(ex: Exchange, url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  // Everything of the URL but its path's letters and digits: userinfo, host, port, query, fragment and the path's punctuation all stay.
  parsed.pathname = parsed.pathname.replace(/[A-Za-z0-9]/g, 'a');
  const body = recordOf(requestJson(ex)) ?? {};
  const named = canonicalJson({ description: body.description, event_types: body.event_types, events: body.events });
  return [callerOf(ex), parsed.href, named].join('\n');
}

function commonPrefix(a: string, b: string): string {
  let n = 0;
  while (n < a.length && n < b.length && a.charCodeAt(n) === b.charCodeAt(n)) n += 1;
  return a.slice(0, n);
}

export const filterField = rule({
  id: 'v1.webhooks.register.filter-field',
  title: 'Which filter field the target honours: event_types (used in practice) or events (reference schema)',
  level: 'observation',
  activeOnly: "an observation of which filter field is honoured, seen at apicert's own receiver",
  needs: { credentials: ['v1:registrar'], fixtures: ['webhooks.runs.completes'], receiver: true },
  spec: {
    section: SECTION,
    quote: '`event_types` (array of string), `description` (string). The reference schema lists the filter as `events` (array of string; omitted presumably means all)',
  },
  async check(ctx: CheckContext) {
    // The unfiltered control is the run's shared endpoint; each filter needs an endpoint of its own, registered with it.
    const control = await sharedHook(ctx);
    const receiver = receiverOf(ctx);
    const filtered: Record<'event_types' | 'events', ReceiverEndpoint> = { event_types: receiver.endpoint(), events: receiver.endpoint() };
    for (const [field, endpoint] of Object.entries(filtered)) {
      const res = await registerWebhook(ctx, { url: endpoint.url, [field]: ['run.failed'] }, `register with ${field} [run.failed]`);
      needRoom(ctx, res);
      ctx.check(res.status === 201, `registration with ${field} answered ${res.status}; the request allows extra properties, so either filter name must be accepted`);
    }
    const runId = await startRun(ctx, 'completes');
    const timeout = ctx.profile.fixtures.webhooks.deliveryTimeoutMs;
    const arrived = await control.endpoint.waitFor((ds) => ofRun(ds, runId).some((d) => typeOf(d) === 'run.completed'), timeout);
    if (!arrived) ctx.inconclusive(`the unfiltered endpoint received no run.completed for run ${runId} within ${timeout} ms`);
    // Deliveries to the three endpoints leave together; a short grace lets filtered-out ones show up if they were sent.
    await ctx.sleep(1_000);
    const honoured = (endpoint: ReceiverEndpoint) => !ofRun(keptDeliveries(ctx, endpoint, runId), runId).some((d) => typeOf(d) !== 'run.failed');
    ctx.observe('event_types honoured', honoured(filtered.event_types), 'an endpoint registered with event_types [run.failed] received no other event of a completed run');
    ctx.observe('events honoured', honoured(filtered.events), 'an endpoint registered with events [run.failed] received no other event of a completed run');
    ctx.observe('event types delivered without a filter', [...new Set(ofRun(keptDeliveries(ctx, control.endpoint, runId), runId).map(typeOf))], 'the seed names only run.completed and run.failed');
  },
});
