/**
 * Records every exchange apicert sends, at the connection pool (an undici interceptor), so nothing
 * a check does escapes the recording and no check changes: `certify --har-out FILE`.
 *
 * What the file holds: every request and answer as sent and received, bodies up to a prefix (a body
 * under a content coding decoded, as HAR 1.2 keeps it: har.ts, `decodedRecording`), with
 * each secret of the profile (its tokens) replaced by the redactor's labelled marker
 * (`Bearer «redacted:token:v1-full»`). Equal secrets get equal markers, so the recording still
 * shows which credential a response echoed, and the passive judge can learn it as a secret. Values
 * the target issued (session ids, signing secrets in its answers) stay as the target sent them
 * unless they have the shape of a credential: they are the evidence the passive rules judge. A
 * session id or signing secret so hidden gets its own numbered marker, so the rules still tell them apart. With
 * `keepSecrets` (`--har-secrets`) nothing is replaced. Either way the file is readable by its owner only.
 * `proxy --har-out` writes what it forwarded with the same `hiddenHar`.
 *
 * Bounded as the proxy's record is: at most `bodyLimit` bytes of each answer's body and `maxKeptBytes`
 * of all bodies together (apicert's own request bodies count, kept whole within it). Beyond that a body is kept as far as the budget reached (a prefix, maybe empty)
 * and marked cut with the size it had, so a target answering 1 GiB to every request costs the
 * budget, not a GiB a request. Every exchange is kept (its headers are small and the run bounds
 * their number): a replay must follow what it replays. The file is written entry by entry (har-writer.ts).
 */
import type { Dispatcher } from 'undici';
import { marker, TARGET_ISSUED_SESSION, type Redactor } from '../redact/redactor.ts';

/** Where the target hands a client its session's id (MCP Streamable HTTP). */
const SESSION_ID_HEADER = 'mcp-session-id';
import { BodyPrefix, flatHeaders } from './exchange.ts';
import { contentText } from './content.ts';
import { decodedRecording, harDocument, harEntryOf, HAR_KEPT_BYTES, HIDDEN_BODY_FIELD, SIGNATURE_FIELD, type BodyForm, type DecodingBudget, type RecordedBytes } from './har.ts';
import { writeHarEntries } from './har-writer.ts';
import { CloseGraceExpired, ReaderStopped } from '../probe/stream-stop.ts';
import { factsOfProfile, PROFILE_FACTS_FIELD, type ProfileFacts } from './profile-facts.ts';
import { CREDENTIAL_HEADERS, CREDENTIAL_QUERY_PARAMETERS, CREDENTIAL_SCHEME, requestCredentials } from './secrets.ts';
import type { Profile } from '../profile/schema.ts';
import { isRecord, parseJson } from '../util/json.ts';
import { SIGNING_SECRET_LABEL, WEBHOOK_HEADERS } from '../webhooks/signature.ts';
import { macVerifies } from '../webhooks/mac.ts';
import type { AnsweredDelivery } from '../webhooks/receiver.ts';

export const RECORDED_BODY_LIMIT = 1024 * 1024;
/**
 * Bytes of bodies a `certify --har-out` recording keeps in all (`--max-kept-bytes`): a whole run
 * against a well-behaved deployment keeps some 10-20 MiB, and a hostile one cannot push the run past
 * its memory bound with this one.
 */
export const RECORDING_KEPT_BYTES = 32 * 1024 * 1024;
/** Webhook deliveries a recording keeps at most: the receiver keeps 2,000 an endpoint, and a run registers a handful. */
export const RECORDED_DELIVERIES = 10_000;

type Handler = Dispatcher.DispatchHandler;

function requestBodyBytes(body: unknown): Buffer | undefined {
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body);
  return undefined;
}

