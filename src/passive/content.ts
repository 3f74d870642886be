/**
 * Body bytes as a recorder may hold them, to the text the judge reads: compressed (the
 * Content-Encoding a proxy forwards unchanged, or a HAR that kept the wire bytes), cut short, or
 * not UTF-8 at all. Decompression is bounded: a small body cannot expand into gigabytes here.
 */
import { brotliDecompressSync, constants, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';

const GZIP_MAGIC = [0x1f, 0x8b];

function inflate(bytes: Buffer, encoding: string, maxBytes: number): Buffer | undefined {
  // A prefix of a compressed body ends mid-stream: flush what can be decoded instead of failing.
  const options = { maxOutputLength: maxBytes, finishFlush: constants.Z_SYNC_FLUSH };
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(bytes, options);
    if (encoding === 'deflate') {
      try {
        return inflateSync(bytes, options);
      } catch {
        return inflateRawSync(bytes, options);
      }
    }
    if (encoding === 'br') return brotliDecompressSync(bytes, { maxOutputLength: maxBytes, finishFlush: constants.BROTLI_OPERATION_FLUSH });
  } catch {
    return undefined;
  }
  return undefined;
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

/**
 * The body's text. Bytes still compressed under their Content-Encoding are decompressed (up to
 * `maxBytes`); bytes a recorder already decoded (browsers do) are taken as they are.
 */
export function contentText(bytes: Buffer, contentEncoding: string | undefined, maxBytes: number, keepByteOrderMark = false): { text: string; truncated: boolean } {
  const encoding = (contentEncoding ?? '').split(',').map((e) => e.trim().toLowerCase()).filter((e) => e && e !== 'identity').pop();
  let body = bytes;
  let truncated = false;
  if (encoding && looksCompressed(bytes, encoding)) {
    const out = inflate(bytes, encoding, maxBytes);
    if (out) {
      body = out;
      truncated = out.length >= maxBytes;
    }
  }
  if (body.length > maxBytes) {
    body = body.subarray(0, maxBytes);
    truncated = true;
  }
  // A cut body may end inside a character: its tail is dropped, not replaced.
  // A request's byte order mark is part of what was sent (JSON forbids a sender to add one): kept for the judgements to see.
  return { text: new TextDecoder('utf-8', { ignoreBOM: keepByteOrderMark }).decode(body, { stream: truncated }), truncated };
}
