/**
 * HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), as browsers' developer tools,
 * mitmproxy and other recorders write it: read into exchanges the judge reads, and written from
 * the exchanges apicert records. Only the fields the judge needs are read; the rest may be absent.
 */
import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { parseJson } from '../util/json.ts';
import { contentText, isUtf8 } from './content.ts';
import { headerRecord, type TrafficExchange } from './exchange.ts';

/** What the judge keeps of one body; a recording's longer bodies are judged on this prefix. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** A HAR file larger than this is refused (a recording of a whole test suite fits well below). */
export const MAX_HAR_BYTES = 512 * 1024 * 1024;

const nameValue = z.looseObject({ name: z.string(), value: z.string() });
const harEntry = z.looseObject({
  startedDateTime: z.string().optional(),
  time: z.number().optional(),
  request: z.looseObject({
    method: z.string(),
    url: z.string(),
    headers: z.array(nameValue).optional(),
    postData: z.looseObject({ mimeType: z.string().optional(), text: z.string().optional(), encoding: z.string().optional() }).optional(),
  }),
  response: z
    .looseObject({
      status: z.number(),
      headers: z.array(nameValue).optional(),
      content: z.looseObject({ size: z.number().optional(), mimeType: z.string().optional(), text: z.string().optional(), encoding: z.string().optional() }).optional(),
      _error: z.string().nullish(),
    })
    .optional(),
});
const harFile = z.looseObject({ log: z.looseObject({ version: z.string().optional(), entries: z.array(z.unknown()) }) });

export type HarEntry = z.infer<typeof harEntry>;

/** A HAR the judge cannot read: the message says what is wrong with it (a usage error). */
export class HarError extends Error {
  override readonly name = 'HarError';
}

/** HTTP/2 pseudo-headers (`:status`, `:authority`) are the recorder's view of framing, not headers. */
function headersOf(list: ReadonlyArray<{ name: string; value: string }> | undefined): Record<string, string> {
  return headerRecord((list ?? []).filter((h) => !h.name.startsWith(':')).map((h) => [h.name, h.value] as const));
}

function bytesOf(text: string, encoding: string | undefined): Buffer {
  return encoding === 'base64' ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
}

/** One HAR entry as an exchange; `undefined` for an entry that is not a request at all. */
export function exchangeOfEntry(raw: unknown, index: number, bodyLimit = DEFAULT_BODY_LIMIT): TrafficExchange | undefined {
  const parsed = harEntry.safeParse(raw);
  if (!parsed.success) return undefined;
  const entry = parsed.data;
  let url: URL;
  try {
    url = new URL(entry.request.url);
  } catch {
    return undefined;
  }
  const ex: TrafficExchange = {
    index,
    method: entry.request.method.toUpperCase(),
    url: entry.request.url,
    path: `${url.pathname}${url.search}`,
    requestHeaders: headersOf(entry.request.headers),
    responseHeaders: {},
  };
  if (entry.startedDateTime) ex.startedAt = entry.startedDateTime;
  // -1 and absent both mean "not recorded".
  if (typeof entry.time === 'number' && entry.time >= 0) ex.durationMs = Math.round(entry.time);
  const post = entry.request.postData;
  if (post?.text !== undefined) {
    const body = contentText(bytesOf(post.text, post.encoding), ex.requestHeaders['content-encoding'], bodyLimit, true);
    ex.requestBody = body.text;
    if (body.truncated) ex.requestBodyTruncated = true;
  }
  const res = entry.response;
  // Browsers record a request that got no answer as status 0.
  if (!res || res.status <= 0) {
    ex.error = res?._error ?? 'no response was recorded';
    return ex;
  }
  ex.status = res.status;
  ex.responseHeaders = headersOf(res.headers);
  const content = res.content;
  if (content?.text !== undefined) {
    const bytes = bytesOf(content.text, content.encoding);
    const body = contentText(bytes, ex.responseHeaders['content-encoding'], bodyLimit);
    ex.responseBody = body.text;
    // A recorder that kept fewer bytes than the body had says so only through `size`.
    const cut = typeof content.size === 'number' && content.size > 0 && Buffer.byteLength(body.text, 'utf8') < content.size && bytes.length < content.size;
    if (body.truncated || cut) ex.responseBodyTruncated = true;
  }
  return ex;
}