/** How a recording hides the profile's secrets: each named one by its own marker, then the redactor; and the profile's facts it carries. */
export interface SecretHiding {
  secrets: ReadonlyArray<{ value: string; label: string }>;
  /**
   * Values replaced whole, each by its own marker, in the credential headers and query parameters
   * they were sent in only (a credential the deployment refused: not a secret it holds, but a
   * client's): the bodies that were judged stay as they were.
   */
  inCredentialHeaders?: ReadonlyArray<{ value: string; label: string }>;
  /**
   * The traffic is clients' own (the proxy): each exchange's request credentials are replaced
   * whole in its own answer's headers and body as well, wherever it repeats them, whatever it
   * answered (a refused token echoed in a 401's detail is still the client's credential).
   */
  echoes?: boolean;
  redactor: Redactor;
  facts?: ProfileFacts;
}

/** The hiding for a run's profile: its credentials by name, the run's redactor for everything else, and its facts. */
export function hidingFor(profile: Profile | undefined, redactor: Redactor): SecretHiding {
  if (!profile) return { secrets: [], redactor };
  return { secrets: profile.credentials.map((c) => ({ value: c.token, label: `token:${c.name}` })), redactor, facts: factsOfProfile(profile) };
}

/** Whether an answer's error is apicert's own abort (undici's RequestAbortedError, or a signal's AbortError), not the connection's. */
function isAbort(error: Error): boolean {
  return error.name === 'AbortError' || (error as { code?: unknown }).code === 'UND_ERR_ABORTED';
}

export class HarRecorder {
  private readonly recorded: RecordedBytes[] = [];
  private readonly bodyLimit: number;
  private readonly maxKeptBytes: number;
  /** Body bytes kept so far, across every exchange. */
  private keptBytes = 0;
  /** Bodies kept in part (or not at all) because the budget was spent. */
  private cutByBudget = 0;
  /** Deliveries recorded (`inbound`), and those past RECORDED_DELIVERIES that were not. */
  private deliveries = 0;
  unrecordedDeliveries = 0;
  constructor(bodyLimit = RECORDED_BODY_LIMIT, maxKeptBytes = RECORDING_KEPT_BYTES) {
    this.bodyLimit = bodyLimit;
    this.maxKeptBytes = maxKeptBytes;
  }

  get count(): number {
    return this.recorded.length;
  }

  /** How many bodies the byte budget cut (`--max-kept-bytes`). */
  get cut(): number {
    return this.cutByBudget;
  }

  /** How many of `n` more body bytes the budget grants. */
  private grant(n: number): number {
    const granted = Math.max(0, Math.min(n, this.maxKeptBytes - this.keptBytes));
    this.keptBytes += granted;
    return granted;
  }

