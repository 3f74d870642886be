/**
 * The catalogue's run on one surface, sent once per certification and shared by the surface's
 * catalogue rules (one per aspect of the one judgement, `judgeAnswer`). Each case's expectation is
 * computed from the request as sent (`expectationOf`), or stated by its operator from a sentence.
 */
import { gunzipSync } from 'node:zlib';
import { ENDPOINTS, type EndpointSurface } from '../../contract/endpoints.ts';
import { dechunk } from '../../probe/raw.ts';
import { sentenceText } from '../../contract/sentence.ts';
import { expectationOf, NOTHING_KNOWN, sentOf, type Expectation, type Known, type SentRequest } from '../generated/expectation.ts';
import { judgeAnswer, type Answer, type Aspect, type Judgement } from '../generated/judgement.ts';
import { bodyFixtures, sharedRun } from '../generated/engine.ts';
import { isLimited } from '../generated/oracles.ts';
import { LIMITED_RESENDS, LIMITED_RESENDS_UNTIL_MS, LIMITED_WAIT_MAX_MS, limitedWaitMs, waitFits } from '../shared/limited-wait.ts';
import { Inconclusive, TransportError, type CheckContext, type EvidenceEntry, type Exchange, type ProbeResponse, type RawRequest } from '../../rule/index.ts';
import { mediaTypeOf } from '../../rule/media-type.ts';
import { closeSession, openSession, postMcp, postRaw, safeTool, type McpSession } from '../mcp/support/session.ts';
import { baseRequest, httpCases, mcpCases } from './plan.ts';
import { randomPairs } from './random.ts';
import type { Case, Depth, McpCase, Stated } from './types.ts';
import { toolErrorFinding } from './operators/jsonrpc.ts';

export interface CaseResult {
  c: Pick<Case, 'operator' | 'family' | 'endpoint' | 'label' | 'permits'> & { raw: boolean };
  expectation: Expectation;
  judgement: Judgement;
  evidence: EvidenceEntry;
}

export interface CatalogueRun {
  depth: Depth;
  results: CaseResult[];
  /** Cases the target did not answer (reset, timeout): not judged. */
  unanswered: string[];
  /** Cases a rate limiter answered (429/503) every time they were sent: their rules cannot pass on them. */
  limited: number;
  /** Sends again after a limiter's 429/503, once its wait was over. */
  resent: number;
  /** What was not sent, and why (read-only, budget, a proxy for raw operators). */
  skipped: string[];
  sent: number;
  /** Every exchange the run caused, as the sending check's journal kept them: what each catalogue rule's judgement judges. */
  exchanges: readonly Exchange[];
}

const PARALLEL = 4;
/** Deep depth: random pairs start, and go on, only within this time from the start of the surface's run. */
const PAIRS_UNTIL_MS = 60_000;

// The bounds of waiting out a limiter are shared with the generated probes (src/checks/shared/limited-wait.ts).
export { LIMITED_RESENDS, LIMITED_WAIT_MAX_MS, limitedWaitMs };

/** Sends a case, and again after each limiter's refusal whose wait fits the bounds; the last answer, limited or not. */
async function waitedOut<R>(ctx: CheckContext, run: CatalogueRun, until: number, send: () => Promise<R>, answer: (reply: R) => ProbeResponse): Promise<R> {
  for (let resends = 0; ; resends += 1) {
    const reply = await send();
    const res = answer(reply);
    if (!isLimited(res) || resends >= LIMITED_RESENDS) return reply;
    const wait = limitedWaitMs(res);
    if (!waitFits(wait, until)) return reply;
    run.resent += 1;
    await ctx.sleep(wait);
  }
}

export function depthOf(ctx: CheckContext): Depth {
  return ctx.profile.safety.probeDepth;
}

/** The wire form of a raw request as `expectationOf` reads it: header names lower-cased, the last line of a name winning. */
function sentOfRaw(req: RawRequest): SentRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of req.headers) headers[name.trim().toLowerCase()] = value;
  const body = req.body === undefined ? undefined : decodedBody(Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8'), headers);
  // A credential placed outside the Authorization header is no credential to the descriptions.
  const elsewhere = req.place !== undefined && !('header' in req.place);
  const out: SentRequest = { method: req.method, path: req.target.replace('{origin}', ''), headers, credential: elsewhere ? null : (req.credential?.name ?? null) };
  if (body !== undefined) out.body = body;
  return out;
}

