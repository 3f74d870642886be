/**
 * The catalogue rules' one judgement over a journal. A catalogue case's expectation may rest on its
 * operator's own sentence (a token outside the Authorization header, JSON text a standard refuses, a
 * 501 RFC 9110 permits), which the request alone does not carry; but every catalogue request is
 * built from the endpoint table and the profile alone (src/checks/catalogue/plan.ts), so a request
 * IS a catalogue case when it is one of the requests the catalogue builds, byte for byte (fresh
 * idempotency keys and the session aside). Those exchanges are the catalogue rules' to judge, with
 * their operator's statement; every other exchange of the surface is the generated rules'. Each
 * exchange is judged once, by one family.
 */
import { gunzipSync } from 'node:zlib';
import { ENDPOINTS, type EndpointSurface } from '../../contract/endpoints.ts';
import { resolveRole, roleName } from '../../profile/roles.ts';
import type { Credential, Profile } from '../../profile/schema.ts';
import { MARKER_START } from '../../redact/redactor.ts';
import { cutShort, Inconclusive, rawForm, Untestable, type CheckContext, type Exchange, type Judge, type Judgement, type RawRequest } from '../../rule/index.ts';
import { bodyJson, bodyMissing, journalFact } from '../../traffic/read.ts';
import { parseJson } from '../../probe/body.ts';
import { bodyFixtures } from '../generated/engine.ts';
import { NOTHING_KNOWN, sentOf, type Expectation, type Known, type SentRequest } from '../generated/expectation.ts';
import { expectationText, isRedirect, judgesAspect, owedStatus, type Answer, type Aspect } from '../generated/judgement.ts';
import { isLimited } from '../generated/oracles.ts';
import { answerOfExchange, contractPath, sentOfExchange, surfaceOfPath } from '../generated/traffic.ts';
import { SESSION_HEADER } from '../../contract/mcp/transport.ts';
import { SessionHistory } from '../mcp/support/session-history.ts';
import { mcpEndpoint, sessionUnknown } from '../mcp/support/traffic.ts';
import { baseRequest, httpCases, mcpCases } from './plan.ts';
import { expectationFor, judged, LIMITED_RESENDS, LIMITED_WAIT_MAX_MS, plainValues, type CaseJudgement } from './run.ts';
import type { Case, McpCase } from './types.ts';

type Planned = Pick<Case, 'operator' | 'stated' | 'same' | 'why' | 'allowedBy' | 'permits' | 'label' | 'endpoint'> & {
  headers: Readonly<Record<string, string>>;
  /** `headers` that decide which case a request is (`FRESH` ones left out), as the matching compares them. */
  matched?: ReadonlyArray<readonly [string, string]>;
  /** The Authorization header as the client writes it, null when none. */
  auth: string | null;
  session?: string | null;
  /** A raw case's `rawForm`: how its head is written; undefined for a request an HTTP client sends. */
  raw: string | undefined;
  /** A long body as the case sends it: a journal may keep only its prefix. */
  longBody?: string;
  /** `longBody` parsed, once for every exchange and round of judging that reads it (a 1 MiB body costs its parse each time). */
  longParsed?: { value: unknown };
  /** The catalogue's run at the profile's depth sends this case (deep cases are matched whoever sent them: another check may send the same request). */
  inRun: boolean;
};

/** The catalogue's requests of one profile, by what identifies them on the wire. */
interface Catalogue {
  /** By method and path, then by body: a 1 MiB body is a key as it is, not copied into a longer one. */
  cases: Map<string, Map<string, Planned[]>>;
  /** Cases whose body is long, by method and path: a journal may keep only a prefix of such a request's body. */
  long: Map<string, Array<{ body: string; planned: Planned }>>;
  credentials: readonly Credential[];
  /** The profile's tokens by credential name, for `withTokens`. */
  tokens: ReadonlyMap<string, string>;
  bases: Map<string, SentRequest>;
  fixtures: Readonly<Record<string, unknown>>;
  /** The raw-message cases the run sends at the profile's depth, counted by operator: no recording holds one. */
  rawInRun: Map<string, number>;
}

