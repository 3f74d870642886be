/**
 * HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), as browsers' developer tools,
 * mitmproxy and other recorders write it: read into exchanges the judge reads, and written from
 * the exchanges apicert records. Only the fields the judge needs are read; the rest may be absent.
 */
import { isUtf8 as bytesAreUtf8 } from 'node:buffer';
import { readFile, stat } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { isRecord, MAX_JSON_DEPTH, nestsDeeperThan, parseJsonDocument } from '../util/json.ts';
import { contentText, decodedContent, isUtf8, unreadableBody } from './content.ts';
import { codingsOf } from '../util/content-coding.ts';
import { addHeader, mediaType, targetOf, type TrafficExchange } from './exchange.ts';
import type { StreamEnd } from '../rule/index.ts';
import { failedExchange } from './failed-exchange.ts';
import { PROFILE_FACTS_FIELD, type ProfileFacts } from './profile-facts.ts';
import { onSurface } from '../traffic/read.ts';

/** What the judge keeps of one body; a recording's longer bodies are judged on this prefix. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/**
 * A HAR file (or a .har.gz unpacked) larger than this is refused (`judge-traffic --max-har-bytes`).
 * Reading one costs 5 to 12 times its size (the text, the parsed document, the exchanges: 1.4 GiB
 * for 120 MiB of 150,000 small entries), and a
 * whole `certify --har-out` run fits well below: 20 MiB against a well-behaved deployment, and its
 * --max-kept-bytes of bodies plus headers against one that answers 1 GiB to everything.
 */
export const MAX_HAR_BYTES = 128 * 1024 * 1024;
/** Characters of bodies a recording keeps in all, as the proxy's record does (`--max-kept-bytes`): compressed bodies unpack to up to `bodyLimit` each, far more than the file held. */
export const HAR_KEPT_BYTES = 128 * 1024 * 1024;

type NameValue = { name: string; value: string };

/**
 * Where an apicert recording says how it kept a body under a Content-Encoding (a field of `content`
 * and `postData`; HAR 1.2 lets a writer add fields that begin with `_`): `decoded`, the coding undone
 * as HAR 1.2 keeps every body ("either HTTP decoded text or a encoded (e.g. "base64") representation
 * of the decoded response body"); `wire`, the bytes as sent, base64, for a body apicert could not
 * decode. Absent, as in browsers' HARs and in apicert's own before it wrote this field, the bytes
 * tell which they are (content.ts).
 */
export const BODY_FORM_FIELD = '_apicertBody';
/**
 * Where an apicert recording says that apicert itself stopped reading an answer it had begun (a
 * field of `response`), as its reader's `StreamEnd`: `timeout`, `byte-limit`, `event-limit`, the
 * reader's own bounds (certify's reading of them is the recording's); `client-disconnect`, the
 * reader broke the stream off (at its first event, after a terminal event; recordings written
 * before the bounds were told apart say it for those too); `grace-expired`, the stream was still
 * open when the close grace after its terminal event ran out (its length in `CLOSE_GRACE_FIELD`),
 * which the rules on closing a stream fail as certify does. Without it a stream cut before its
 * terminal event reads as one its server ended there. Other writers' aborts are `_error`/`_failureText`.
 */
export const READER_STOP_FIELD = '_apicertStreamEnd';
/** The close grace (ms) apicert's reader waited after the terminal event of a stream it then let go of (`grace-expired`). */
export const CLOSE_GRACE_FIELD = '_apicertCloseGraceMs';
/**
 * Where an apicert recording says whether a webhook delivery's MAC verified with the endpoint's
 * signing secret (a field of `request`: `verifies` or `does-not-verify`): the recording hides the
 * secret, so its writer checks the MAC first (recorder.ts), for the delivery rule to judge.
 */
export const SIGNATURE_FIELD = '_apicertSignature';
/** The reader's stops `READER_STOP_FIELD` carries besides `grace-expired`, read back unchanged. */
const READER_STOPS: ReadonlySet<unknown> = new Set<StreamEnd>(['client-disconnect', 'timeout', 'byte-limit', 'event-limit']);
export type BodyForm = 'decoded' | 'wire';