/** The body as the API reads it once the HTTP layer removed the transfer and content codings and the charset. */
export function decodedBody(bytes: Buffer, headers: Readonly<Record<string, string>>): string {
  let out = /chunked/i.test(headers['transfer-encoding'] ?? '') ? dechunk(bytes) : bytes;
  if (/gzip/i.test(headers['content-encoding'] ?? '')) {
    try {
      out = gunzipSync(out);
    } catch {
      // Not gzip after all: the bytes as sent.
    }
  }
  return /charset=utf-16/i.test(headers['content-type'] ?? '') ? out.toString('utf16le').replace(/^\ufeff/, '') : out.toString('utf8');
}

function sentOfCase(c: Case): SentRequest {
  return c.sent.kind === 'raw' ? sentOfRaw(c.sent.request) : sentOf(c.sent.request);
}

/** A stated case carries its sentence; a rewritten one the base's expectation; any other is derived, and open where the operator's change is. */
export function expectationFor(c: Pick<Case, 'stated' | 'same' | 'why' | 'allowedBy' | 'endpoint' | 'operator'>, sent: SentRequest, base: SentRequest | undefined, known: Known): Expectation {
  const constraint = `${c.endpoint} catalogue ${c.operator}`;
  if (c.stated) {
    if (c.stated.kind === 'accept') {
      const out: Expectation = { kind: 'accept', because: c.stated.because, constraint };
      // Sent to its base's endpoint with its base's credential: a scope that endpoint's description does not show stays open alike (`refusedForScope`).
      const derived = base ? expectationOf(base, known) : undefined;
      if (derived?.kind === 'accept' && derived.scopeOpen !== undefined) out.scopeOpen = derived.scopeOpen;
      return out;
    }
    const out: Expectation = { kind: 'refuse', because: c.stated.because, constraint };
    if (c.stated.status !== undefined) out.status = c.stated.status;
    if (c.stated.codes !== undefined) out.codes = c.stated.codes;
    return out;
  }
  if (c.same && base) return { ...expectationOf(base, known), constraint };
  if (c.allowedBy) return { kind: 'open', why: `${c.why ?? 'allowed'} (${sentenceText(c.allowedBy)})`, constraint };
  const derived = expectationOf(sent, known);
  if (derived.kind !== 'refuse') return { kind: 'open', why: c.why ?? 'the descriptions do not state what happens', constraint };
  // The operator's own change may be what gets the request refused, so any refusal will do: the named status no longer decides.
  const { status: _named, codes: _codes, ...refusal } = derived;
  return refusal;
}

/** The request with its header values as RFC 9110 §5.5 reads them: without the whitespace around them (the plain request a padded /mcp case means). */
export function plainValues(sent: SentRequest): SentRequest {
  return { ...sent, headers: Object.fromEntries(Object.entries(sent.headers).map(([k, v]) => [k, v.replace(/^[ \t]+|[ \t]+$/g, '')])) };
}

/** A case's judgement, and the media type of a raw message's 4xx, which the HTTP layer or the API may have written (`(no body)` when bodiless). */
export type CaseJudgement = Judgement & { httpLayer?: string };

/**
 * The one judgement, with what a standard names for this input: a permitted 5xx (501) is no server
 * error, and a raw message's 4xx that is no problem document came from the HTTP layer, before any
 * endpoint the problem+json sentences speak of was reached: Go's net/http writes "400 Bad Request:
 * too many Host headers" as text/plain, nginx its HTML page, Node a bodiless 400, and Fastify's
 * default client-error handler `application/json` `{"error":"Bad Request",...}` for whatever Node's
 * parser refuses (a lower-case method too). Which layer wrote a raw message's refusal is not in the
 * answer, so its media type is recorded, not judged; the requests an HTTP client sends still are.
 */
export function judged(sent: SentRequest, e: Expectation, res: Answer, permits: readonly number[] | undefined, raw: boolean, stated?: Stated): CaseJudgement {
  const j: CaseJudgement = judgeAnswer(sent, e, res);
  if (permits?.includes(res.status)) return { findings: {} };
  const status = j.findings['error-status'];
  if (stated?.orToolError && status) j.findings['error-status'] = toolErrorFinding(sent, e, res, status);
  // MCP: an HTTP error "MAY comprise a JSON-RPC error response that has no id": any body is legal there.
  if (sent.path === '/mcp' && res.status >= 400 && res.status < 500 && j.findings['problem-json'] && !/"error"/.test(res.text)) delete j.findings['problem-json'];
  const layer = raw && res.status >= 400 && res.status < 500 ? httpLayerType(res) : undefined;
  if (layer !== undefined) {
    delete j.findings['problem-json'];
    j.httpLayer = layer;
  }
  return j;
}

/** The media type of a raw message's 4xx as answered (the HTTP layer's or the API's: the answer does not say which). */
function httpLayerType(res: Answer): string {
  if (res.text.trim() === '') return '(no body)';
  return mediaTypeOf(res.contentType) || '(no media type)';
}

