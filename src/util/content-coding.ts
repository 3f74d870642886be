/**
 * Content codings (RFC 9110 §8.4) undone, bounded: what the probe reads off the wire and what a
 * recorder kept compressed go through the same decoders. A request without Accept-Encoding lets a
 * server use any coding (RFC 9110 §12.5.3), so an answer may come compressed to any client; a small
 * body must never expand into gigabytes here (a bomb), so every decoder stops at `maxBytes`.
 */
import * as zlib from 'node:zlib';
import { brotliDecompressSync, constants, createBrotliDecompress, createGunzip, createInflate, createInflateRaw, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import type { Transform } from 'node:stream';

// Read off the module, not imported by name: on a Node older than engines a missing named export fails at link time, before the library's own version check can say what to do.
const zstd = zlib as { zstdDecompressSync?: (bytes: Buffer, options: { maxOutputLength: number }) => Buffer; createZstdDecompress?: () => Transform };

/** The content codings of a Content-Encoding value, lower-cased, in the order they were applied (identity left out). */
export function codingsOf(contentEncoding: string | undefined): string[] {
  return (contentEncoding ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e && e !== 'identity');
}

/** Whether this process can undo `coding` (zstd from Node 22.15 and 23.8). */
export function decodable(coding: string): boolean {
  return coding === 'gzip' || coding === 'x-gzip' || coding === 'deflate' || coding === 'br' || (coding === 'zstd' && zstd.zstdDecompressSync !== undefined);
}

/** Node's one-call decoders refuse an output past `maxOutputLength` whole, with this code, instead of returning its prefix. */
export function tooLarge(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ERR_BUFFER_TOO_LARGE';
}

/** The decoded bytes; throws when they would pass `maxBytes`, undefined when the coding is not known here. */
function decompress(bytes: Buffer, coding: string, maxBytes: number): Buffer | undefined {
  // A prefix of a compressed body ends mid-stream: flush what can be decoded instead of failing.
  const options = { maxOutputLength: maxBytes, finishFlush: constants.Z_SYNC_FLUSH };
  if (coding === 'gzip' || coding === 'x-gzip') return gunzipSync(bytes, options);
  if (coding === 'deflate') {
    // "deflate" is the zlib format (RFC 9110 §8.4.1.2); some servers send raw deflate under the name.
    try {
      return inflateSync(bytes, options);
    } catch (error) {
      if (tooLarge(error)) throw error;
      return inflateRawSync(bytes, options);
    }
  }
  if (coding === 'br') return brotliDecompressSync(bytes, { maxOutputLength: maxBytes, finishFlush: constants.BROTLI_OPERATION_FLUSH });
  if (coding === 'zstd' && zstd.zstdDecompressSync) return zstd.zstdDecompressSync(bytes, { maxOutputLength: maxBytes });
  return undefined;
}

/**
 * The body decoded under one coding, at most `maxBytes` of it. A body that decodes to more is
 * decoded from the longest prefix of its compressed bytes that stays within, found by doubling a
 * small one: each try that fits costs what it decodes, the one that does not at most `maxBytes`, so
 * a body costs a few times `maxBytes` whatever its ratio (a bomb included). Undefined when the
 * coding is not known here or the bytes are broken.
 */
export function inflate(bytes: Buffer, coding: string, maxBytes: number): { bytes: Buffer; truncated: boolean } | undefined {
  try {
    const out = decompress(bytes, coding, maxBytes);
    return out === undefined ? undefined : { bytes: out, truncated: out.length >= maxBytes };
  } catch (error) {
    if (!tooLarge(error)) return undefined;
  }
  let decoded: Buffer = Buffer.alloc(0);
  for (let size = 64; size < bytes.length; size *= 2) {
    try {
      const out = decompress(bytes.subarray(0, size), coding, maxBytes);
      if (out === undefined) break;
      decoded = out;
    } catch {
      break;
    }
  }
  return { bytes: decoded, truncated: true };
}

/** Why bytes under `contentEncoding` were not decoded, in the words every reader uses. */
export function notDecoded(contentEncoding: string | undefined, why: string): string {
  return `its Content-Encoding ${JSON.stringify((contentEncoding ?? '').slice(0, 40))} was not decoded (${why})`;
}

/**
 * Bytes under every coding of `codings` (in the order applied), decoded last coding first, each
 * step at most `maxBytes` (`truncated` when a step reached it); `undecodable` says why not.
 */
export function decodeCodings(bytes: Buffer, codings: readonly string[], maxBytes: number): { bytes: Buffer; truncated: boolean } | { undecodable: string } {
  let out = bytes;
  let truncated = false;
  for (const coding of [...codings].reverse()) {
    if (!decodable(coding)) return { undecodable: `apicert cannot decode ${JSON.stringify(coding.slice(0, 40))}` };
    const step = inflate(out, coding, maxBytes);
    if (step === undefined) return { undecodable: `its bytes are not ${coding}` };
    out = step.bytes;
    truncated ||= step.truncated;
  }
  return { bytes: out, truncated };
}

function streamDecoder(coding: string): Transform | undefined {
  if (coding === 'gzip' || coding === 'x-gzip') return createGunzip({ finishFlush: constants.Z_SYNC_FLUSH });
  if (coding === 'deflate') return createInflate({ finishFlush: constants.Z_SYNC_FLUSH });
  if (coding === 'br') return createBrotliDecompress({ finishFlush: constants.BROTLI_OPERATION_FLUSH });
  if (coding === 'zstd') return zstd.createZstdDecompress?.();
  return undefined;
}

/** How a streamed decoding ended early: the compressed bytes or the decoded ones passed their cap, or the bytes did not decode. */
export interface StreamDecoding {
  cut?: 'input' | 'output';
  undecodable?: string;
}

/**
 * One coding undone chunk by chunk: each chunk fed is decoded as far as it goes before the next is
 * read (a server flushes per event, so events still arrive as they come). The output of one chunk
 * is bounded: past `maxBytes` the decoder is destroyed at its next step, so a bomb costs at most
 * about `maxBytes` and one step's output.
 */
class StreamLayer {
  private readonly decoder: Transform;
  private readonly out: Buffer[] = [];
  private produced = 0;
  private readonly maxBytes: number;
  private failure: Error | undefined;
  overflowed = false;
  constructor(decoder: Transform, maxBytes: number) {
    this.decoder = decoder;
    this.maxBytes = maxBytes;
    decoder.on('data', (chunk: Buffer) => {
      if (this.overflowed) return;
      this.out.push(chunk);
      this.produced += chunk.length;
      if (this.produced > this.maxBytes) {
        this.overflowed = true;
        decoder.destroy();
      }
    });
    decoder.on('error', (error: Error) => {
      this.failure ??= error;
    });
  }

  private take(): Buffer {
    const chunk = this.out.length === 1 ? this.out[0]! : Buffer.concat(this.out);
    this.out.length = 0;
    return chunk;
  }

  /** The bytes `chunk` decodes to (all of them, or those up to the cap); throws when it does not decode. */
  async feed(chunk: Buffer): Promise<Buffer> {
    if (!this.overflowed) await this.settle((done) => this.decoder.write(chunk, () => done()));
    return this.result();
  }

  /** What the decoder still holds once the compressed bytes ended. */
  async finish(): Promise<Buffer> {
    if (!this.overflowed) await this.settle((done) => this.decoder.end(() => done()));
    return this.result();
  }

  private result(): Buffer {
    if (this.failure && !this.overflowed) throw this.failure;
    return this.take();
  }

  /** Waits for a write or end to be processed, or for the decoder to fail or be destroyed (a destroyed stream calls back with an error, or not at all). */
  private settle(start: (done: () => void) => void): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.decoder.off('close', done);
        resolve();
      };
      this.decoder.once('close', done);
      start(done);
    });
  }

  /** Whether `error` is this decoder's own (broken bytes), not the transport's. */
  failed(error: unknown): boolean {
    return error !== undefined && error === this.failure;
  }

  destroy(): void {
    this.decoder.destroy();
  }
}