const built = new WeakMap<Profile, Map<string, Catalogue>>();

const TOKEN_MARKER = `${MARKER_START}:token:`;

/**
 * A recording's text with each `«redacted:token:<name>»` marker of a profile credential put back as
 * its token, so a recording that hides them and one that keeps them compare equal to the requests
 * the catalogue builds: one scan for the marker, not one per credential over the case bodies.
 */
function withTokens(text: string, tokens: ReadonlyMap<string, string>): string {
  if (tokens.size === 0) return text;
  let at = text.indexOf(TOKEN_MARKER);
  if (at === -1) return text;
  let out = '';
  let from = 0;
  while (at !== -1) {
    const end = text.indexOf('»', at + TOKEN_MARKER.length);
    if (end === -1) break;
    const token = tokens.get(text.slice(at + TOKEN_MARKER.length, end));
    if (token !== undefined) {
      out += text.slice(from, at) + token;
      from = end + 1;
    }
    at = text.indexOf(TOKEN_MARKER, token === undefined ? at + 1 : end + 1);
  }
  return out + text.slice(from);
}

/** Credentials a recording hides by name (the redactor leaves shorter values alone). */
function tokensOf(credentials: readonly Credential[]): Map<string, string> {
  const tokens = new Map(credentials.filter((c) => c.token.length >= 8).map((c) => [c.name, c.token]));
  // A recording's own profile (its facts) holds each token as its marker: putting markers back would change no text, so none is looked for.
  return [...tokens].every(([name, token]) => token === `${TOKEN_MARKER}${name}»`) ? new Map() : tokens;
}

function add(map: Catalogue['cases'], route: string, body: string, p: Planned): void {
  let bodies = map.get(route);
  if (!bodies) {
    bodies = new Map();
    map.set(route, bodies);
  }
  const list = bodies.get(body);
  if (list) list.push(p);
  else bodies.set(body, [p]);
}

function lower(headers: Readonly<Record<string, string>> | ReadonlyArray<readonly [string, string]> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = Array.isArray(headers) ? headers : Object.entries(headers ?? {});
  for (const [k, v] of entries as Array<[string, string]>) out[k.trim().toLowerCase()] = v;
  return out;
}