/** The fields of a HAR entry the judge reads (any other field may be there too). */
export interface HarEntry {
  startedDateTime?: string;
  time?: number;
  request: { method: string; url: string; headers?: NameValue[]; postData?: { mimeType?: string; text?: string; encoding?: string; [BODY_FORM_FIELD]?: unknown }; bodySize?: number; [SIGNATURE_FIELD]?: unknown };
  response?: {
    status: number;
    headers?: NameValue[];
    content?: { size?: number; mimeType?: string; text?: string; encoding?: string; [BODY_FORM_FIELD]?: unknown };
    bodySize?: number;
    _error?: string | null;
    _failureText?: string | null;
    [READER_STOP_FIELD]?: unknown;
    [CLOSE_GRACE_FIELD]?: unknown;
  };
  // Where Chromium-based writers (Playwright, DevTools) and others put their extensions.
  _error?: string | null;
  _failureText?: string | null;
  _resourceType?: string | null;
}

/*
 * Checked by hand, not with a schema parse: a schema copied every entry and every header of a
 * recording (the largest cost of reading one). Each test is what `z.string().optional()`,
 * `.nullish()`, `z.number()` (finite) and `z.looseObject` accept: absent and undefined are the same.
 */
const optionalString = (v: unknown) => v === undefined || typeof v === 'string';
const nullishString = (v: unknown) => v === undefined || v === null || typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const optionalNumber = (v: unknown) => v === undefined || isNumber(v);

function nameValues(v: unknown): boolean {
  if (v === undefined) return true;
  if (!Array.isArray(v)) return false;
  for (const h of v) if (!isRecord(h) || typeof h.name !== 'string' || typeof h.value !== 'string') return false;
  return true;
}

function body(v: unknown, size: 'size' | undefined): boolean {
  if (v === undefined) return true;
  return isRecord(v) && optionalString(v.mimeType) && optionalString(v.text) && optionalString(v.encoding) && (size === undefined || optionalNumber(v.size));
}

function isHarEntry(raw: unknown): raw is HarEntry {
  if (!isRecord(raw) || !optionalString(raw.startedDateTime) || !optionalNumber(raw.time)) return false;
  const req = raw.request;
  if (!isRecord(req) || typeof req.method !== 'string' || typeof req.url !== 'string' || !nameValues(req.headers) || !body(req.postData, undefined) || !optionalNumber(req.bodySize)) return false;
  const res = raw.response;
  if (res !== undefined && !(isRecord(res) && isNumber(res.status) && nameValues(res.headers) && body(res.content, 'size') && optionalNumber(res.bodySize) && nullishString(res._error) && nullishString(res._failureText))) return false;
  return nullishString(raw._error) && nullishString(raw._failureText) && nullishString(raw._resourceType);
}

/** `{ log: { version?: string, entries: [...] } }`, any other field allowed. */
function harEntries(doc: unknown): unknown[] | undefined {
  if (!isRecord(doc) || !isRecord(doc.log) || !optionalString(doc.log.version) || !Array.isArray(doc.log.entries)) return undefined;
  return doc.log.entries;
}

/** A HAR the judge cannot read: the message says what is wrong with it (a usage error). */
export class HarError extends Error {
  override readonly name = 'HarError';
}