  /** The interceptor to compose onto the run's dispatcher. */
  readonly interceptor = (dispatch: Dispatcher['dispatch']): Dispatcher['dispatch'] => {
    return (options, handler) => {
      const started = new Date();
      const t0 = performance.now();
      const origin = typeof options.origin === 'string' ? options.origin : (options.origin?.toString() ?? '');
      const rec: RecordedBytes = {
        startedAt: started,
        method: options.method,
        // The target as sent: WHATWG's URL would remove dot segments and re-encode it (exchange.ts, targetOf).
        url: options.path.startsWith('/') ? `${origin.replace(/\/+$/, '')}${options.path}` : new URL(options.path, origin).toString(),
        requestHeaders: flatHeaders(options.headers as Record<string, unknown> | null),
        responseHeaders: {},
      };
      const body = requestBodyBytes(options.body);
      if (body !== undefined) {
        // apicert's own bodies, whole (the catalogue's cases are matched by the body as built), within the budget only.
        const granted = this.grant(body.length);
        // A copy: a view would hold the whole body.
        rec.requestBody = granted < body.length ? Buffer.from(body.subarray(0, granted)) : body;
        if (granted < body.length) {
          rec.requestTruncated = true;
          this.cutByBudget += 1;
        }
      }
      // Kept in the order the requests were sent: a replay must follow what it replays.
      this.recorded.push(rec);
      const prefix = new BodyPrefix(this.bodyLimit);
      let size = 0;
      let spent = false;
      let done = false;
      const finish = (error?: Error) => {
        if (done) return;
        done = true;
        rec.durationMs = Math.round(performance.now() - t0);
        if (rec.status !== undefined) {
          rec.responseBody = prefix.bytes;
          if (spent) this.cutByBudget += 1;
          if (prefix.truncated || spent) {
            rec.responseTruncated = true;
            rec.responseSize = size;
          }
        }
        // A stream apicert stopped reading on purpose (after its terminal event, at its first event, at a bound) is still a
        // recording of what came, and says it was stopped: its end is not the server's. A connection that broke is not a stop.
        if (error && rec.status === undefined) rec.error = error.message;
        else if (error && isAbort(error)) {
          rec.readerStopped = true;
          // The reader waited its whole close grace after the terminal event: what the closing rules judge, so the recording keeps it.
          // undici's body drops the abort's reason on its way down: the request's own signal still holds it.
          const reason = (options as { signal?: { reason?: unknown } | null }).signal?.reason;
          // Which of the reader's stops it was (its time bound, a size bound, a disconnect): judge-traffic reads it as certify did.
          if (reason instanceof ReaderStopped) rec.readerEnd = reason.end;
          if (reason instanceof CloseGraceExpired) rec.closeGraceMs = reason.graceMs;
        }
      };
      const wrapped: Handler = {
        onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
        onRequestUpgrade: (controller, status, headers, socket) => handler.onRequestUpgrade?.(controller, status, headers, socket),
        onResponseStart: (controller, status, headers, statusMessage) => {
          if (status >= 200) {
            rec.status = status;
            rec.responseHeaders = flatHeaders(headers as Record<string, unknown>);
          }
          return handler.onResponseStart?.(controller, status, headers, statusMessage);
        },
        onResponseData: (controller, chunk) => {
          size += chunk.length;
          // The budget is asked only for what the body's own limit would keep.
          const wanted = Math.min(chunk.length, Math.max(0, this.bodyLimit - prefix.kept));
          const granted = this.grant(wanted);
          if (granted < wanted) spent = true;
          if (granted < chunk.length) {
            prefix.add(chunk.subarray(0, granted));
            prefix.truncated = true;
          } else prefix.add(chunk);
          return handler.onResponseData?.(controller, chunk);
        },
        onResponseEnd: (controller, trailers) => {
          finish();
          return handler.onResponseEnd?.(controller, trailers);
        },
        onResponseError: (controller, error) => {
          finish(error);
          return handler.onResponseError?.(controller, error);
        },
      };
      return dispatch(options, wrapped);
    };
  };

  /**
   * A delivery the run's receiver answered: the target's request to apicert, recorded as any
   * exchange is (the same budget), so a recording holds what the delivery rules judge. Its request
   * body is the target's, kept as far as the body limit and the budget reach.
   */
  readonly inbound = (delivery: AnsweredDelivery): void => {
    // The run bounds what it sends, not what a target delivers: a flood costs a count, not memory.
    if (this.deliveries >= RECORDED_DELIVERIES) {
      this.unrecordedDeliveries += 1;
      return;
    }
    this.deliveries += 1;
    const wanted = Math.min(delivery.rawBody.length, this.bodyLimit);
    const granted = this.grant(wanted);
    const rec: RecordedBytes = {
      startedAt: new Date(delivery.receivedAt),
      durationMs: Math.max(0, Date.now() - delivery.receivedAt),
      method: delivery.method,
      url: delivery.url,
      requestHeaders: { ...delivery.headers },
      requestBody: granted < delivery.rawBody.length ? Buffer.from(delivery.rawBody.subarray(0, granted)) : delivery.rawBody,
      status: delivery.status,
      responseHeaders: { ...delivery.responseHeaders },
      responseBody: Buffer.alloc(0),
    };
    if (granted < delivery.rawBody.length) {
      rec.requestTruncated = true;
      if (granted < wanted) this.cutByBudget += 1;
    }
    this.recorded.push(rec);
  };

  /** The recording as a HAR document (`hiddenHar`). */
  document(version: string, hiding?: SecretHiding): Record<string, unknown> {
    return hiddenHar(this.recorded, version, hiding, this.maxKeptBytes);
  }