function catalogueOf(profile: Profile, surface: EndpointSurface | 'mcp'): Catalogue | undefined {
  let bySurface = built.get(profile);
  if (!bySurface) {
    bySurface = new Map();
    built.set(profile, bySurface);
  }
  const hit = bySurface.get(surface);
  if (hit) return hit;
  const credential = resolveRole(profile, roleName(surface, 'primary')).credential;
  if (!credential) return undefined;
  const shim = { profile, untestable: (m: never) => { throw new Untestable(m); } } as unknown as CheckContext;
  const fixtures = bodyFixtures(shim);
  const out: Catalogue = { cases: new Map(), long: new Map(), credentials: profile.credentials, tokens: tokensOf(profile.credentials), bases: new Map(), fixtures, rawInRun: new Map() };
  const depth = profile.safety.probeDepth;
  if (surface === 'mcp') {
    const inRun = new Set(mcpCases(depth, profile.fixtures.mcp.safeTool).map((c) => caseKey(c.operator, 'POST /mcp', c.label)));
    for (const c of mcpCases('deep', profile.fixtures.mcp.safeTool) as Array<McpCase & { operator: string }>) {
      const body = 'json' in c.body ? JSON.stringify(c.body.json) : c.body.rawBody;
      const headers = lower(c.headers);
      const planned: Planned = { operator: c.operator, label: c.label, endpoint: 'POST /mcp', headers, auth: headers.authorization ?? `Bearer ${credential.token}`, raw: undefined, inRun: inRun.has(caseKey(c.operator, 'POST /mcp', c.label)) };
      if (c.stated) planned.stated = c.stated;
      if (c.same) planned.same = c.same;
      if (c.why !== undefined) planned.why = c.why;
      if (c.allowedBy) planned.allowedBy = c.allowedBy;
      if (c.session !== undefined) planned.session = c.session;
      add(out.cases, 'POST /mcp', body, planned);
    }
  } else {
    const inRun = new Set(httpCases({ surface, depth, credential, fixtures, readOnly: !profile.safety.allowMutations }).map((c) => caseKey(c.operator, c.endpoint, c.label)));
    for (const c of httpCases({ surface, depth: 'deep', credential, fixtures, readOnly: false })) {
      const raw = c.sent.kind === 'raw' ? rawForm(c.sent.request) : undefined;
      const method = c.sent.request.method;
      const path = c.sent.kind === 'raw' ? placedTarget(c.sent.request.target.replace('{origin}', ''), c.sent.request.place, c.sent.request.credential) : c.sent.request.path;
      const body = c.sent.kind === 'raw' ? (c.sent.request.body === undefined ? '' : Buffer.isBuffer(c.sent.request.body) ? c.sent.request.body.toString('latin1') : c.sent.request.body) : c.sent.request.json !== undefined ? JSON.stringify(c.sent.request.json) : (c.sent.request.rawBody ?? '');
      const { sent: _sent, family: _family, ...planned } = c;
      const headers = lower(c.sent.request.headers);
      const r = c.sent.request;
      // The client writes `Bearer <token>` for the case's credential unless the case wrote its own header or placed the token elsewhere
      // (an Authorization line of its own making, under any case of the name, is the header the journal keeps).
      const place = c.sent.kind === 'raw' ? c.sent.request.place : undefined;
      const placedAuth = place && 'header' in place && place.header.trim().toLowerCase() === 'authorization' && r.credential ? `${place.before ?? 'Bearer '}${r.credential.token}${place.after ?? ''}` : undefined;
      const written = headers.authorization ?? placedAuth ?? (r.credential && !place ? `Bearer ${r.credential.token}` : undefined);
      const entry: Planned = { ...planned, headers, auth: written ?? null, raw, inRun: inRun.has(caseKey(c.operator, c.endpoint, c.label)) };
      const route = `${method} ${path}`;
      add(out.cases, route, body, entry);
      if (raw !== undefined && entry.inRun) out.rawInRun.set(c.operator, (out.rawInRun.get(c.operator) ?? 0) + 1);
      if (body.length > LONG_BODY) {
        entry.longBody = body;
        const long = out.long.get(route);
        if (long) long.push({ body, planned: entry });
        else out.long.set(route, [{ body, planned: entry }]);
      }
    }
    for (const e of ENDPOINTS.filter((x) => x.surface === surface)) out.bases.set(`${e.method} ${e.path}`, sentOf(baseRequest(e, credential, fixtures)));
  }
  bySurface.set(surface, out);
  return out;
}

/** What tells a case from the others of its depth: its operator, endpoint and label. */
function caseKey(operator: string, endpoint: string, label: string): string {
  return `${operator}\n${endpoint}\n${label}`;
}

/** The request-target with the token in the query, where a raw case places it there (as the probe client writes it). */
function placedTarget(target: string, place: RawRequest['place'], credential: Credential | null): string {
  if (!place || !('query' in place) || !credential) return target;
  return `${target}${target.includes('?') ? '&' : '?'}${place.query}=${encodeURIComponent(credential.token)}`;
}

/** A case body longer than this may be kept as a prefix only (src/rule/journal.ts cuts large request bodies first). */
const LONG_BODY = 4096;

/** Headers a case sets that decide nothing about which case it is (fresh each time), or that the client writes itself. */
const FRESH = new Set(['idempotency-key', 'authorization', 'mcp-session-id']);

/** The case last found for an exchange, with what it was found from. */
interface Found {
  profile: Profile | undefined;
  exPath: string;
  path: string;
  body: string | undefined;
  truncated: boolean | undefined;
  missing: unknown;
  value: Planned | undefined;
}

