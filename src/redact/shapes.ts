/**
 * Values shaped like credentials apicert was never told about: provider API keys, signing secrets,
 * JWTs, PEM private keys. Hand-written scanners rather than patterns, because each must stay linear
 * on adversarial input (a 4 MiB body of `-----BEGIN` with no end, `eyJ-eyJ-...`): every search
 * resumes past the characters it has already examined.
 */
/** A stretch of text to replace with `«redacted:label»`. */
export interface Span {
  start: number;
  end: number;
  label: string;
}

/** [A-Za-z0-9_-]: the characters of a key, a token or one JWT part. */
export function isKeyChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 45;
}

function isWordChar(code: number): boolean {
  return isKeyChar(code) && code !== 45;
}

function runEnd(text: string, from: number): number {
  let j = from;
  while (j < text.length && isKeyChar(text.charCodeAt(j))) j += 1;
  return j;
}

/** `prefix` followed by at least `min` key characters, e.g. `service_sk_…`, `whsec_…`. */
function prefixed(text: string, prefix: string, min: number, label: string, spans: Span[]): void {
  for (let i = text.indexOf(prefix); i !== -1; ) {
    const end = runEnd(text, i + prefix.length);
    if (end - i - prefix.length >= min) spans.push({ start: i, end, label });
    i = text.indexOf(prefix, Math.max(end, i + 1));
  }
}

/** `eyJ…` `.` `…` `.` `…`: three key-character parts, the first a base64url JSON object. */
function jwts(text: string, spans: Span[]): void {
  for (let i = text.indexOf('eyJ'); i !== -1; ) {
    let resume = i + 1;
    if (i === 0 || !isWordChar(text.charCodeAt(i - 1))) {
      const first = runEnd(text, i);
      resume = Math.max(first, i + 1);
      if (first - i >= 11 && text[first] === '.') {
        const second = runEnd(text, first + 1);
        if (second - first - 1 >= 8 && text[second] === '.') {
          const third = runEnd(text, second + 1);
          if (third - second - 1 >= 8) spans.push({ start: i, end: third, label: 'jwt' });
          resume = Math.max(third, resume);
        } else resume = Math.max(second, resume);
      }
    }
    // Any later start inside the same run meets the same ending, so it is never examined again.
    i = text.indexOf('eyJ', resume);
  }
}

const KEY_HEADER = 'PRIVATE KEY-----';
/** How a private key begins: the one shape whose span may run on over any character (the redactor's `curlText` relies on it). */
export const PRIVATE_KEY_START = '-----BEGIN ';
/** A key body longer than this is not a key: an unterminated header redacts this much after it. */
const KEY_BODY_MAX = 16 * 1024;

/** `-----BEGIN … PRIVATE KEY-----` up to its `-----END … PRIVATE KEY-----`, or a bounded stretch when it has none. */
function privateKeys(text: string, spans: Span[]): void {
  let endSearchedFrom = -1;
  let endAt = -1;
  for (let i = text.indexOf(PRIVATE_KEY_START); i !== -1; ) {
    const header = text.slice(i, i + 11 + 40 + KEY_HEADER.length).indexOf(KEY_HEADER);
    if (header === -1) {
      i = text.indexOf(PRIVATE_KEY_START, i + 11);
      continue;
    }
    const bodyStart = i + header + KEY_HEADER.length;
    // The search for an end resumes where the last one stopped: positions only move forward.
    if (endSearchedFrom === -1 || (endAt !== -1 && endAt < bodyStart)) {
      endSearchedFrom = bodyStart;
      endAt = text.indexOf('-----END ', bodyStart);
    }
    let end: number;
    if (endAt !== -1 && endAt - bodyStart <= KEY_BODY_MAX) {
      const close = text.slice(endAt, endAt + 9 + 40 + KEY_HEADER.length).indexOf(KEY_HEADER);
      end = close === -1 ? endAt + 9 : endAt + close + KEY_HEADER.length;
    } else {
      end = Math.min(text.length, bodyStart + KEY_BODY_MAX);
    }
    spans.push({ start: i, end, label: 'private-key' });
    i = text.indexOf(PRIVATE_KEY_START, end);
  }
}

export function scanSecretShapes(text: string, spans: Span[]): void {
  prefixed(text, 'service_sk_', 4, 'api-key', spans);
  prefixed(text, 'whsec_', 8, 'signing-secret', spans);
  jwts(text, spans);
  privateKeys(text, spans);
}