async function sendCase(ctx: CheckContext, c: Case): Promise<ProbeResponse> {
  if (c.sent.kind === 'raw') return ctx.http.sendRaw({ ...c.sent.request, label: `catalogue: ${c.operator}: ${c.label}` });
  return ctx.http.send({ ...c.sent.request, label: `catalogue: ${c.operator}: ${c.label}` });
}

function evidenceOf(ctx: CheckContext, res: ProbeResponse): EvidenceEntry {
  const at = ctx.http.exchangeOf(res);
  return ctx.http.evidence[at ?? ctx.http.evidence.length - 1]!;
}

function budgetSpent(error: unknown): boolean {
  return error instanceof Inconclusive && !(error instanceof TransportError) && /request budget/.test(error.message);
}

async function sendHttp(ctx: CheckContext, run: CatalogueRun, cases: readonly Case[], bases: ReadonlyMap<string, SentRequest>, known: Known, resendsUntil: number, until = Infinity): Promise<void> {
  let next = 0;
  let stopped = false;
  const worker = async () => {
    while (next < cases.length && !stopped && performance.now() < until) {
      const c = cases[next++]!;
      run.sent += 1;
      try {
        const res = await waitedOut(ctx, run, resendsUntil, () => sendCase(ctx, c), (r) => r);
        if (isLimited(res)) {
          run.limited += 1;
          continue;
        }
        const sent = sentOfCase(c);
        const e = expectationFor(c, sent, bases.get(c.endpoint), known);
        const raw = c.sent.kind === 'raw';
        run.results.push({ c: { operator: c.operator, family: c.family, endpoint: c.endpoint, label: c.label, raw, ...(c.permits ? { permits: c.permits } : {}) }, expectation: e, judgement: judged(sent, e, res, c.permits, raw), evidence: evidenceOf(ctx, res) });
      } catch (error) {
        if (budgetSpent(error)) stopped = true;
        else if (error instanceof TransportError) run.unanswered.push(`${c.endpoint} ${c.operator} (${c.label}): ${error.message}`);
        else throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  if (next < cases.length) run.skipped.push(`${cases.length - next} case(s): ${stopped ? 'safety.requestBudget used up' : 'the random pairs\' time ran out'}`);
}

/** A streamed answer's messages (batches flattened, as `readReply` reads them) as the text of an event stream, one message an event. */
function streamText(messages: readonly unknown[]): string {
  return messages.map((m) => `data: ${JSON.stringify(m)}\n\n`).join('');
}

function mcpSent(c: McpCase, session: McpSession): SentRequest {
  const id = c.session === undefined ? session.id : (c.session ?? undefined);
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...c.headers };
  if (id !== undefined) headers['mcp-session-id'] = id;
  return { method: 'POST', path: '/mcp', headers, body: 'json' in c.body ? JSON.stringify(c.body.json) : c.body.rawBody, credential: session.credential.name };
}

async function sendMcp(ctx: CheckContext, run: CatalogueRun, resendsUntil: number): Promise<void> {
  let tool: { name: string; arguments: Record<string, unknown> } | undefined;
  try {
    tool = safeTool(ctx);
  } catch {
    tool = undefined;
  }
  const cases = mcpCases(run.depth, tool);
  let session = await openSession(ctx);
  let reopened = 0;
  try {
    for (const c of cases) {
      const send = (s: McpSession) => {
        const options = { label: `catalogue: ${c.operator}: ${c.label}`, session: c.session === undefined ? s : c.session, ...(c.headers ? { headers: c.headers } : {}) };
        return waitedOut(ctx, run, resendsUntil, () => ('json' in c.body ? postMcp(ctx, c.body.json, options) : postRaw(ctx, c.body.rawBody, options)), (r) => r.res);
      };
      run.sent += 1;
      try {
        let reply = await send(session);
        // MCP: "The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with
        // HTTP 404 Not Found. … When a client receives HTTP 404 in response to a request containing an Mcp-Session-Id, it MUST start a
        // new session": the case goes again in a new one (the judgement leaves the 404 unjudged, src/checks/catalogue/traffic.ts).
        if (reply.res.status === 404 && c.session === undefined && session.id !== undefined && reopened < MAX_REOPENED) {
          reopened += 1;
          try {
            session = await openSession(ctx);
          } catch (error) {
            if (!(error instanceof Inconclusive)) throw error;
            run.skipped.push(`the rest: the server ended the catalogue's session and a new one could not be opened (${error.message})`);
            return;
          }
          reply = await send(session);
        }
        const known: Known = { ...NOTHING_KNOWN, ...(session.id ? { mcpSession: session.id } : {}) };
        if (isLimited(reply.res)) {
          run.limited += 1;
          continue;
        }
        const sent = mcpSent(c, session);
        const e = expectationFor({ ...c, endpoint: 'POST /mcp', operator: c.operator }, sent, c.same ? plainValues(sent) : undefined, known);
        // A streamed answer's messages are in its events: the judgement reads them as the stream's text.
        const answer = reply.kind === 'sse' ? { ...reply.res, text: streamText(reply.messages) } : reply.res;
        run.results.push({ c: { operator: c.operator, family: c.family, endpoint: 'POST /mcp', label: c.label, raw: false }, expectation: e, judgement: judged(sent, e, answer, undefined, false, c.stated), evidence: evidenceOf(ctx, reply.res) });
      } catch (error) {
        if (budgetSpent(error)) {
          run.skipped.push('the rest: safety.requestBudget used up');
          return;
        }
        if (error instanceof TransportError) run.unanswered.push(`POST /mcp ${c.operator} (${c.label}): ${error.message}`);
        else throw error;
      }
    }
  } finally {
    await closeSession(ctx, session);
  }
}

/** How many times the catalogue's run opens a new session after the server ended its own (bounded: a server may end every one at once). */
const MAX_REOPENED = 8;

/** The catalogue's whole run on a surface. */
export async function runCatalogue(ctx: CheckContext, surface: EndpointSurface | 'mcp'): Promise<CatalogueRun> {
  const depth = depthOf(ctx);
  const started = performance.now();
  const run: CatalogueRun = { depth, results: [], unanswered: [], limited: 0, resent: 0, skipped: [], sent: 0, exchanges: [] };
  const resendsUntil = started + LIMITED_RESENDS_UNTIL_MS;
  if (surface === 'mcp') {
    await sendMcp(ctx, run, resendsUntil);
    run.exchanges = [...ctx.http.exchanges];
    return run;
  }
  const readOnly = !ctx.profile.safety.allowMutations;
  const credential = ctx.primary(surface);
  const fixtures = bodyFixtures(ctx);
  const known: Known = { ...NOTHING_KNOWN, bases: fixtures };
  const cases = httpCases({ surface, depth, credential, fixtures, readOnly });
  if (readOnly) run.skipped.push(`${ENDPOINTS.filter((e) => e.surface === surface && !e.read).length} endpoint(s) that are not reads: the run is --read-only`);
  const bases = new Map(ENDPOINTS.filter((e) => e.surface === surface).map((e) => [`${e.method} ${e.path}`, sentOf(baseRequest(e, credential, fixtures))]));
  const { rawUsable, skipped } = rawAllowed(ctx);
  if (skipped) run.skipped.push(skipped);
  const sendable = rawUsable ? cases : cases.filter((c) => c.sent.kind !== 'raw');
  await sendHttp(ctx, run, sendable, bases, known, resendsUntil);
  // Random pairs only while the run is young: behind a slow link the deterministic phase comes first, and the pairs never cost a rule its deadline.
  if (depth === 'deep' && performance.now() - started < PAIRS_UNTIL_MS) {
    const room = Math.min(200, Math.floor(ctx.http.remainingRequests() / 4));
    await sendHttp(ctx, run, randomPairs(sendable, room, ctx.seed), bases, known, resendsUntil, started + PAIRS_UNTIL_MS);
  } else if (depth === 'deep') run.skipped.push(`random pairs: the deterministic phase took more than ${PAIRS_UNTIL_MS / 1000} s`);
  run.exchanges = [...ctx.http.exchanges];
  return run;
}

/** Raw operators are not sent through a forward proxy: the profile's or the environment's. */
function rawAllowed(ctx: CheckContext): { rawUsable: boolean; skipped?: string } {
  const proxy = ctx.profile.network?.proxy;
  const env = process.env;
  const proxied = proxy !== 'none' && Boolean(proxy ?? env.HTTPS_PROXY ?? env.https_proxy ?? env.HTTP_PROXY ?? env.http_proxy);
  return proxied ? { rawUsable: false, skipped: 'raw-socket operators: the target is reached through a proxy, which they cannot follow' } : { rawUsable: true };
}

/** The surface's catalogue run, sent once per certification and shared by its rules. */
export function sharedCatalogue(ctx: CheckContext, surface: EndpointSurface | 'mcp'): Promise<CatalogueRun> {
  return sharedRun(ctx, `catalogue:${surface}`, `the shared catalogue run of /${surface}`, () => runCatalogue(ctx, surface));
}

export type { Aspect };