/**
 * `findCase` per exchange: the generated rules ask it of every exchange for each aspect, and the
 * catalogue rules again. Kept while what it reads stands: the profile, the path, and the body (a
 * journal may cut a request body later: src/rule/journal.ts); the method, the headers and the raw
 * form of a request are fixed once it was sent.
 */
const found = new WeakMap<Exchange, Found>();

/** The catalogue case `ex`'s request is, or undefined when it is none of them. */
export function catalogueCaseOf(ex: Exchange, profile: Profile | undefined, path?: string): Planned | undefined {
  const hit = found.get(ex);
  if (hit && hit.profile === profile && hit.exPath === ex.path && (path === undefined || path === hit.path) && hit.body === ex.requestBody && hit.truncated === ex.requestBodyTruncated && hit.missing === ex.requestBodyMissing) return hit.value;
  const at = path ?? contractPath(ex.path, mcpEndpoint({ profile }));
  const value = findCase(ex, profile, at);
  found.set(ex, { profile, exPath: ex.path, path: at, body: ex.requestBody, truncated: ex.requestBodyTruncated, missing: ex.requestBodyMissing, value });
  return value;
}

function findCase(ex: Exchange, profile: Profile | undefined, path: string): Planned | undefined {
  const surface = surfaceOfPath(path);
  if (!profile || !surface || ex.requestBodyMissing !== undefined) return undefined;
  const catalogue = catalogueOf(profile, surface);
  if (!catalogue) return undefined;
  const tokens = catalogue.tokens;
  const route = `${ex.method} ${withTokens(path, tokens)}`;
  const candidates = ex.requestBodyTruncated ? prefixCases(catalogue, ex, route) : catalogue.cases.get(route)?.get(withTokens(ex.requestBody ?? '', tokens));
  if (!candidates) return undefined;
  const headers = ex.requestHeaders;
  const fits = candidates.filter((c) => {
    // A raw case differs from an ordinary request in what its head lacks or repeats (no Host, two Content-Lengths): only a raw exchange is one.
    if (c.raw !== ex.raw) return false;
    const auth = headers.authorization;
    if ((auth === undefined ? null : withTokens(auth, tokens)) !== c.auth) return false;
    for (const [k, v] of matchedHeaders(c)) if (withTokens(headers[k] ?? '', tokens) !== v) return false;
    if (c.session === null && headers['mcp-session-id'] !== undefined) return false;
    if (typeof c.session === 'string' && headers['mcp-session-id'] !== c.session) return false;
    return true;
  });
  // The case that sets the most of the request's headers is the one sent (Content-Length with chunked, not chunked alone).
  return fits.reduce<Planned | undefined>((best, c) => (best === undefined || Object.keys(c.headers).length > Object.keys(best.headers).length ? c : best), undefined);
}

/** The long cases whose body begins with the prefix a journal kept of `ex`'s. */
function prefixCases(catalogue: Catalogue, ex: Exchange, route: string): Planned[] | undefined {
  const body = withTokens(ex.requestBody ?? '', catalogue.tokens);
  // A slice compared whole, not startsWith: V8 compares a prefix a character at a time, a flat string in one memory compare (~25 times faster on 1 MiB).
  return catalogue.long.get(route)?.filter((l) => l.body.length >= body.length && l.body.slice(0, body.length) === body).map((l) => l.planned);
}

/** A case's headers as the matching compares them: picked once per case, not per exchange. */
function matchedHeaders(c: Planned): ReadonlyArray<readonly [string, string]> {
  return (c.matched ??= Object.entries(c.headers).filter(([k]) => !FRESH.has(k)));
}