/**
 * A body's chunks with every coding undone, as they arrive: at most `maxBytes` compressed bytes are
 * read and at most a little over `maxBytes` decoded ones handed on (a reader bounded by the same cap
 * stops there); `state` says which cap cut it, or why the bytes did not decode (then the chunks
 * decoded so far are all there is). Stopping the iteration destroys the decoders.
 */
export async function* decodedChunks(source: AsyncIterable<Buffer | Uint8Array>, codings: readonly string[], maxBytes: number, state: StreamDecoding): AsyncGenerator<Buffer> {
  const layers: StreamLayer[] = [];
  for (const coding of [...codings].reverse()) {
    const decoder = streamDecoder(coding);
    if (!decoder) {
      state.undecodable = `apicert cannot decode ${JSON.stringify(coding.slice(0, 40))}`;
      for (const layer of layers) layer.destroy();
      return;
    }
    layers.push(new StreamLayer(decoder, maxBytes));
  }
  const through = async (chunk: Buffer, last: boolean): Promise<Buffer> => {
    let out = chunk;
    for (const layer of layers) {
      out = last ? Buffer.concat([await layer.feed(out), await layer.finish()]) : await layer.feed(out);
      if (layer.overflowed) state.cut = 'output';
    }
    return out;
  };
  let read = 0;
  try {
    for await (const chunk of source) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      read += bytes.length;
      const room = maxBytes - Math.max(0, read - bytes.length);
      const out = await through(read > maxBytes ? bytes.subarray(0, Math.max(0, room)) : bytes, false);
      if (out.length > 0) yield out;
      if (state.cut) return;
      if (read > maxBytes) {
        state.cut = 'input';
        return;
      }
    }
    const rest = await through(Buffer.alloc(0), true);
    if (rest.length > 0) yield rest;
  } catch (error) {
    // The decoders' own failure: the transport's goes on to the reader, which tells it as such.
    if (!layers.some((l) => l.failed(error))) throw error;
    state.undecodable = `its bytes are not ${[...codings].reverse().join(' then ')}: ${(error as Error).message}`;
  } finally {
    for (const layer of layers) layer.destroy();
  }
}