  /**
   * Writes the recording entry by entry: no document, and no string of it, is ever whole in memory.
   * Bodies the budget cut as they were decoded count in `cut` as those it cut as they came.
   */
  async write(file: string, version: string, hiding?: SecretHiding): Promise<void> {
    const hidden = hiddenEntries(this.recorded, hiding, this.maxKeptBytes);
    await writeHarEntries(file, version, hidden.facts, (function* (recorded) {
      for (const rec of recorded) yield hidden.entryOf(rec);
    })(this.recorded));
    this.cutByBudget += hidden.cut();
  }
}

/** Decoded bytes a recording keeps of one compressed body at most (the recorder keeps this much of each body as sent). */
const DECODED_LIMIT = RECORDED_BODY_LIMIT;

/** A body as a hidden recording keeps it: its bytes, whether they are a part of the body only, and, when none was kept, the size it had. */
interface HiddenBody {
  bytes: Buffer;
  truncated: boolean;
  droppedSize?: number;
  /** A secret in it was replaced by a marker: its bytes are not the wire's, nor as many (HIDDEN_BODY_FIELD). */
  rewritten?: boolean;
}

/** Text of bytes, whole characters only: UTF-8 when they are (a cut may end inside a character), else Latin-1, one character a byte, so what is not replaced is written back as it was. */
function textOf(bytes: Buffer, cut: boolean): { text: string; encoding: 'utf8' | 'latin1' } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes, { stream: cut }), encoding: 'utf8' };
  } catch {
    return { text: bytes.toString('latin1'), encoding: 'latin1' };
  }
}

/**
 * A body with its secrets hidden, bytes in and bytes out, after its content coding was undone
 * (`decodedRecording`: the secrets are in the decoded text, and the recording keeps that text, as
 * HAR 1.2 and browsers do). A body under a coding that could not be decoded here (`wire`) is not
 * kept: a secret may be inside it in a form no search finds, and no judgement could read it either.
 * Bytes that are not UTF-8 are read one character a byte, so what holds no secret stays as it was.
 */
function hiddenBody(bytes: Buffer, form: BodyForm | undefined, prefix: boolean, replace: (text: string) => string): HiddenBody {
  if (form === 'wire') return { bytes: Buffer.alloc(0), truncated: true, droppedSize: bytes.length };
  // A kept prefix may end inside a character: still UTF-8 text, its last character left out.
  const { text, encoding } = textOf(bytes, prefix);
  const hidden = replace(text);
  if (hidden === text) return { bytes, truncated: false };
  return { bytes: Buffer.from(hidden, encoding), truncated: false, rewritten: true };
}

/**
 * Writes a HAR document readable by its owner only, hidden or not: traffic holds more than the
 * secrets apicert knows of (a value of no known shape a client sent in a body). A file that was
 * already there is made so before anything is written to it.
 */
export async function writeHar(file: string, document: Record<string, unknown>): Promise<void> {
  const log = document.log as Record<string, unknown>;
  const facts = log[PROFILE_FACTS_FIELD] as ProfileFacts | undefined;
  const version = (log.creator as { version: string }).version;
  await writeHarEntries(file, version, facts, log.entries as ReadonlyArray<Record<string, unknown>>);
}

/** An exchange's own refused credentials searched for in its answer's body at most: each is one pass over it, and a request carries one or two. */
const ECHOED_VALUES = 16;

/**
 * The signing secrets the target's webhook creation answers returned, each with its own label: a
 * recording that hides them still shows where one secret appears again (`«redacted:signing-secret#2»`).
 */
function signingSecrets(recorded: readonly RecordedBytes[]): Array<{ value: string; label: string }> {
  const found = new Map<string, string>();
  for (const rec of recorded) {
    const secret = answeredSigningSecret(rec);
    if (secret !== undefined && secret.length >= 8 && !found.has(secret)) found.set(secret, `${SIGNING_SECRET_LABEL}#${found.size + 1}`);
  }
  return [...found].map(([value, label]) => ({ value, label }));
}

