/**
 * The secrets a recording shows: what the deployment issued or accepted, not every string a client
 * put in a credential header. A generated probe sends 4,096 `a`s as a token; the deployment refuses
 * it, and its error answers may well echo a long method name made of the same letters: judging
 * that as a leaked secret is a false failure (issue 35). So a request credential is judged as a
 * secret only once an answer showed the deployment took it (2xx or 3xx); every credential is still
 * hidden in the output, whatever was answered: a judged one wherever it or a fragment of it stands,
 * one refused everywhere where it stands whole (its fragments are no one's secret, and would hide
 * every run of `a` in a report). Signing secrets a webhook creation answered with are
 * issued secrets; session ids are the target's own and are only hidden. The profile's credentials,
 * when one is given, are what the client was given: judged wherever they appear.
 */
import { createHmac } from 'node:crypto';
import { MARKER_START, SHORT_SECRET } from '../redact/redactor.ts';
import { userinfoPassword } from '../util/url.ts';
import { operation, recordOf, responseJson } from '../traffic/read.ts';
import type { TrafficExchange } from './exchange.ts';
import type { LearnedSecret } from './judging.ts';

/** Headers whose values are credentials wherever they appear. */
export const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'x-api-key', 'cookie'];
/**
 * Query parameters whose values are credentials: RFC 6750 2.3's `access_token` (a bearer token in the
 * URI), and the names API keys travel under. The descriptions take a credential in `Authorization`
 * only, but a client may still send one in the query, and its value must never be printed.
 */
export const CREDENTIAL_QUERY_PARAMETERS = ['access_token', 'api_key', 'apikey', 'api-key'];
/** What a recorder leaves where it hid a value without saying which: nothing to learn. */
const UNLABELLED_MARKER = '«redacted»';
/** The marker apicert's recorder leaves where a profile credential stood (`certify --har-out`). */
const PROFILE_MARKER = /^«redacted:token:([^»]+)»$/;

/** The authentication scheme before a credential (`Bearer <token>`): the credential is what follows it. */
export const CREDENTIAL_SCHEME = /^(Bearer|Basic|Token)\s+/i;

/**
 * The credentials one header value holds. A value with a recorder's marker inside other text (two
 * headers joined: `«redacted:token:full», Bearer «redacted:token:full»`) holds each marker and what
 * stands between them, never the whole: a secret spelled with a marker inside it would then hide a
 * fragment of every marker, which is apicert's own text.
 */
function credentialParts(raw: string): string[] {
  const value = raw.replace(CREDENTIAL_SCHEME, '').trim();
  if (value === UNLABELLED_MARKER) return [];
  if (!value.includes(MARKER_START) || (value.startsWith(MARKER_START) && value.indexOf('»') === value.length - 1)) return value.length > 0 ? [value] : [];
  const parts: string[] = [];
  const rest = (text: string) => {
    for (const piece of text.split(',')) {
      const left = piece.trim().replace(CREDENTIAL_SCHEME, '').trim();
      if (left.length > 0) parts.push(left);
    }
  };
  let at = 0;
  for (let start = value.indexOf(MARKER_START); start !== -1; start = value.indexOf(MARKER_START, at)) {
    const end = value.indexOf('»', start);
    if (end === -1) break;
    rest(value.slice(at, start));
    const marker = value.slice(start, end + 1);
    if (marker !== UNLABELLED_MARKER) parts.push(marker);
    at = end + 1;
  }
  rest(value.slice(at));
  return parts;
}

function accepted(ex: TrafficExchange): boolean {
  return ex.status !== undefined && ex.status >= 200 && ex.status < 400;
}

/**
 * /v8 operations whose 403 may come from the body, whatever the token: "A body containing
 * `principalId` is rejected with `403` on memory query and capability search" (and memory's
 * purpose), so their 403 does not show the token was taken.
 */
const BODY_403 = new Set(['v8.memory.query', 'v8.capabilities.search']);

/**
 * Whether an answer shows the deployment took the request's credential: it accepted the request
 * (2xx or 3xx), or refused it for a scope on /v8: "A missing or expired token gives `401`. A token
 * without the scope required for the endpoint gives `403`" (v8-integration-gateway.md,
 * Authentication). The /v1 description says nothing of a 403, and /mcp's scopes are "not shown":
 * a 403 there shows nothing. A 401 or 400 (a malformed value) never does.
 */
function authenticated(ex: TrafficExchange): boolean {
  if (accepted(ex)) return true;
  if (ex.status !== 403) return false;
  const op = operation(ex);
  return op.startsWith('v8.') && !BODY_403.has(op);
}

/**
 * How a learned secret is named: `<where it was sent>#<n>`. By default n counts the values learned
 * from the exchanges judged; with a run's key (the proxy), n is a keyed hash of the value, so live
 * findings and the report, which judge different sets of the same traffic (a gap in live judging,
 * exchanges dropped from the record), name one secret alike. The key never leaves the process, so
 * the label tells nothing of the value but whether two are equal.
 */
