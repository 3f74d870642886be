/**
 * Body bytes as a recorder may hold them, to the text the judge reads: compressed (the
 * Content-Encoding a proxy forwards unchanged, or a HAR that kept the wire bytes), cut short, or
 * not UTF-8 at all. Decompression is bounded: a small body cannot expand into gigabytes here.
 */
import { codingsOf, decodeCodings } from '../util/content-coding.ts';

const GZIP_MAGIC = [0x1f, 0x8b];

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

/**
 * The bytes under their Content-Encoding, decompressed up to `maxBytes` (`truncated` when they
 * reach it), every coding of a list undone in turn (src/util/content-coding.ts, which the probe
 * uses too); undefined when they carry no coding or look decoded already (a recorder that kept them
 * so: judged by the last coding applied); 'undecodable' for a coding not known here, or broken bytes.
 */
export function decodedContent(bytes: Buffer, contentEncoding: string | undefined, maxBytes: number): { bytes: Buffer; truncated: boolean } | 'undecodable' | undefined {
  const codings = codingsOf(contentEncoding);
  const outermost = codings.at(-1);
  if (!outermost || !looksCompressed(bytes, outermost)) return undefined;
  const decoded = decodeCodings(bytes, codings, maxBytes);
  return 'undecodable' in decoded ? 'undecodable' : decoded;
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