export interface HarRecording {
  exchanges: TrafficExchange[];
  /** Entries that were not requests the judge could read (no URL, not an object). */
  skipped: number;
}

export async function readHar(file: string, bodyLimit = DEFAULT_BODY_LIMIT): Promise<HarRecording> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (error) {
    throw new HarError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}; give the path of a HAR file`);
  }
  if (size > MAX_HAR_BYTES) throw new HarError(`${file} is ${Math.round(size / 1024 / 1024)} MiB, over the ${MAX_HAR_BYTES / 1024 / 1024} MiB a HAR may have here: split the recording`);
  const parsed = parseJson((await readFile(file, 'utf8')).replace(/^\uFEFF/, ''));
  if (!parsed.ok) throw new HarError(`${file} is not JSON: a HAR file is the JSON a browser's "Save all as HAR" or mitmproxy's HAR export writes`);
  const har = harFile.safeParse(parsed.value);
  if (!har.success) throw new HarError(`${file} is JSON but not HAR: it has no log.entries array`);
  const exchanges: TrafficExchange[] = [];
  let skipped = 0;
  for (const raw of har.data.log.entries) {
    const ex = exchangeOfEntry(raw, exchanges.length, bodyLimit);
    if (ex) exchanges.push(ex);
    else skipped += 1;
  }
  return { exchanges, skipped };
}

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict', 410: 'Gone', 422: 'Unprocessable Content', 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable' };

function pairs(headers: Record<string, string>): Array<{ name: string; value: string }> {
  return Object.entries(headers).map(([name, value]) => ({ name, value }));
}

/** A body as HAR content: text when it is UTF-8, else base64 (HAR 1.2's `encoding`). */
function content(bytes: Buffer | undefined, mimeType: string): { size: number; mimeType: string; text?: string; encoding?: string } {
  if (bytes === undefined) return { size: 0, mimeType };
  if (isUtf8(bytes)) return { size: bytes.length, mimeType, text: bytes.toString('utf8') };
  return { size: bytes.length, mimeType, text: bytes.toString('base64'), encoding: 'base64' };
}

/** What a recorder hands the writer: an exchange with its bodies as bytes. */
export interface RecordedBytes {
  startedAt: Date;
  durationMs?: number;
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: Buffer;
  status?: number;
  responseHeaders: Record<string, string>;
  responseBody?: Buffer;
  /** The body was longer than what was kept. */
  responseTruncated?: boolean;
  /** How many bytes the body had, when more than was kept. */
  responseSize?: number;
  error?: string;
}

export function harEntryOf(rec: RecordedBytes): Record<string, unknown> {
  const url = new URL(rec.url);
  const request: Record<string, unknown> = {
    method: rec.method,
    url: rec.url,
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: pairs(rec.requestHeaders),
    queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
    headersSize: -1,
    bodySize: rec.requestBody?.length ?? 0,
  };
  if (rec.requestBody !== undefined) {
    const body = content(rec.requestBody, rec.requestHeaders['content-type'] ?? 'application/octet-stream');
    request.postData = { mimeType: body.mimeType, text: body.text ?? '', ...(body.encoding ? { encoding: body.encoding } : {}) };
  }
  const status = rec.status ?? 0;
  const body = content(rec.responseBody, rec.responseHeaders['content-type'] ?? '');
  if (rec.responseTruncated) body.size = Math.max(body.size + 1, rec.responseSize ?? 0);
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
      bodySize: rec.responseBody?.length ?? -1,
      ...(rec.error ? { _error: rec.error } : {}),
    },
    cache: {},
    timings: { send: 0, wait: rec.durationMs ?? -1, receive: 0 },
  };
  return entry;
}

export function harDocument(entries: ReadonlyArray<Record<string, unknown>>, version: string): Record<string, unknown> {
  return { log: { version: '1.2', creator: { name: 'apicert', version }, entries } };
}

