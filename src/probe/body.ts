import { createParser } from 'eventsource-parser';
import { parseJson as parseJsonText } from '../util/json.ts';
import { reclaimAboveLimit } from '../util/reclaim.ts';
import { codingsOf, decodeCodings, notDecoded } from '../util/content-coding.ts';

/**
 * Body bytes to text: capped in bytes, and decoded strictly where the media type says UTF-8
 * (JSON, problem+json, event streams): invalid UTF-8 there is a finding, not a silent replacement.
 */
export interface BodyText {
  text: string;
  truncated: boolean;
  /** Why the body is malformed for its media type, when it is. */
  malformed?: string;
  /**
   * The answer's Content-Encoding left undone (a coding not known here, bytes that do not decode):
   * the bytes as read are judged, as before the probe decoded, and a malformed reason says this.
   */
  undecoded?: string;
}

/** Media types whose bodies are UTF-8 by definition (RFC 8259 §8.1; the SSE specification). */
export function isUtf8MediaType(contentType: string): boolean {
  const type = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json') || type === 'text/event-stream';
}

export function isJsonMediaType(contentType: string): boolean {
  const type = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}

/**
 * Reads at most `limit` bytes into one buffer (no chunk list, no second copy), sized from
 * Content-Length when the target sent one, and drops the connection at the cap.
 */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): void }, limit: number, declaredLength?: number): Promise<{ bytes: Buffer; truncated: boolean }> {
  let buffer = Buffer.allocUnsafeSlow(Math.min(limit, declaredLength !== undefined && declaredLength >= 0 ? declaredLength : 16 * 1024));
  let size = 0;
  for await (const chunk of body) {
    const room = limit - size;
    if (size + chunk.length > buffer.length && buffer.length < limit) {
      const grown = Buffer.allocUnsafeSlow(Math.min(limit, Math.max(buffer.length * 2, size + chunk.length)));
      buffer.copy(grown, 0, 0, size);
      release(buffer);
      buffer = grown;
    }
    if (chunk.length > room) {
      chunk.copy(buffer, size, 0, room);
      body.destroy();
      return { bytes: buffer.subarray(0, limit), truncated: true };
    }
    chunk.copy(buffer, size);
    size += chunk.length;
  }
  return { bytes: buffer.subarray(0, size), truncated: false };
}

/**
 * The body read and decoded, its buffer freed at once: V8 takes back a dead buffer's memory only
 * when some 64 MiB of such memory has gathered, and a target whose every answer fills the body cap
 * (2 MiB) made a run hold tens of MiB it no longer used. Under a Content-Encoding the compressed
 * bytes are read up to the cap, and what they decode to is capped again (decodeAnswer).
 */
export async function readBody(body: AsyncIterable<Buffer> & { destroy(): void }, limit: number, declaredLength: number | undefined, contentType: string, contentEncoding?: string): Promise<BodyText> {
  const raw = await readCapped(body, limit, declaredLength);
  const text = decodeAnswer(raw.bytes, raw.truncated, contentType, contentEncoding, limit);
  // A small compressed body may decode to a large text: either is garbage to reclaim.
  const large = raw.bytes.length >= LARGE_TEXT || text.text.length >= LARGE_TEXT;
  release(raw.bytes);
  if (large) reclaimAboveLimit();
  return text;
}

/**
 * An answer's bytes as read off the wire, to its text. A request without Accept-Encoding leaves the
 * server free to use any content coding (RFC 9110 §12.5.3), so the codings it names are undone first,
 * the decoded bytes capped at `limit` (a bomb is cut and marked so). A coding not known here, or
 * bytes that do not decode, leave the bytes as they were read, with `undecoded` saying why.
 */
export function decodeAnswer(bytes: Buffer, truncated: boolean, contentType: string, contentEncoding: string | undefined, limit: number): BodyText {
  const codings = codingsOf(contentEncoding);
  if (codings.length === 0 || bytes.length === 0) return decodeBody(bytes, truncated, contentType);
  const decoded = decodeCodings(bytes, codings, limit);
  if ('undecodable' in decoded) return { ...decodeBody(bytes, truncated, contentType), undecoded: notDecoded(contentEncoding, decoded.undecodable) };
  return decodeBody(decoded.bytes, truncated || decoded.truncated, contentType);
}

/** A malformed reason that says when the bytes judged are still under a coding the probe did not undo. */
export function withUndecoded(problem: string | undefined, body: Pick<BodyText, 'undecoded'>): string | undefined {
  return problem !== undefined && body.undecoded !== undefined ? `${problem}: ${body.undecoded}` : problem;
}

/** Texts this large are external strings in Node (see src/util/reclaim.ts). */
export const LARGE_TEXT = 1024 * 1024;

/** Frees a buffer of `readCapped`'s own (allocUnsafeSlow: never one of Node's shared pool), which nothing reads afterwards. */
function release(bytes: Buffer): void {
  (bytes.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer }).transfer?.(0);
}

export function decodeBody(bytes: Buffer, truncated: boolean, contentType: string): BodyText {
  if (!isUtf8MediaType(contentType)) return { text: bytes.toString('utf8'), truncated };
  try {
    // A cut body may end inside a character: streaming mode leaves that tail undecoded.
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: truncated }), truncated };
  } catch {
    return { text: bytes.toString('utf8'), truncated, malformed: `is ${contentType.split(';')[0]} but not valid UTF-8` };
  }
}

/** The parsed body, or undefined when it is not JSON (or nests deeper than any document of the APIs). */
export function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  const parsed = parseJsonText(text);
  return parsed.ok ? parsed.value : undefined;
}

/** The 1-based number of the first event whose data is not JSON (both APIs and MCP send JSON data), or 0. */
export function firstNonJsonEvent(events: Iterable<string>): number {
  let n = 0;
  for (const data of events) {
    n += 1;
    if (data.trim().length > 0 && parseJson(data) === undefined) return n;
  }
  return 0;
}

/** The data of every event in a whole event-stream body (one linear pass of the parser). */
export function eventData(text: string): string[] {
  const out: string[] = [];
  const parser = createParser({ onEvent: (e) => void out.push(e.data) });
  parser.feed(text);
  parser.reset({ consume: true });
  return out;
}