/** The body as the API reads it once the HTTP layer removed the transfer and content codings and the charset (a raw request's journal body is its bytes as Latin-1). */
function readBody(sent: SentRequest, raw: boolean): SentRequest {
  if (!raw || sent.body === undefined) return sent;
  const h = sent.headers;
  let bytes = Buffer.from(sent.body, 'latin1');
  if (/chunked/i.test(h['transfer-encoding'] ?? '')) bytes = Buffer.from(dechunkText(bytes.toString('latin1')), 'latin1');
  if (/gzip/i.test(h['content-encoding'] ?? '')) {
    try {
      bytes = gunzipSync(bytes);
    } catch {
      // Not gzip after all: the bytes as sent.
    }
  }
  const body = /charset=utf-16/i.test(h['content-type'] ?? '') ? bytes.toString('utf16le').replace(/^\ufeff/, '') : bytes.toString('utf8');
  return { ...sent, body };
}

/** A chunked body's data (RFC 9112, 7.1), as far as it is well-formed. */
function dechunkText(text: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const eol = text.indexOf('\r\n', at);
    if (eol === -1) return out;
    const size = Number.parseInt(text.slice(at, eol).split(';', 1)[0]!.trim(), 16);
    if (!Number.isFinite(size) || size <= 0) return out;
    out += text.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

/**
 * One aspect of the catalogue's judgement: every exchange of the surface that is a catalogue case,
 * its expectation the case's (its operator's statement, the base's for a request written another
 * way that means the same, else derived from the request and open where the operator's change is).
 */
export function catalogueJudgement(surface: EndpointSurface | 'mcp', aspect: Aspect): Judgement {
  const stated = aspect === 'error-status' ? 'refusal' : aspect === 'accepts-valid' ? 'acceptance' : undefined;
  return {
    record: `a request of the probe catalogue (docs/probe-catalogue.md) to /${surface}, as the catalogue builds it from the profile (give it: --profile FILE)`,
    ...(stated ? { none: `no catalogue case sent carries a stated ${stated} for this target` } : {}),
    judge(j: Judge) {
      // Which exchanges are catalogue cases is known from the profile the catalogue builds them from: without one, none is.
      if (!j.profile) return;
      if (j.source === 'recording') rawCasesUnrecorded(j, j.profile, surface);
      const layer = new Set<string>();
      const limited: Exchange[] = [];
      let failed = false;
      const check = (ex: Exchange, ok: boolean, reason: string) => {
        if (!j.check(ex, ok, reason)) failed = true;
      };
      for (const seen of casesJudged(j, surface)) {
        // A limiter's refusal of a case another sending of which was answered (the run's resend, or the same request sent by another check): that answer is the case's.
        if (seen.answeredElsewhere) continue;
        // A case sent and left unanswered (transport trouble, a rate limiter) was still this rule's to judge:
        // it lacks its answer, so a run whose every case went unanswered is inconclusive, never "no case sent".
        // Not one whose request the journal cut: the kernel takes that as a body unread, which would end a rule
        // that judged other cases whole inconclusive for an answer the target never gave.
        if (seen.unanswered !== undefined) {
          if (judgesAspect(aspect, seen.expectation.kind) && !cutShort(seen.ex)) {
            j.lacks(seen.ex, seen.unanswered);
            // A case the run sends: one of the catalogue's sentences left unjudged. A deeper case another check sent alike is that check's loss.
            if (seen.limited && seen.c.inRun) limited.push(seen.ex);
          }
          continue;
        }
        const { ex, c, expectation, answer, judgement } = seen;
        if (judgement.httpLayer !== undefined) layer.add(`${answer.status} ${judgement.httpLayer}`);
        // A redirect is no final answer (apicert does not follow it): each aspect that would judge the case lacks it, so a run all redirected is no pass.
        if (isRedirect(answer.status)) {
          if (judgesAspect(aspect, expectation.kind)) j.lacks(ex, judgement.unjudged ?? `${ex.method} ${ex.path.split('?', 1)[0]} answered ${answer.status}: a redirect`);
          continue;
        }
        const missing = aspect === 'no-5xx' || ex.events !== undefined ? undefined : bodyMissing(ex);
        // A body not read whole decides nothing it holds, but the status read still decides what it alone decides.
        if (missing !== undefined || (judgement.unjudged !== undefined && answer.cut)) {
          const decided = decidedByStatus(surface, aspect, expectation, ex.status);
          if (decided === NOTHING_TO_JUDGE) continue;
          if (decided !== undefined) {
            const head = `${ex.method} ${ex.path.split('?', 1)[0]} answered ${ex.status}`;
            check(ex, decided.ok, decided.ok ? '' : `${c.operator} (${c.label}): ${head}, ${decided.reason} (its body was not read whole; the status decides) [${expectationText(expectation)}]`);
            continue;
          }
        }
        if (missing !== undefined) {
          j.lacks(ex, `the answer's body: ${missing}`);
          continue;
        }
        const finding = judgement.findings[aspect];
        if (judgement.unjudged !== undefined) {
          if (answer.cut) j.lacks(ex, judgement.unjudged);
          continue;
        }
        if (!finding) continue;
        // The generated judgement's reasons mostly end with the expectation already: it is named once.
        const named = expectation.kind === 'open' || finding.reason.includes(expectationText(expectation));
        check(ex, finding.ok, finding.ok ? '' : `${c.operator} (${c.label}): ${finding.reason}${named ? '' : ` [${expectationText(expectation)}]`}`);
      }
      if (aspect === 'problem-json' && layer.size > 0) j.observe('answers to raw messages not judged as problem+json (the HTTP layer may have written them)', [...layer].sort(), 'a message that is not valid HTTP/1.1 may reach no endpoint, and which layer wrote a 4xx to it is not in the answer: status and media type as answered');
      if (limited.length > 0 && !failed) limitedCases(j, limited);
    },
  };
}

/**
 * Says which cases a recording's verdict leaves out: the raw messages (framing an HTTP client cannot
 * write) go on a socket of their own, past any HTTP recorder (`certify --har-out`, the proxy, a
 * browser), so a recording never holds one and its verdict judges the other cases only. Without
 * this a pass over certify's own recording read as certify's verdict where certify failed a raw case
 * (audits helper-151 F9, helper-142 F10). Observed, never a verdict: what is absent is not judged.
 */
function rawCasesUnrecorded(j: Judge, profile: Profile, surface: EndpointSurface | 'mcp'): void {
  const raw = surface === 'mcp' ? undefined : catalogueOf(profile, surface)?.rawInRun;
  if (raw === undefined || raw.size === 0) return;
  const cases = [...raw.values()].reduce((a, b) => a + b, 0);
  j.observe(
    'raw-message catalogue cases, judged only by an active run (certify)',
    `${cases} case(s) of ${raw.size} operator(s) at depth ${profile.safety.probeDepth}: ${[...raw.keys()].join(', ')}`,
    `apicert writes these byte for byte on a socket of its own (framing, absolute-form and other forms an HTTP client cannot send), so no recording holds them: this verdict judges the recorded cases only; certify --rules '${surface}.catalogue.*' judges these`,
  );
}

/**
 * Cases of this rule that only a rate limiter answered: each is a sentence of the catalogue left
 * unjudged, so the rule cannot pass on the others ("Per-key tier values and request-rate numbers: not
 * shown": any tier is legal, and none fails the rule). The same verdict in a run and in its recording:
 * inconclusive there, untestable here (a limiter's refusal the run sent again is not counted).
 */
function limitedCases(j: Judge, limited: readonly Exchange[]): never {
  const first = limited[0]!;
  const what = `${limited.length} catalogue case(s) this rule judges were answered only by a rate limiter (${[...new Set(limited.map((ex) => ex.status))].join('/')}), never by the API (first: ${first.method} ${first.path.split('?', 1)[0]})`;
  const remedy = "give the primary credential a tier that admits the catalogue's requests, or certify the catalogue rules alone (--rules '*.catalogue.*')";
  if (j.source === 'recording') throw new Untestable({ need: 'recording', what: `${what}: ${remedy}, and record that run` });
  throw new Inconclusive(`${what}, though a limited case is sent again after the wait it asks for (up to ${LIMITED_WAIT_MAX_MS / 1000} s, ${LIMITED_RESENDS} times): ${remedy}`);
}

const NOTHING_TO_JUDGE = 'nothing';

/**
 * What the answer's status alone decides of `aspect`, as `judgeAnswer` decides it from the whole
 * answer: a /v1 or /v8 refusal is a 4xx (and the error table's status where it names one), so a
 * 1xx or 2xx is no refusal whatever its body; /mcp's 4xx is a refusal; a 5xx is no-5xx's, not
 * error-status's. Undefined where the body decides (an /mcp 2xx may carry a JSON-RPC error; a
 * redirect is no final answer; a 5xx may be a 501 the method allows).
 */
function decidedByStatus(surface: EndpointSurface | 'mcp', aspect: Aspect, expectation: Expectation, status: number | undefined): { ok: boolean; reason: string } | typeof NOTHING_TO_JUDGE | undefined {
  if (status === undefined || (status >= 300 && status < 400)) return undefined;
  if (aspect === 'no-5xx') return status < 500 ? { ok: true, reason: '' } : undefined;
  if (aspect !== 'error-status') return undefined;
  if (expectation.kind !== 'refuse' || status >= 500) return NOTHING_TO_JUDGE;
  const refused = status >= 400;
  if (surface === 'mcp') return refused ? { ok: true, reason: '' } : undefined;
  if (!refused) return { ok: false, reason: 'not a refusal' };
  return expectation.status === undefined || status === expectation.status ? { ok: true, reason: '' } : { ok: false, reason: `not ${owedStatus(expectation.status, expectation.because)}` };
}

/** One catalogue case of the journal, judged: what every aspect reads of it; or, sent and not answered by the API, why it was not judged. */
type CaseJudged = CaseSeen & ({ answer: Answer; judgement: CaseJudgement; unanswered?: undefined; limited?: undefined } | { unanswered: string; limited: boolean });

interface CaseSeen {
  ex: Exchange;
  c: Planned;
  expectation: Expectation;
  /** A limiter answered it, and another sending of the same case was answered: that one is the case's. */
  answeredElsewhere?: boolean;
}

/**
 * Every catalogue case of the surface judged once per journal and profile: the aspects (no-5xx,
 * problem-json, error-status, accepts-valid) read the same judgement of the same answer, and
 * differ only in the finding they take from it.
 */
function casesJudged(j: Judge, surface: EndpointSurface | 'mcp'): readonly CaseJudged[] {
  return journalFact(j.exchanges, JUDGE_CASES[surface], j.profile);
}

const JUDGE_CASES: Record<EndpointSurface | 'mcp', (exchanges: readonly Exchange[], profile: Profile | undefined) => CaseJudged[]> = {
  v8: (exchanges, profile) => judgeCases(exchanges, profile, 'v8'),
  v1: (exchanges, profile) => judgeCases(exchanges, profile, 'v1'),
  mcp: (exchanges, profile) => judgeCases(exchanges, profile, 'mcp'),
};

function judgeCases(exchanges: readonly Exchange[], profile: Profile | undefined, surface: EndpointSurface | 'mcp'): CaseJudged[] {
  const out: CaseJudged[] = [];
  if (!profile) return out;
  let session: string | undefined;
  const endpoint = mcpEndpoint({ profile });
  const limitedOnes: CaseJudged[] = [];
  const answered = new Set<Planned>();
  const sessions = surface === 'mcp' ? new SessionHistory({ exchanges, profile, lacks: () => undefined }) : undefined;
  for (const ex of exchanges) {
    const path = contractPath(ex.path, endpoint);
    if (surfaceOfPath(path) !== surface) continue;
    if (surface === 'mcp' && (ex.status ?? 0) >= 200 && (ex.status ?? 0) < 300 && ex.responseHeaders['mcp-session-id'] !== undefined) session = ex.responseHeaders['mcp-session-id'];
    const c = catalogueCaseOf(ex, profile, path);
    if (!c) continue;
    const catalogue = catalogueOf(profile, surface)!;
    const asSent = sentOfExchange(ex, catalogue.credentials, path);
    // A body the journal kept a prefix of is the case's own (it matched by that prefix): the expectation reads it whole.
    if (ex.requestBodyTruncated && c.longBody !== undefined) {
      asSent.body = c.longBody;
      if (c.raw === undefined) asSent.parsed = { text: c.longBody, value: (c.longParsed ??= { value: parseJson(c.longBody) }).value };
    }
    // The journal's parse of the body (a raw case's body is read once decoded, below: its own text).
    else if (asSent.body !== undefined && c.raw === undefined) asSent.parsed = { text: asSent.body, value: bodyJson(ex, 'request', asSent.body) };
    const sent = readBody(asSent, c.raw !== undefined);
    const known: Known = { ...NOTHING_KNOWN, bases: catalogue.fixtures, ...(session !== undefined ? { mcpSession: session } : {}) };
    const expectation = expectationFor(c, sent, catalogue.bases.get(c.endpoint) ?? (c.same && surface === 'mcp' ? plainValues(sent) : undefined), known);
    const unanswered = unansweredWhy(ex) ?? (sessions ? endedSessionWhy(sessions, ex) : undefined);
    if (unanswered !== undefined) {
      const limited = ex.status !== undefined && isLimited({ status: ex.status });
      const seen: CaseJudged = { ex, c, expectation, unanswered, limited };
      if (limited) limitedOnes.push(seen);
      out.push(seen);
      continue;
    }
    answered.add(c);
    const answer = answerOfExchange(ex);
    out.push({ ex, c, expectation, answer, judgement: judged(sent, expectation, answer, c.permits, c.raw !== undefined, c.stated) });
  }
  for (const seen of limitedOnes) if (answered.has(seen.c)) seen.answeredElsewhere = true;
  return out;
}

/**
 * Why an /mcp case has no answer to its message: the server had ended the session it carries. MCP:
 * "The server MAY terminate the session at any time, after which it MUST respond to requests
 * containing that session ID with HTTP 404 Not Found." So a 404 to a request carrying an id the
 * server issued to the same caller, or any request of that session after such a 404 (or after its
 * DELETE was answered), is that sentence's answer, not the message's. Read from the request and the
 * exchanges up to its own answer, never later ones; a server that serves the session again after the
 * 404 is mcp.session.ended-stays-404's failure.
 */
function endedSessionWhy(sessions: SessionHistory, ex: Exchange): string | undefined {
  const id = ex.requestHeaders[SESSION_HEADER];
  if (id === undefined || sessionUnknown(id) || sessions.issuedBefore(id, ex) === undefined) return undefined;
  const ended = sessions.endedSince(id, ex);
  if (ended === undefined) return undefined;
  const how = ended === ex ? 'answered 404' : ended.method === 'DELETE' ? 'sent after its DELETE was answered' : `sent after a request of it was answered 404`;
  return `${how}: the server ended the session it carries ("The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found"), so no answer to the message`;
}

/** Why the API gave `ex` no answer to judge: none came (transport trouble), or a rate limiter's came instead; undefined when it answered. */
function unansweredWhy(ex: Exchange): string | undefined {
  if (ex.status === undefined) return `no answer (${ex.error ?? 'the recording holds none'})`;
  return isLimited({ status: ex.status }) ? `answered ${ex.status} (a limiter's answer, not the API's to this case)` : undefined;
}

/**
 * Whether `ex`'s expectation is the catalogue's own, so the generated rules leave it alone: a case
 * whose operator states it from a sentence, writes the base another way a standard says means the
 * same, is allowed outright, or meets a 5xx a standard permits. A case whose expectation is derived
 * from the request is the generated rules' as well (the same expectation, opened where the
 * operator's change is).
 */
export function ownedByCatalogue(ex: Exchange, profile: Profile | undefined): boolean {
  const c = catalogueCaseOf(ex, profile);
  return c !== undefined && (c.stated !== undefined || c.same !== undefined || c.allowedBy !== undefined || c.permits !== undefined);
}
