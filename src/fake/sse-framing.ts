import type { ServerResponse } from 'node:http';

/**
 * How the fake frames one SSE event. `varied` takes the other legal framings SSE allows: a comment
 * line before the event (a keepalive), a `retry:` field, and the data split over several `data:`
 * lines (a reader joins them with newlines, which JSON tolerates as whitespace).
 */
export function sseFrame(fields: { id?: string; event?: string; data: string }, varied: boolean): string {
  const id = fields.id === undefined ? '' : `id: ${fields.id}\n`;
  const event = fields.event === undefined ? '' : `event: ${fields.event}\n`;
  if (!varied) return `${id}${event}data: ${fields.data}\n\n`;
  let pretty = fields.data;
  try {
    pretty = JSON.stringify(JSON.parse(fields.data), null, 1);
  } catch {
    // Not JSON: sent on one line.
  }
  const data = pretty
    .split('\n')
    .map((line) => `data: ${line}`)
    .join('\n');
  return `: keepalive\n\nretry: 3000\n${id}${event}${data}\n\n`;
}

/** The line-ending and split-writes variants one area of the fake takes, read there by their ids. */
export interface WireChoices {
  crlf: boolean;
  cr: boolean;
  split: boolean;
}

export function wireOptions(seed: number, choices: WireChoices): SseWireOptions {
  const options: SseWireOptions = {};
  if (choices.crlf) options.lineEnding = '\r\n';
  else if (choices.cr) options.lineEnding = '\r';
  if (choices.split) options.splitSeed = seed;
  return options;
}

export interface SseWireOptions {
  /** Write every line break as `\r\n` or a bare `\r` (SSE allows both, and `\n`). */
  lineEnding?: '\r\n' | '\r';
  /**
   * Split every write into pieces at byte positions drawn from this seed, each piece a network
   * write of its own: inside multi-byte UTF-8 characters and between a `\r` and its `\n` too. The
   * stream opens with a comment of multi-byte characters ended by `\r\n`, so both occur.
   */
  splitSeed?: number;
}

/** A small seeded generator (mulberry32): the same seed splits the same way. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Byte positions inside a UTF-8 character or between `\r` and `\n`: where a careless reader breaks. */
function awkward(bytes: Buffer, at: number): boolean {
  return (bytes[at]! & 0xc0) === 0x80 || (bytes[at - 1] === 13 && bytes[at] === 10);
}

function cuts(bytes: Buffer, random: () => number): number[] {
  const out: number[] = [];
  for (let at = 1; at < bytes.length; at += 1) if (random() < (awkward(bytes, at) ? 0.5 : 0.05)) out.push(at);
  return out;
}

let streams = 0;

/**
 * Puts a response's event stream on the wire the way the options say: other legal line endings,
 * or writes split at seed-chosen bytes with a turn of the event loop between pieces (so they leave
 * as separate network writes). Call it right after `writeHead`; `end` waits for the pieces.
 */
export function sseWire(res: ServerResponse, options: SseWireOptions): void {
  if (options.lineEnding === undefined && options.splitSeed === undefined) return;
  const write = res.write.bind(res) as (chunk: string | Buffer) => boolean;
  const end = res.end.bind(res) as () => ServerResponse;
  const ending = options.lineEnding;
  const reline = (text: string) => (ending === undefined ? text : text.replace(/\r\n|\n|\r/g, ending));
  if (options.splitSeed === undefined) {
    res.write = ((chunk: string | Buffer) => write(typeof chunk === 'string' ? reline(chunk) : Buffer.from(reline(chunk.toString('utf8'))))) as typeof res.write;
    return;
  }
  const random = seeded(options.splitSeed + (streams += 1));
  let queue = Promise.resolve();
  const pieces = (bytes: Buffer) => {
    const points = cuts(bytes, random);
    return [0, ...points].map((start, i) => bytes.subarray(start, points[i] ?? bytes.length));
  };
  const send = (bytes: Buffer) => {
    for (const piece of pieces(bytes)) {
      queue = queue.then(() => new Promise<void>((resolve) => setImmediate(() => {
        if (!res.destroyed && !res.writableEnded) write(piece);
        resolve();
      })));
    }
  };
  send(Buffer.from(': apicert split écrit ✓ 中文 𝄞\r\n\r\n', 'utf8'));
  res.write = ((chunk: string | Buffer) => {
    send(Buffer.from(reline(typeof chunk === 'string' ? chunk : chunk.toString('utf8')), 'utf8'));
    return true;
  }) as typeof res.write;
  res.end = ((chunk?: string | Buffer) => {
    if (chunk !== undefined && typeof chunk !== 'function') send(Buffer.from(reline(chunk.toString()), 'utf8'));
    queue = queue.then(() => {
      if (!res.writableEnded) end();
    });
    return res;
  }) as typeof res.end;
}