export type SecretLabels = (name: string, value: string, n: number) => string;

export function keyedLabels(key: string): SecretLabels {
  return (name, value) => `${name}#${createHmac('sha256', key).update(value).digest('hex').slice(0, 8)}`;
}

const countedLabels: SecretLabels = (name, _value, n) => `${name}#${n}`;

/**
 * The credential values a request carried, in its credential headers, credential query parameters
 * and URL userinfo, as `learnSecrets` reads them: the values its own answer must not be let to
 * carry in a recording apicert writes (long enough to be a credential, not a recorder's marker).
 */
export function requestCredentials(requestHeaders: Readonly<Record<string, string>>, url: string): string[] {
  const out = new Set<string>();
  const keep = (value: string) => {
    if (value.length >= SHORT_SECRET && !value.startsWith(MARKER_START)) out.add(value);
  };
  for (const name of CREDENTIAL_HEADERS) {
    const raw = requestHeaders[name];
    if (raw !== undefined) for (const value of credentialParts(raw)) keep(value);
  }
  for (const [, value] of queryCredentials(targetOfUrl(url))) for (const part of credentialParts(value)) keep(part);
  const password = userinfoPassword(url);
  if (password !== undefined) keep(password);
  return [...out];
}

/** The path and query of a URL as it was sent (no parsing: the query is read as a server reads it). */
function targetOfUrl(url: string): string {
  const at = url.indexOf('?');
  return at === -1 ? '' : url.slice(at);
}

/**
 * Every credential a request carried (the value after its scheme), `judged` when an answer showed
 * the deployment authenticated it, and every signing secret a webhook-creation answer handed out
 * (judged, except in that answer).
 */
export function learnSecrets(exchanges: readonly TrafficExchange[], given: ReadonlyArray<{ name: string; token: string }> = [], labels: SecretLabels = countedLabels): LearnedSecret[] {
  const out = new Map<string, LearnedSecret>();
  // What the profile gave the client is its secret whatever a deployment answered (an expired token echoed in a 401 is a leak).
  for (const c of given) if (c.token.length > 0 && !out.has(c.token)) out.set(c.token, { value: c.token, label: `token:${c.name}`, judged: true, seenAt: -1 });
  const learn = (ex: TrafficExchange, name: string, value: string) => {
    const known = out.get(value);
    if (known) {
      if (!known.judged && authenticated(ex)) known.judged = true;
      return;
    }
    // apicert's own recordings hide the profile's credentials behind their names: those were given to the client.
    const named = PROFILE_MARKER.exec(value);
    if (named) out.set(value, { value, label: `token:${named[1]}`, judged: true, seenAt: ex.index });
    else out.set(value, { value, label: labels(name, value, out.size + 1), judged: authenticated(ex), seenAt: ex.index });
  };
  for (const ex of exchanges) {
    for (const name of CREDENTIAL_HEADERS) {
      const raw = ex.requestHeaders[name];
      if (raw === undefined) continue;
      for (const value of credentialParts(raw)) learn(ex, name, value);
    }
    for (const [name, value] of queryCredentials(ex.path)) for (const part of credentialParts(value)) learn(ex, `query:${name}`, part);
    const password = userinfoPassword(ex.url);
    if (password !== undefined) learn(ex, 'url-password', password);
    if (operation(ex) === 'v1.webhooks.create' && accepted(ex)) {
      const secret = recordOf(responseJson(ex))?.signing_secret;
      // A recorder that already hid it left a marker shared by every hidden secret of that shape: nothing to learn.
      if (typeof secret === 'string' && secret.length > 0 && !secret.includes(MARKER_START) && !out.has(secret)) out.set(secret, { value: secret, label: labels('signing-secret', secret, out.size + 1), issuedBy: ex.index, judged: true, seenAt: ex.index });
    }
  }
  return [...out.values()];
}

/** The credential query parameters of a request target, decoded as a server reads them. */
function queryCredentials(target: string): Array<[string, string]> {
  const at = target.indexOf('?');
  if (at === -1) return [];
  const out: Array<[string, string]> = [];
  for (const [name, value] of new URLSearchParams(target.slice(at + 1))) if (CREDENTIAL_QUERY_PARAMETERS.includes(name.toLowerCase()) && value.length > 0) out.push([name, value]);
  return out;
}

/**
 * The session ids the recording shows the target issued: in its answers, or carried by a request it
 * accepted (a session opened before the recording began). An id a client made up and the target
 * refused (apicert's `not a session id!`) was never a session: hiding it would hide apicert's own
 * words. A recorder's marker is not an id either.
 */
export function sessionIds(exchanges: readonly TrafficExchange[]): Set<string> {
  const out = new Set<string>();
  const keep = (id: string | undefined) => {
    if (id && !id.includes(MARKER_START)) out.add(id);
  };
  for (const ex of exchanges) {
    keep(ex.responseHeaders['mcp-session-id']);
    if (accepted(ex)) keep(ex.requestHeaders['mcp-session-id']);
  }
  return out;
}