/** HTTP/2 pseudo-headers (`:status`, `:authority`) are the recorder's view of framing, not headers. */
function headersOf(list: readonly NameValue[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (list) for (const h of list) if (!h.name.startsWith(':')) addHeader(out, h.name, h.value);
  return out;
}

function bytesOf(text: string, encoding: string | undefined): Buffer {
  return encoding === 'base64' ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
}

/** A UTF-16 surrogate: text that holds one (paired or lone) takes the long way, which handles both. */
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * A body's text and its size in bytes. Text the recorder kept as text, under no content coding, is
 * taken as it is (what encoding it to bytes and decoding them again would give, without the copies);
 * anything else goes through `contentText`.
 */
function bodyText(text: string, encoding: string | undefined, contentEncoding: string | undefined, bodyLimit: number, keepByteOrderMark: boolean): { text: string; truncated: boolean; bytes: number; undecodable?: string } {
  const coding = (contentEncoding ?? '').trim().toLowerCase();
  if (encoding !== 'base64' && (coding === '' || coding === 'identity')) {
    const bytes = Buffer.byteLength(text, 'utf8');
    // As many bytes as characters: all ASCII, so no surrogate (the pattern need not read it again).
    if (bytes <= bodyLimit && (bytes === text.length || !SURROGATE.test(text))) return { text: !keepByteOrderMark && text.startsWith('\uFEFF') ? text.slice(1) : text, truncated: false, bytes };
    // All ASCII past the limit (a 1 MiB probe body): its first `bodyLimit` bytes are as many characters, and no byte order mark
    // can lead it, so the prefix is what `contentText` would decode, without a MiB copied to bytes and back.
    if (bytes === text.length) return { text: text.slice(0, bodyLimit), truncated: true, bytes };
  }
  const raw = bytesOf(text, encoding);
  return { ...contentText(raw, contentEncoding, bodyLimit, keepByteOrderMark), bytes: raw.length };
}

/** One HAR entry as an exchange; `undefined` for an entry that is not a request at all. */
export function exchangeOfEntry(raw: unknown, index: number, bodyLimit = DEFAULT_BODY_LIMIT): TrafficExchange | undefined {
  if (!isHarEntry(raw)) return undefined;
  const entry = raw;
  // A CORS preflight is the browser's own question, not a request of the client's: nothing to judge.
  if (entry._resourceType === 'preflight') return undefined;
  // A URL the WHATWG parser takes (what `new URL` would not throw on), asked without building one per entry.
  if (!URL.canParse(entry.request.url)) return undefined;
  const ex: TrafficExchange = {
    index,
    method: entry.request.method,
    url: entry.request.url,
    path: targetOf(entry.request.url),
    requestHeaders: headersOf(entry.request.headers),
    responseHeaders: {},
  };
  if (entry.startedDateTime) ex.startedAt = entry.startedDateTime;
  // -1 and absent both mean "not recorded".
  if (typeof entry.time === 'number' && entry.time >= 0) ex.durationMs = Math.round(entry.time);
  readRequestBody(ex, entry, bodyLimit);
  const signature = entry.request[SIGNATURE_FIELD];
  if (signature === 'verifies' || signature === 'does-not-verify') ex.signatureVerified = signature === 'verifies';
  const res = entry.response;
  const failure = res?._failureText ?? res?._error ?? entry._failureText ?? entry._error ?? undefined;
  // Browsers record a request that got no answer as status 0.
  if (!res || res.status <= 0) {
    ex.error = failure ?? 'no response was recorded';
    return ex;
  }
  ex.status = res.status;
  ex.responseHeaders = headersOf(res.headers);
  readResponseBody(ex, res, bodyLimit, failure ?? undefined);
  // An answer began and the exchange then failed: the client aborted it (a stream it stopped reading), or the connection broke.
  if (failure) failedExchange(ex, failure);
  else if (READER_STOPS.has(res[READER_STOP_FIELD])) ex.streamEnd = res[READER_STOP_FIELD] as StreamEnd;
  else if (res[READER_STOP_FIELD] === 'grace-expired') {
    ex.streamEnd = 'grace-expired';
    const grace = res[CLOSE_GRACE_FIELD];
    if (typeof grace === 'number' && Number.isFinite(grace) && grace >= 0) ex.closeGraceMs = grace;
  }
  markStrippedCredential(ex);
  return ex;
}

/**
 * Where an apicert recording says that its writer replaced secrets in a body's text by markers (a
 * field of `request.postData` and `response.content`, `true`): the text is no longer as long as the
 * body was on the wire, so its size is the one the writer gave (`bodySize`, `size`), never the kept
 * Content-Length, which would make a whole body read as a prefix (recorder.ts writes it).
 */
export const HIDDEN_BODY_FIELD = '_apicertHidden';

/** Writers that omit bodies (Playwright's `content: 'omit'`) keep `bodySize` and write empty text: that is a body not kept, not an empty one. */
function readRequestBody(ex: TrafficExchange, entry: HarEntry, bodyLimit: number): void {
  const post = entry.request.postData;
  const decoded = post?.[BODY_FORM_FIELD] === 'decoded';
  const hidden = (post as Record<string, unknown> | undefined)?.[HIDDEN_BODY_FIELD] === true;
  // A body kept decoded, or with secrets replaced, is measured by the size the writer gave, never by the wire's Content-Length.
  const declared = Math.max(entry.request.bodySize ?? -1, decoded || hidden ? -1 : Number(ex.requestHeaders['content-length'] ?? -1) || -1);
  if (post?.text === undefined || (post.text === '' && declared > 0)) {
    if (declared > 0) ex.requestBodyMissing = `the recorder kept no request body (the request had ${declared} bytes)`;
    return;
  }
  if (bodyLimit === 0 && post.text !== '') {
    ex.requestBody = '';
    ex.requestBodyTruncated = true;
    return;
  }
  // Kept decoded (apicert's field says so): its Content-Encoding is what was sent, not what the text is under.
  const coding = decoded ? undefined : ex.requestHeaders['content-encoding'];
  const body = bodyText(post.text, post.encoding, coding, bodyLimit, true);
  if (body.undecodable !== undefined) {
    ex.requestBodyMissing = unreadableBody("request's", body.undecodable);
    return;
  }
  ex.requestBody = body.text;
  // Fewer bytes than the request had (bodySize, Content-Length): the recorder kept a prefix. A content-coded body may be kept decoded, so only one known to be plain or decoded is measured.
  if (body.truncated || (coding === undefined && declared > body.bytes)) ex.requestBodyTruncated = true;
}

/** Answers that have no body by definition. */
function bodiless(ex: TrafficExchange): boolean {
  return ex.method === 'HEAD' || ex.status === 204 || ex.status === 304 || (ex.status !== undefined && ex.status < 200);
}

/** `failure`: the error the answer ended in, if any. */
function readResponseBody(ex: TrafficExchange, res: NonNullable<HarEntry['response']>, bodyLimit: number, failure: string | undefined): void {
  const content = res.content;
  const declared = Math.max(content?.size ?? -1, res.bodySize ?? -1);
  const stream = mediaType(ex.responseHeaders) === 'text/event-stream' || content?.mimeType?.startsWith('text/event-stream') === true;
  const kept = content?.text !== undefined && !(content.text === '' && declared > 0);
  if (!kept) {
    if (bodiless(ex) || declared === 0) {
      if (content?.text !== undefined) ex.responseBody = '';
      return;
    }
    const aborted = failure || undefined;
    ex.responseBodyMissing = aborted
      ? `the client aborted the ${stream ? 'stream' : 'answer'} (${aborted}) and the recorder kept none of its body`
      : declared > 0
        ? `the recorder kept no response body (the answer had ${declared} bytes)`
        : 'the recorder kept no response body';
    return;
  }
  // The reader's byte budget is spent (readHar): none of this body is kept, and it says so without decoding it.
  if (bodyLimit === 0 && content!.text !== '') {
    ex.responseBody = '';
    ex.responseBodyTruncated = true;
    return;
  }
  // Kept decoded (apicert's field says so): not decoded again, even when the decoded bytes look compressed (a .gz file served gzipped).
  const coding = content![BODY_FORM_FIELD] === 'decoded' ? undefined : ex.responseHeaders['content-encoding'];
  const body = bodyText(content!.text!, content!.encoding, coding, bodyLimit, false);
  if (body.undecodable !== undefined) {
    ex.responseBodyMissing = unreadableBody("answer's", body.undecodable);
    return;
  }
  ex.responseBody = body.text;
  // A recorder that kept fewer bytes than the body had says so only through `size`.
  const cut = typeof content!.size === 'number' && content!.size > 0 && body.bytes < content!.size && Buffer.byteLength(body.text, 'utf8') < content!.size;
  // What an aborted answer left is a part at most (failedExchange says so).
  if (body.truncated || cut) ex.responseBodyTruncated = true;
}

const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'cookie'];

