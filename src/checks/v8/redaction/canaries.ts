/**
 * Canary secrets for one check run, and the scanner that finds them in whatever comes back.
 * Each canary carries its slot number, so a find names where it was planted and where it surfaced.
 */
import { randomBytes } from 'node:crypto';
import { isRecord, parseJson } from '../../../util/json.ts';

/** How a canary is made recognisable as sensitive without any definition of "sensitive" from the seed. */
export type CanaryShape =
  /** A plain value in a field whose name says secret (`apiKey`, `password`, `token`). */
  | 'secret-field'
  /** A whole value shaped like a bearer token. */
  | 'bearer'
  /** A whole value shaped like a PEM private key. */
  | 'private-key'
  /** A whole value shaped like a provider API key. */
  | 'api-key'
  /** Inside free text: the gateway cannot be expected to know it is a secret. */
  | 'free-text';

export interface Planted {
  slot: number;
  shape: CanaryShape;
  /** Where the canary was put, e.g. `goalSpec.apiKey`. */
  plantedAt: string;
}

export interface Sighting extends Planted {
  /** The exchange it came back in, e.g. `GET /v8/traces/trc.1`. */
  where: string;
  /** JSON path inside that body, or `(text)` when the body was not JSON. */
  path: string;
}

export class CanarySet {
  readonly tag: string;
  private readonly planted: Planted[] = [];

  constructor(tag: string = randomBytes(6).toString('hex')) {
    this.tag = tag;
  }

  private marker(slot: number): string {
    return `apicert-canary-${this.tag}-${slot}x`;
  }

  /** A canary value of the given shape, registered as planted at `plantedAt`. */
  plant(shape: CanaryShape, plantedAt: string): string {
    const slot = this.planted.length + 1;
    this.planted.push({ slot, shape, plantedAt });
    const m = this.marker(slot);
    switch (shape) {
      case 'secret-field':
        return m;
      case 'bearer':
        return `Bearer ${m}`;
      case 'private-key':
        return `-----BEGIN PRIVATE KEY-----\nMIIE${m}\n-----END PRIVATE KEY-----`;
      case 'api-key':
        return `sk_live_${m}`;
      case 'free-text':
        return `Please keep the reference ${m} handy when you reply.`;
    }
  }

  get all(): readonly Planted[] {
    return this.planted;
  }

  /** The planted canaries that occur in `text`. */
  findIn(text: string): Planted[] {
    if (!text.includes(`apicert-canary-${this.tag}-`)) return [];
    const found: Planted[] = [];
    const pattern = new RegExp(`apicert-canary-${this.tag}-(\\d+)x`, 'g');
    for (const match of text.matchAll(pattern)) {
      const p = this.planted[Number(match[1]) - 1];
      if (p && !found.includes(p)) found.push(p);
    }
    return found;
  }

  /** Every canary in a response body, SSE data or trace, with the JSON path it sits at. */
  scan(where: string, body: string): Sighting[] {
    if (this.findIn(body).length === 0) return [];
    const json = parseJson(body);
    if (!json.ok) return this.findIn(body).map((p) => ({ ...p, where, path: '(text)' }));
    const parsed = json.value;
    const out: Sighting[] = [];
    const walk = (value: unknown, path: string, depth: number): void => {
      if (depth > 64) return;
      if (typeof value === 'string') {
        for (const p of this.findIn(value)) out.push({ ...p, where, path: path || '$' });
      } else if (Array.isArray(value)) {
        value.forEach((item, i) => walk(item, `${path}[${i}]`, depth + 1));
      } else if (isRecord(value)) {
        for (const [key, item] of Object.entries(value)) {
          for (const p of this.findIn(key)) out.push({ ...p, where, path: `${path}(key ${key})` });
          walk(item, path ? `${path}.${key}` : key, depth + 1);
        }
      }
    };
    walk(parsed, '', 0);
    return out;
  }
}

const MARKER_OPEN = '[«<(* \t';
/** How many occurrences of "redact" are looked at: a body of nothing else stays cheap. */
const MARKER_SCAN_LIMIT = 1_000;

/**
 * Strings that look like a redaction marker, to record which one a target uses. Linear in the body:
 * the literal "redact" is searched for, and only a bounded window around each find is examined.
 */
export function redactionMarkers(body: string): string[] {
  const found = new Set<string>();
  const finder = /redact/gi;
  for (let seen = 0; seen < MARKER_SCAN_LIMIT && found.size < 5; seen += 1) {
    const hit = finder.exec(body);
    if (!hit) break;
    let start = hit.index;
    while (start > 0 && hit.index - start < 8 && MARKER_OPEN.includes(body[start - 1]!)) start -= 1;
    const tail = /^redact[a-z]{0,20}[^"\]»>)]{0,24}[\]»>)*]{0,4}/i.exec(body.slice(hit.index, hit.index + 64))?.[0] ?? 'redact';
    found.add(`${body.slice(start, hit.index).trimStart()}${tail}`);
    finder.lastIndex = hit.index + tail.length;
  }
  return [...found];
}