/** The `signing_secret` a webhook creation (POST /v1/webhooks) answered with, whatever its status; read by the hiding and the signature fact alike. */
function answeredSigningSecret(rec: RecordedBytes): string | undefined {
  if (rec.method !== 'POST' || rec.responseBody === undefined || !/\/v1\/webhooks\/?$/.test(new URL(rec.url).pathname)) return undefined;
  const parsed = parseJson(contentText(rec.responseBody, rec.responseHeaders['content-encoding'], DECODED_LIMIT).text);
  const secret = parsed.ok && isRecord(parsed.value) ? parsed.value.signing_secret : undefined;
  return typeof secret === 'string' ? secret : undefined;
}

/** Each webhook endpoint's signing secret, by the URL its registration gave (a creation request and its 2xx answer). */
function endpointSecrets(recorded: readonly RecordedBytes[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const rec of recorded) {
    if (rec.status === undefined || rec.status < 200 || rec.status > 299 || rec.requestBody === undefined) continue;
    const secret = answeredSigningSecret(rec);
    if (secret === undefined) continue;
    const sent = parseJson(rec.requestBody.toString('utf8'));
    const url = sent.ok && isRecord(sent.value) ? sent.value.url : undefined;
    if (typeof url === 'string') found.set(url, secret);
  }
  return found;
}

/**
 * A delivery's entry with whether its MAC verified with its endpoint's signing secret (SIGNATURE_FIELD),
 * checked on the bytes as they came, before any secret is hidden: the recording hides the secret, so
 * this is all of it a judge can use. Only for a delivery kept whole to an endpoint the recording registered.
 */
function withSignatureFact(entry: Record<string, unknown>, rec: RecordedBytes, secrets: ReadonlyMap<string, string>): Record<string, unknown> {
  if (rec.requestHeaders[WEBHOOK_HEADERS.signature] === undefined || rec.requestBody === undefined || rec.requestTruncated) return entry;
  const secret = secrets.get(rec.url);
  if (secret === undefined) return entry;
  (entry.request as Record<string, unknown>)[SIGNATURE_FIELD] = macVerifies(rec.requestHeaders, rec.requestBody, secret) ? 'verifies' : 'does-not-verify';
  return entry;
}

/**
 * An entry whose body text had a secret replaced by a marker, marked so (HIDDEN_BODY_FIELD): the
 * marker is shorter or longer than the secret, so the text no longer has the Content-Length the
 * request kept, and a judge of the file would read a whole body as a prefix of it.
 */
function markedRewritten(entry: Record<string, unknown>, rewritten: { request: boolean; response: boolean } | undefined): Record<string, unknown> {
  if (rewritten === undefined) return entry;
  const request = entry.request as { postData?: Record<string, unknown> };
  const response = entry.response as { content?: Record<string, unknown> };
  if (rewritten.request && request.postData) request.postData[HIDDEN_BODY_FIELD] = true;
  if (rewritten.response && response.content) response.content[HIDDEN_BODY_FIELD] = true;
  return entry;
}

/**
 * The session ids the target issued that the redactor would hide (shaped like a credential: a
 * JWT), each with its own label: one shared marker would make every session the same one, and the
 * session rules could no longer tell them apart (`«redacted:mcp-session-id#2»`).
 */
function hiddenSessionIds(recorded: readonly RecordedBytes[], redactor: Redactor): Array<{ value: string; label: string }> {
  const found = new Map<string, string>();
  for (const rec of recorded) {
    const id = rec.responseHeaders[SESSION_ID_HEADER];
    if (id !== undefined && id.length > 0 && !found.has(id) && redactor.text(id) !== id) found.set(id, `${TARGET_ISSUED_SESSION}#${found.size + 1}`);
  }
  return [...found].map(([value, label]) => ({ value, label }));
}

