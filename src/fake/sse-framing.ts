import type { ServerResponse } from 'node:http';
import { seeded } from '../util/seeded.ts';

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
   * Split every write into pieces at byte positions drawn from this seed, each piece written on
   * its own: inside multi-byte UTF-8 characters and between a `\r` and its `\n` too. The stream
   * opens with a comment of multi-byte characters ended by `\r\n`, so both occur.
   */
  splitSeed?: number;
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
 * or every write cut at seed-chosen bytes, each piece written on its own (a chunk of its own, sent
 * to the socket by itself). Call it right after `writeHead`.
 */
export function sseWire(res: ServerResponse, options: SseWireOptions): void {
  if (options.lineEnding === undefined && options.splitSeed === undefined) return;
  const write = res.write.bind(res) as (chunk: Buffer) => boolean;
  const ending = options.lineEnding;
  const bytesOf = (chunk: string | Buffer) => {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    return Buffer.from(ending === undefined ? text : text.replace(/\r\n|\n|\r/g, ending), 'utf8');
  };
  const random = options.splitSeed === undefined ? undefined : seeded(options.splitSeed + (streams += 1));
  const send = (bytes: Buffer): boolean => {
    if (!random) return write(bytes);
    const points = cuts(bytes, random);
    let ok = true;
    for (const [i, start] of [0, ...points].entries()) ok = write(bytes.subarray(start, points[i] ?? bytes.length)) && ok;
    return ok;
  };
  if (random) send(Buffer.from(': apicert split écrit ✓ 中文 𝄞\r\n\r\n', 'utf8'));
  res.write = ((chunk: string | Buffer) => send(bytesOf(chunk))) as typeof res.write;
}
