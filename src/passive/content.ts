/**
 * Body bytes as a recorder may hold them, to the text the judge reads: compressed (the
 * Content-Encoding a proxy forwards unchanged, or a HAR that kept the wire bytes), cut short, or
 * not UTF-8 at all. Decompression is bounded: a small body cannot expand into gigabytes here.
 */
import * as zlib from 'node:zlib';
import { brotliDecompressSync, constants, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';

// Read off the module, not imported by name: on a Node older than engines a missing named export fails at link time, before the library's own version check can say what to do.
const zstdDecompress = (zlib as { zstdDecompressSync?: (bytes: Buffer, options: { maxOutputLength: number }) => Buffer }).zstdDecompressSync;

const GZIP_MAGIC = [0x1f, 0x8b];

/** Node's one-call decoders refuse an output past `maxOutputLength` whole, with this code, instead of returning its prefix. */
function tooLarge(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ERR_BUFFER_TOO_LARGE';
}

/** The decoded bytes; throws when they would pass `maxBytes`, undefined when they cannot be decoded. */
function decompress(bytes: Buffer, encoding: string, maxBytes: number): Buffer | undefined {
  // A prefix of a compressed body ends mid-stream: flush what can be decoded instead of failing.
  const options = { maxOutputLength: maxBytes, finishFlush: constants.Z_SYNC_FLUSH };
  if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(bytes, options);
  if (encoding === 'deflate') {
    try {
      return inflateSync(bytes, options);
    } catch (error) {
      if (tooLarge(error)) throw error;
      return inflateRawSync(bytes, options);
    }
  }
  if (encoding === 'br') return brotliDecompressSync(bytes, { maxOutputLength: maxBytes, finishFlush: constants.BROTLI_OPERATION_FLUSH });
  // Browsers ask for zstd too; Node decodes it from 22.15 and 23.8.
  if (encoding === 'zstd' && zstdDecompress) return zstdDecompress(bytes, { maxOutputLength: maxBytes });
  return undefined;
}

/**
 * The body decoded, at most `maxBytes` of it. A body that decodes to more is decoded from the
 * longest prefix of its compressed bytes that stays within, found by doubling a small one: each try
 * that fits costs what it decodes, the one that does not at most `maxBytes`, so a body costs a few
 * times `maxBytes` whatever its ratio (a bomb included). Before, it was read as garbage, its
 * compressed bytes taken for text.
 */
function inflate(bytes: Buffer, encoding: string, maxBytes: number): { bytes: Buffer; truncated: boolean } | undefined {
  try {
    const out = decompress(bytes, encoding, maxBytes);
    return out === undefined ? undefined : { bytes: out, truncated: out.length >= maxBytes };
  } catch (error) {
    if (!tooLarge(error)) return undefined;
  }
  let decoded: Buffer = Buffer.alloc(0);
  for (let size = 64; size < bytes.length; size *= 2) {
    try {
      const out = decompress(bytes.subarray(0, size), encoding, maxBytes);
      if (out === undefined) break;
      decoded = out;
    } catch {
      break;
    }
  }
  return { bytes: decoded, truncated: true };
}

function looksCompressed(bytes: Buffer, encoding: string): boolean {
  if (encoding === 'gzip' || encoding === 'x-gzip') return bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1];
  // Deflate and brotli have no magic: compressed bytes are rarely valid UTF-8 text.
  return !isUtf8(bytes);
}

export function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The last content coding of a Content-Encoding value other than identity, lower-cased; undefined for none. */
function codingOf(contentEncoding: string | undefined): string | undefined {
  return (contentEncoding ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e && e !== 'identity')
    .pop();
}

/**
 * The bytes under their Content-Encoding, decompressed up to `maxBytes` (`truncated` when they
 * reach it); undefined when they carry no coding or look decoded already (a recorder that kept them
 * so); 'undecodable' for a coding not known here, or broken bytes.
 */
export function decodedContent(bytes: Buffer, contentEncoding: string | undefined, maxBytes: number): { bytes: Buffer; truncated: boolean } | 'undecodable' | undefined {
  const encoding = codingOf(contentEncoding);
  if (!encoding || !looksCompressed(bytes, encoding)) return undefined;
  return inflate(bytes, encoding, maxBytes) ?? 'undecodable';
}

/** Why a body a judgement needs is lacking when its bytes cannot be decoded: in the same words whether the proxy or the HAR reader read it. */
export function unreadableBody(whose: "request's" | "answer's", undecodable: string): string {
  return `the ${whose} body cannot be read: ${undecodable}`;
}

/**
 * The body's text. Bytes still compressed under their Content-Encoding are decompressed (up to
 * `maxBytes`); bytes a recorder already decoded (browsers do) are taken as they are; compressed
 * bytes that cannot be decoded give no text, and `undecodable` says why.
 */
export function contentText(bytes: Buffer, contentEncoding: string | undefined, maxBytes: number, keepByteOrderMark = false): { text: string; truncated: boolean; undecodable?: string } {
  const decoded = decodedContent(bytes, contentEncoding, maxBytes);
  // Compressed bytes read as text are no body a judgement can read: the body is lacking, not garbage.
  if (decoded === 'undecodable') return { text: '', truncated: false, undecodable: `it is under Content-Encoding ${JSON.stringify((contentEncoding ?? '').slice(0, 40))}, which apicert cannot decode (or its bytes are broken)` };
  let body = typeof decoded === 'object' ? decoded.bytes : bytes;
  let truncated = typeof decoded === 'object' ? decoded.truncated : false;
  if (body.length > maxBytes) {
    body = body.subarray(0, maxBytes);
    truncated = true;
  }
  // A cut body may end inside a character: its tail is dropped, not replaced.
  // A request's byte order mark is part of what was sent (JSON forbids a sender to add one): kept for the judgements to see.
  return { text: new TextDecoder('utf-8', { ignoreBOM: keepByteOrderMark }).decode(body, { stream: truncated }), truncated };
}