/** A URL with each credential query parameter (`access_token`, an API key) whose value is one of `values` holding that value's marker instead. */
function hiddenQueryCredentials(url: string, values: ReadonlyArray<{ value: string; label: string }>): string {
  const at = url.indexOf('?');
  if (at === -1 || values.length === 0) return url;
  const end = url.indexOf('#', at);
  const query = url.slice(at + 1, end === -1 ? undefined : end);
  const pairs = query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq === -1 || !CREDENTIAL_QUERY_PARAMETERS.includes(decoded(pair.slice(0, eq)).toLowerCase())) return pair;
    const value = decoded(pair.slice(eq + 1)).replace(CREDENTIAL_SCHEME, '').trim();
    const found = values.find((v) => v.value === value);
    return found ? `${pair.slice(0, eq)}=${queryComponent(marker(found.label))}` : pair;
  });
  return `${url.slice(0, at + 1)}${pairs.join('&')}${end === -1 ? '' : url.slice(end)}`;
}

/**
 * A marker as a query value: a learned secret's label holds `#` (`query:access_token#1`), which a
 * reader of the URL takes for the fragment, cutting the rest of the query; `&`, `+` and `%` would be
 * read as other parameters, a space, an escape. Decoded as a server reads it, it is the marker again.
 */
function queryComponent(text: string): string {
  return text.replace(/[#&+%]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** A query component as a server reads it (`+` is a space); left as it is when it is not valid percent-encoding. */
function decoded(component: string): string {
  try {
    return decodeURIComponent(component.replaceAll('+', ' '));
  } catch {
    return component;
  }
}

/**
 * The recording as a HAR document. With `hiding`, each secret of the profile is first replaced
 * whole by its own marker (`«redacted:token:<name>»`), so two credentials stay two callers in the
 * recording; the redactor then hides what is left (parts of secrets, other secret shapes). The
 * hiding's profile facts go in too (profile-facts.ts): a judge of the recording reads who each
 * marker is from them. Bodies under a content coding are kept decoded (HAR 1.2), their decoded
 * bytes within `maxKeptBytes` of bodies in all (the proxy's record is bounded by its own budget,
 * `judge-traffic` reads HAR_KEPT_BYTES).
 */
export function hiddenHar(recorded: readonly RecordedBytes[], version: string, hiding?: SecretHiding, maxKeptBytes = HAR_KEPT_BYTES): Record<string, unknown> {
  const hidden = hiddenEntries(recorded, hiding, maxKeptBytes);
  return harDocument(recorded.map(hidden.entryOf), version, hidden.facts);
}

/** What `hiddenHar` writes, one entry at a time: the secrets to hide are learned from the whole recording first. */
function hiddenEntries(recorded: readonly RecordedBytes[], hiding: SecretHiding | undefined, maxKeptBytes: number): { entryOf: (rec: RecordedBytes) => Record<string, unknown>; facts: ProfileFacts | undefined; cut: () => number } {
  const secrets = hiding ? [...hiding.secrets, ...signingSecrets(recorded), ...hiddenSessionIds(recorded, hiding.redactor)].sort((a, b) => b.value.length - a.value.length) : [];
  const inHeaders = hiding?.inCredentialHeaders?.length ? [...secrets, ...hiding.inCredentialHeaders].sort((a, b) => b.value.length - a.value.length) : secrets;
  const replace = (input: string, whole: ReadonlyArray<{ value: string; label: string }> = secrets) => {
    if (!hiding) return input;
    const markers: string[] = [];
    const held = whole.reduce((text, s) => text.replaceAll(s.value, () => `\u0000${markers.push(marker(s.label)) - 1}\u0000`), input);
    // What the redactor hides after the whole secrets is a part of one (a key sent without its prefix): its
    // marker says so, so a judge never reads a part as the credential itself.
    return hiding.redactor.text(held).replaceAll('«redacted:token:', '«redacted:part-of-token:').replace(/\u0000(\d+)\u0000/g, (_, i: string) => markers[Number(i)]!);
  };
  const refusedLabel = new Map((hiding?.inCredentialHeaders ?? []).map((s) => [s.value, s.label]));
  /**
   * The request's own refused credentials, each with its marker's label, where its answer may
   * repeat them: the redactor hides a held one everywhere already, and a refused one is replaced
   * in its own exchange only, so what other exchanges' bodies say of it stays as judged.
   */
  const echoedOf = (rec: RecordedBytes) => (hiding?.echoes ? requestCredentials(rec.requestHeaders, rec.url).filter((v) => refusedLabel.has(v)).map((value) => ({ value, label: refusedLabel.get(value)! })) : []);
  const plus = (whole: ReadonlyArray<{ value: string; label: string }>, more: ReadonlyArray<{ value: string; label: string }>) => (more.length === 0 ? whole : [...whole, ...more].sort((a, b) => b.value.length - a.value.length));
  /** The hidden exchanges whose request or answer body had a secret replaced, by body. */
  const rewritten = new WeakMap<RecordedBytes, { request: boolean; response: boolean }>();
  const hide = (rec: RecordedBytes): RecordedBytes => {
    if (!hiding) return rec;
    const echoed = echoedOf(rec);
    const answer = plus(secrets, echoed);
    const headers = (h: Record<string, string>, others: ReadonlyArray<{ value: string; label: string }>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, replace(v, CREDENTIAL_HEADERS.includes(k) ? inHeaders : others)]));
    const out: RecordedBytes = { ...rec, url: replace(hiddenQueryCredentials(rec.url, inHeaders)), requestHeaders: headers(rec.requestHeaders, secrets), responseHeaders: headers(rec.responseHeaders, answer) };
    if (rec.requestBody !== undefined) {
      const request = hiddenBody(rec.requestBody, rec.requestForm, rec.requestTruncated === true, replace);
      out.requestBody = request.bytes;
      if (request.truncated) out.requestTruncated = true;
      if (request.rewritten) rewritten.set(out, { request: true, response: false });
    }
    // A request with more credentials than a body is searched for (one pass each): its answer's body is not kept, as one that cannot be searched.
    if (rec.responseBody !== undefined && echoed.length > ECHOED_VALUES) {
      out.responseBody = Buffer.alloc(0);
      out.responseTruncated = true;
      out.responseSize = Math.max(rec.responseSize ?? 0, rec.responseWireSize ?? 0, rec.responseBody.length);
      // None of it kept: no decoded text to speak of (the size says how much there was).
      if (rec.responseForm) out.responseForm = 'wire';
    } else if (rec.responseBody !== undefined) {
      const response = hiddenBody(rec.responseBody, rec.responseForm, rec.responseTruncated === true, (text) => replace(text, answer));
      out.responseBody = response.bytes;
      if (response.rewritten) rewritten.set(out, { request: rewritten.get(out)?.request === true, response: true });
      if (response.truncated) {
        out.responseTruncated = true;
        out.responseSize = Math.max(rec.responseSize ?? 0, response.droppedSize ?? 0, response.bytes.length + 1);
      }
    }
    if (rec.error !== undefined) out.error = replace(rec.error);
    return out;
  };
  // The facts hold no token, but a fixture may hold a value of a secret's shape (a receiver URL's query): hidden as the entries are.
  const hideStrings = (value: unknown): unknown => (typeof value === 'string' ? replace(value) : Array.isArray(value) ? value.map(hideStrings) : isRecord(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hideStrings(v)])) : value);
  /*
   * Decoded bodies are kept within the recording's byte budget as the wire bytes were: what decoding
   * adds to them is taken from what the wire bytes left of `maxKeptBytes`, in the order written, so a
   * target answering a small gzip bomb to every request costs the budget, not a MiB a request.
   */
  const budget: DecodingBudget = { room: maxKeptBytes, cut: 0 };
  for (const rec of recorded) budget.room -= (rec.requestBody?.length ?? 0) + (rec.responseBody?.length ?? 0);
  const decoded = (rec: RecordedBytes) => decodedRecording(rec, DECODED_LIMIT, budget);
  const endpoints = endpointSecrets(recorded);
  const entryOf = (rec: RecordedBytes) => {
    const hidden = hide(decoded(rec));
    return markedRewritten(harEntryOf(hidden), rewritten.get(hidden));
  };
  return { entryOf: (rec) => withSignatureFact(entryOf(rec), rec, endpoints), facts: hiding?.facts === undefined ? undefined : (hideStrings(hiding.facts) as ProfileFacts), cut: () => budget.cut };
}
