/**
 * Sensitive values redacted before an answer leaves the service: no answer of the surfaces may
 * carry one of the secrets the judgement knows (`j.secrets`: the profile's tokens; in a recording,
 * also what it shows was issued or accepted), other than the answer that issued it, and other than
 * where it repeats what its own request sent as data: that is the client's text coming back, not
 * the service handing out a secret.
 */
import { locatorFor, type CarriedSecret } from './secret-locator.ts';
import { MARKER_START, SHORT_SECRET } from '../redact/redactor.ts';
import { pathOnly, type Exchange, type Judge, type Secret } from '../rule/index.ts';
import { operation, onSurface, recordOf, responseJson } from './read.ts';
import { CREDENTIAL_HEADERS, CREDENTIAL_QUERY_PARAMETERS } from '../passive/secrets.ts';
import { SIGNING_SECRET_MARKER } from '../webhooks/signature.ts';

/**
 * Each answer is read once for all the secrets (secret-locator.ts, linear whatever they look
 * like), and a failure names each secret by label and where it stood.
 */
export function judgeEchoedSecrets(j: Judge, surfaces: ReadonlyArray<'v8' | 'v1' | 'mcp'>): void {
  judgeEchoedSecretsWhere(j, (ex) => onSurfaces(ex, surfaces));
}

/** `judgeEchoedSecrets` over the answers `picks` selects (by the request): an MCP endpoint may be mounted at any path. */
export function judgeEchoedSecretsWhere(j: Judge, picks: (ex: Exchange) => boolean): void {
  const secrets = withIssuedMarkers(j.secrets, j.exchanges);
  // A value this short turns up in ordinary text by chance: it is hidden, but not judged as an echo.
  const locator = locatorFor(secrets, SHORT_SECRET);
  for (const ex of j.exchanges) {
    if (ex.status === undefined || !picks(ex)) continue;
    const found = locator.carried(ex);
    // The locator's finds are shared by every surface's rule: what the request itself sent is set aside here.
    const carried = found.length === 0 ? found : found.filter((c) => !valuesOf(secrets, c.label).some((value) => sentAsData(ex, value)));
    j.check(ex, carried.length === 0, carried.length === 0 ? CARRIES_NONE : carries(carried));
  }
}

/**
 * Whether the request sent `value` as data of its own: in its body, its path or query (credential
 * parameters aside) or a header that carries no credential. A client that pasted a secret into a
 * field and got the field back was not handed the secret by the service; a credential the request
 * authenticated with (`Authorization`, `access_token`), repeated in its answer, still was (a token
 * echoed in a 401's detail).
 */
export function sentAsData(ex: Exchange, value: string): boolean {
  if (value.length === 0) return false;
  if (ex.requestBody?.includes(value)) return true;
  for (const name in ex.requestHeaders) if (!CREDENTIAL_HEADERS.includes(name) && ex.requestHeaders[name]!.includes(value)) return true;
  const path = pathOnly(ex);
  if (path.includes(value) || decoded(path).includes(value)) return true;
  const at = ex.path.indexOf('?');
  if (at === -1) return false;
  for (const pair of ex.path.slice(at + 1).split('&')) {
    const eq = pair.indexOf('=');
    const name = decoded(eq === -1 ? pair : pair.slice(0, eq));
    if (eq !== -1 && CREDENTIAL_QUERY_PARAMETERS.includes(name.toLowerCase())) continue;
    if (pair.includes(value) || decoded(pair.replaceAll('+', ' ')).includes(value)) return true;
  }
  return false;
}

/** A component as a server reads it; left as it is when it is not valid percent-encoding. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const byLabel = new WeakMap<readonly Secret[], Map<string, string[]>>();

/** The values a locator's label stands for (one, but nothing makes labels unique). */
function valuesOf(secrets: readonly Secret[], label: string): readonly string[] {
  let map = byLabel.get(secrets);
  if (!map) {
    map = new Map();
    for (const s of secrets) map.set(s.label, [...(map.get(s.label) ?? []), s.value]);
    byLabel.set(secrets, map);
  }
  return map.get(label) ?? [];
}

const withMarkers = new WeakMap<readonly Secret[], WeakMap<readonly Exchange[], readonly Secret[]>>();

/**
 * `secrets` and the signing secrets a recording shows issued behind apicert's numbered markers
 * (`«redacted:signing-secret#2»`, one marker per secret: recorder.ts): the marker stands for the
 * secret wherever it appears again, so an answer carrying it carried the secret, as the live
 * judgement of the same traffic found (v1.webhooks.register.secret-once follows them alike). The
 * same list when there is none, so the rules of every surface share one locator.
 */
function withIssuedMarkers(secrets: readonly Secret[], exchanges: readonly Exchange[]): readonly Secret[] {
  let lists = withMarkers.get(secrets);
  if (!lists) withMarkers.set(secrets, (lists = new WeakMap()));
  const known = lists.get(exchanges);
  if (known) return known;
  const markers = new Map<string, Secret>();
  for (const ex of exchanges) {
    if (ex.status === undefined || ex.status < 200 || ex.status >= 300 || operation(ex) !== 'v1.webhooks.create') continue;
    const secret = recordOf(responseJson(ex))?.signing_secret;
    if (typeof secret !== 'string' || !secret.startsWith(SIGNING_SECRET_MARKER) || secret.indexOf('»') !== secret.length - 1 || markers.has(secret)) continue;
    markers.set(secret, { value: secret, label: secret.slice(MARKER_START.length + 1, -1), issuedBy: ex.index });
  }
  const list = markers.size === 0 ? secrets : [...secrets, ...[...markers.values()].filter((m) => !secrets.some((s) => s.value === m.value))];
  lists.set(exchanges, list);
  return list;
}

function onSurfaces(ex: Exchange, surfaces: ReadonlyArray<'v8' | 'v1' | 'mcp'>): boolean {
  for (const s of surfaces) if (onSurface(ex, s)) return true;
  return false;
}

function carries(carried: readonly CarriedSecret[]): string {
  return `the answer carries ${carried.length === 1 ? "one of the run's secrets" : `${carried.length} of the run's secrets`}: ${carried.slice(0, 5).map((c) => `${c.label} in its ${c.where}`).join('; ')}`;
}

/** The case of an answer that carries none (what `carries` says of none), written once. */
const CARRIES_NONE = carries([]);