/**
 * A request on a surface that carries no credential and was answered 2xx: every endpoint of the
 * surfaces needs one, so the recorder stripped it (Chrome's sanitized HAR export does, and so do
 * many proxies). Which credential was used is then unknown, never "none".
 */
function markStrippedCredential(ex: TrafficExchange): void {
  if (ex.status === undefined || ex.status < 200 || ex.status >= 300 || ex.method === 'OPTIONS') return;
  if (!(onSurface(ex, 'v8') || onSurface(ex, 'v1') || onSurface(ex, 'mcp'))) return;
  if (CREDENTIAL_HEADERS.some((h) => ex.requestHeaders[h] !== undefined)) return;
  ex.headersMissing = { ...ex.headersMissing, authorization: 'the request was answered 2xx without a credential header: the recorder stripped it' };
}

/** gzip's magic bytes: a `.har.gz`, or a HAR gzipped under another name. */
function gzipped(bytes: Buffer): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

export interface HarRecording {
  exchanges: TrafficExchange[];
  /** Entries that were not requests the judge could read (no URL, not an object). */
  skipped: number;
  /** The profile's facts `certify --har-out` wrote into the recording, as found (profile-facts.ts reads them). */
  facts?: unknown;
}

export interface HarLimits {
  /** Bytes the file, or a .har.gz unpacked, may have (MAX_HAR_BYTES). */
  maxBytes?: number;
  /** Characters of bodies kept across all entries (HAR_KEPT_BYTES); past it a body is kept as far as it reached, marked cut. */
  maxKeptBytes?: number;
}

