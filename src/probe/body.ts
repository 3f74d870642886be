/**
 * Body bytes to text: capped in bytes, and decoded strictly where the media type says UTF-8
 * (JSON, problem+json, event streams): invalid UTF-8 there is a finding, not a silent replacement.
 */
export interface BodyText {
  text: string;
  truncated: boolean;
  /** Why the body is malformed for its media type, when it is. */
  malformed?: string;
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

export async function readCapped(body: AsyncIterable<Buffer> & { destroy(): void }, limit: number): Promise<{ bytes: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size + chunk.length > limit) {
      chunks.push(chunk.subarray(0, limit - size));
      body.destroy();
      return { bytes: Buffer.concat(chunks), truncated: true };
    }
    size += chunk.length;
    chunks.push(chunk);
  }
  return { bytes: Buffer.concat(chunks), truncated: false };
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

export function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