/** A size for a message: MiB when it is whole MiB, else bytes. */
function sizeOf(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : `${bytes} bytes`;
}

export async function readHar(file: string, bodyLimit = DEFAULT_BODY_LIMIT, limits: HarLimits = {}): Promise<HarRecording> {
  const maxBytes = limits.maxBytes ?? MAX_HAR_BYTES;
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (error) {
    throw new HarError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}; give the path of a HAR file`);
  }
  const raise = `split the recording, or raise the limit with --max-har-bytes (reading a HAR takes 5 to 12 times its size in memory)`;
  if (size > maxBytes) throw new HarError(`${file} is ${size >= 1024 * 1024 ? `${(size / 1024 / 1024).toFixed(1)} MiB` : `${size} bytes`}, over the ${sizeOf(maxBytes)} a HAR may have here: ${raise}`);
  let bytes: Buffer | undefined = await readFile(file);
  const wasGzipped = gzipped(bytes);
  if (wasGzipped) {
    try {
      // Unpacking stops at the limit: a gzip bomb costs the limit, never what it would unpack to.
      bytes = gunzipSync(bytes, { maxOutputLength: maxBytes });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ERR_BUFFER_TOO_LARGE') throw new HarError(`${file} unpacks to more than ${sizeOf(maxBytes)}, the most a HAR may have here: ${raise}`);
      throw new HarError(`${file} is gzipped but cannot be unpacked (${code ?? (error as Error).message}): give a whole .har.gz of at most ${sizeOf(maxBytes)} unpacked`);
    }
  }
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  bytes = undefined;
  const parsed = parseJsonDocument(text);
  if (!parsed.ok && nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new HarError(`${file} nests its arrays and objects deeper than ${MAX_JSON_DEPTH} levels, more than apicert reads: no HAR writer nests so deep`);
  // A name that promises gzip over bytes that are not: say so, not "not JSON".
  if (!parsed.ok && /\.gz$/i.test(file) && !wasGzipped) throw new HarError(`${file} is named .gz but is not gzipped (nor JSON): give the HAR file itself, or the .har.gz gzip wrote of it`);
  if (!parsed.ok) throw new HarError(`${file} is not JSON: a HAR file is the JSON a browser's "Save all as HAR" or mitmproxy's HAR export writes (plain or gzipped)`);
  const entries = harEntries(parsed.value);
  if (!entries) throw new HarError(`${file} is JSON but not HAR: it has no log.entries array`);
  const exchanges: TrafficExchange[] = [];
  let skipped = 0;
  // Bounded as the proxy's record is: each body to `bodyLimit`, all of them to `maxKeptBytes`.
  let room = limits.maxKeptBytes ?? HAR_KEPT_BYTES;
  for (const raw of entries) {
    const ex = exchangeOfEntry(raw, exchanges.length, Math.min(bodyLimit, room));
    if (ex) {
      exchanges.push(ex);
      room = Math.max(0, room - (ex.requestBody?.length ?? 0) - (ex.responseBody?.length ?? 0));
    } else skipped += 1;
  }
  const facts = (parsed.value as { log: Record<string, unknown> }).log[PROFILE_FACTS_FIELD];
  return { exchanges, skipped, ...(facts !== undefined ? { facts } : {}) };
}

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict', 410: 'Gone', 422: 'Unprocessable Content', 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable' };

function pairs(headers: Record<string, string>): Array<{ name: string; value: string }> {
  return Object.entries(headers).map(([name, value]) => ({ name, value }));
}

/** A body as HAR content: text when it is UTF-8, else base64 (HAR 1.2's `encoding`). */
function content(bytes: Buffer | undefined, mimeType: string): { size: number; mimeType: string; text?: string; encoding?: string } {
  if (bytes === undefined) return { size: 0, mimeType };
  // Node's own check: no text is made of a body only to learn whether it is text (the writer's memory is its strings).
  if (bytesAreUtf8(bytes)) return { size: bytes.length, mimeType, text: bytes.toString('utf8') };
  return { size: bytes.length, mimeType, text: bytes.toString('base64'), encoding: 'base64' };
}

/** A UTF-8 prefix cut inside its last character, without that character's bytes: text still (a reader of the HAR sees JSON's beginning, not base64); undefined when more than that is not UTF-8. */
function utf8Prefix(bytes: Buffer): Buffer | undefined {
  for (let drop = 1; drop <= 3 && drop < bytes.length; drop += 1) {
    const head = bytes.subarray(0, bytes.length - drop);
    if (bytesAreUtf8(head)) return head;
  }
  return undefined;
}

/**
 * A body under a Content-Encoding as HAR content. Decoded (HAR 1.2): its text (base64 of the decoded
 * bytes when they are not UTF-8), `size` the decoded length, `compression` the bytes the coding
 * saved when the body was kept whole. A decoded prefix (the wire bytes or the decoded ones were cut)
 * is text to its last whole character and says it is a part by a `size` past it. As sent (`wire`):
 * base64 always, for the bytes are no text under their coding.
 */
function codedContent(bytes: Buffer, mimeType: string, form: BodyForm, cut: boolean, wireSize: number | undefined): Record<string, unknown> {
  if (form === 'wire') return { size: bytes.length, mimeType, text: bytes.toString('base64'), encoding: 'base64', [BODY_FORM_FIELD]: form };
  const kept = cut && !bytesAreUtf8(bytes) ? (utf8Prefix(bytes) ?? bytes) : bytes;
  const body = content(kept, mimeType);
  return { ...body, size: cut ? bytes.length + 1 : bytes.length, ...(!cut && wireSize !== undefined ? { compression: wireSize - bytes.length } : {}), [BODY_FORM_FIELD]: form };
}

/**
 * A body with its Content-Encoding undone, for a recording (HAR 1.2 keeps bodies decoded), at most
 * `maxBytes` of it (`truncated` when it reached them). Bytes that look decoded already (a recorder
 * kept them so) are taken as they are, as every reader takes them (content.ts); bytes under a coding
 * that cannot be undone here, or broken, stay as sent (`wire`). No form: no coding to undo.
 */
function decodedBody(bytes: Buffer, contentEncoding: string | undefined, maxBytes: number): { bytes: Buffer; form?: BodyForm; truncated: boolean } {
  if (codingsOf(contentEncoding).length === 0) return { bytes, truncated: false };
  const decoded = decodedContent(bytes, contentEncoding, maxBytes);
  if (decoded === 'undecodable') return { bytes, form: 'wire', truncated: false };
  if (decoded === undefined) return { bytes, form: 'decoded', truncated: false };
  return { bytes: decoded.bytes, form: 'decoded', truncated: decoded.truncated };
}

/**
 * What decoding may add to a recording's bodies in all (the recorder's `--max-kept-bytes` less the
 * wire bytes it kept), spent in the order bodies are decoded; `cut`, how many bodies it cut short.
 */
export interface DecodingBudget {
  room: number;
  cut: number;
}

/** One body decoded within `bodyLimit` and what the budget leaves: a body the budget cut where the body limit would not have is counted. */
function decodedWithin(bytes: Buffer, contentEncoding: string | undefined, bodyLimit: number, budget: DecodingBudget | undefined): ReturnType<typeof decodedBody> {
  const limit = budget ? Math.min(bodyLimit, bytes.length + Math.max(0, budget.room)) : bodyLimit;
  const body = decodedBody(bytes, contentEncoding, limit);
  if (budget && body.form === 'decoded') {
    budget.room -= Math.max(0, body.bytes.length - bytes.length);
    if (body.truncated && limit < bodyLimit) budget.cut += 1;
  }
  return body;
}

/**
 * The recording with each body under a content coding decoded (`decodedBody`), as HAR 1.2 keeps it,
 * each to `bodyLimit` decoded bytes and all within `budget` when given; bodies whose form is set
 * already are left as they are.
 */
export function decodedRecording(rec: RecordedBytes, bodyLimit = DEFAULT_BODY_LIMIT, budget?: DecodingBudget): RecordedBytes {
  const out: RecordedBytes = { ...rec };
  if (rec.requestBody !== undefined && rec.requestForm === undefined) {
    const body = decodedWithin(rec.requestBody, rec.requestHeaders['content-encoding'], bodyLimit, budget);
    if (body.form) {
      out.requestBody = body.bytes;
      out.requestForm = body.form;
      if (body.truncated) out.requestTruncated = true;
    }
  }
  if (rec.responseBody !== undefined && rec.responseForm === undefined) {
    const body = decodedWithin(rec.responseBody, rec.responseHeaders['content-encoding'], bodyLimit, budget);
    if (body.form) {
      out.responseBody = body.bytes;
      out.responseForm = body.form;
      // The wire bytes kept (HAR's bodySize); the bytes saved are told only of a body kept whole.
      if (body.form === 'decoded' && body.bytes !== rec.responseBody) out.responseWireSize = rec.responseBody.length;
      if (body.truncated) out.responseTruncated = true;
    }
  }
  return out;
}

/** What a recorder hands the writer: an exchange with its bodies as bytes. */
export interface RecordedBytes {
  startedAt: Date;
  durationMs?: number;
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: Buffer;
  /** The request body was longer than what was kept. */
  requestTruncated?: boolean;
  /** How `requestBody`, under a Content-Encoding, is held (`decodedRecording`); absent, as it was sent. */
  requestForm?: BodyForm;
  status?: number;
  responseHeaders: Record<string, string>;
  responseBody?: Buffer;
  /** The body was longer than what was kept. */
  responseTruncated?: boolean;
  /** How many bytes the body had, when more than was kept. */
  responseSize?: number;
  /** How `responseBody`, under a Content-Encoding, is held (`decodedRecording`); absent, as it was sent. */
  responseForm?: BodyForm;
  /** The wire bytes kept of a body `responseBody` holds decoded (HAR's `bodySize`; with the decoded length, its `compression` when kept whole). */
  responseWireSize?: number;
  error?: string;
  /** apicert stopped reading the answer itself, after it had begun (`READER_STOP_FIELD`). */
  readerStopped?: boolean;
  /** Which stop of its reader it was, when the reader said (`ReaderStopped`); absent, `client-disconnect`. */
  readerEnd?: Exclude<StreamEnd, 'server'>;
  /** It stopped when the close grace after the terminal event ran out, this long (`CLOSE_GRACE_FIELD`). */
  closeGraceMs?: number;
}

/** One exchange as a HAR entry, each body under a content coding decoded first (`decodedRecording`) unless the caller did. */
export function harEntryOf(recorded: RecordedBytes): Record<string, unknown> {
  const rec = decodedRecording(recorded);
  const url = new URL(rec.url);
  const requestDecoded = rec.requestForm === 'decoded';
  const request: Record<string, unknown> = {
    method: rec.method,
    url: rec.url,
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: pairs(rec.requestHeaders),
    queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
    headersSize: -1,
    // A body kept in part says how long it was (its Content-Length, else more than was kept), so a reader knows it holds a prefix; a decoded one, by its decoded length (Content-Length counts the wire's bytes).
    bodySize: rec.requestTruncated ? Math.max((rec.requestBody?.length ?? 0) + 1, requestDecoded ? 0 : Number(rec.requestHeaders['content-length']) || 0) : (rec.requestBody?.length ?? 0),
  };
  if (rec.requestBody !== undefined) {
    const mimeType = rec.requestHeaders['content-type'] ?? 'application/octet-stream';
    const body = rec.requestForm ? codedContent(rec.requestBody, mimeType, rec.requestForm, rec.requestTruncated === true, undefined) : content(rec.requestBody, mimeType);
    request.postData = { mimeType: body.mimeType, text: body.text ?? '', ...(body.encoding ? { encoding: body.encoding } : {}), ...(rec.requestForm ? { [BODY_FORM_FIELD]: rec.requestForm } : {}) };
  }
  const status = rec.status ?? 0;
  const mimeType = rec.responseHeaders['content-type'] ?? '';
  let body: Record<string, unknown>;
  if (rec.responseBody !== undefined && rec.responseForm === 'decoded') body = codedContent(rec.responseBody, mimeType, 'decoded', rec.responseTruncated === true, rec.responseWireSize);
  else {
    body = rec.responseBody !== undefined && rec.responseForm ? codedContent(rec.responseBody, mimeType, rec.responseForm, false, undefined) : content(rec.responseBody, mimeType);
    if (rec.responseTruncated) body.size = Math.max((body.size as number) + 1, rec.responseSize ?? 0);
  }
  const entry: Record<string, unknown> = {
    startedDateTime: rec.startedAt.toISOString(),
    time: rec.durationMs ?? -1,
    request,
    response: {
      status,
      statusText: STATUS_TEXT[status] ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(rec.responseHeaders),
      content: body,
      redirectURL: rec.responseHeaders.location ?? '',
      headersSize: -1,
      // The bytes received (HAR 1.2): a decoded body's wire length when known, else what was kept as sent.
      bodySize: rec.responseWireSize ?? rec.responseBody?.length ?? -1,
      ...(rec.error ? { _error: rec.error } : {}),
      ...(rec.readerStopped && !rec.error ? readerStop(rec.readerEnd, rec.closeGraceMs) : {}),
    },
    cache: {},
    timings: { send: 0, wait: rec.durationMs ?? -1, receive: 0 },
  };
  return entry;
}

/** How apicert's own reader stopped an answer it had begun, as the response's fields say it (`READER_STOP_FIELD`). */
function readerStop(end: RecordedBytes['readerEnd'], closeGraceMs: number | undefined): Record<string, unknown> {
  if (closeGraceMs !== undefined) return { [READER_STOP_FIELD]: 'grace-expired', [CLOSE_GRACE_FIELD]: closeGraceMs };
  return { [READER_STOP_FIELD]: end === undefined || end === 'grace-expired' ? 'client-disconnect' : end };
}

/** A HAR 1.2 document; `facts`, the profile's facts a recording carries for `judge-traffic` (profile-facts.ts). */
export function harDocument(entries: ReadonlyArray<Record<string, unknown>>, version: string, facts?: ProfileFacts): Record<string, unknown> {
  return { log: { version: '1.2', creator: { name: 'apicert', version }, ...(facts ? { [PROFILE_FACTS_FIELD]: facts } : {}), entries } };
}

