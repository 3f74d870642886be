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

/** How a private key begins: the one shape whose span may run on over other characters (the redactor's `curlText` relies on it). */
export const PRIVATE_KEY_START = '-----BEGIN ';
const PRIVATE_KEY_END = '-----END ';
/** A PEM label (RFC 7468: `RSA PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`) right after BEGIN or END. */
const KEY_LABEL = /[A-Z0-9 ]{0,40}PRIVATE KEY-----/y;
/** A key body longer than this is not a key: an unterminated header redacts at most this much after it. */
const KEY_BODY_MAX = 16 * 1024;

/**
 * What a key's body may hold: base64, line breaks (as text, or as the `\n` of JSON text), and an
 * encrypted key's headers (`Proc-Type: 4,ENCRYPTED`). A body ends at any other character, so a key
 * span never runs over the quotes, brackets and tags of a report's structure.
 */
function isKeyBodyChar(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 43 && c <= 58) || c === 61 || c === 92 || c === 32 || c === 9 || c === 10 || c === 13;
}

/** The end of a PEM label starting at `at`, or -1. */
function labelEnd(text: string, at: number): number {
  KEY_LABEL.lastIndex = at;
  return KEY_LABEL.test(text) ? KEY_LABEL.lastIndex : -1;
}

/** `-----BEGIN … PRIVATE KEY-----` through its body to `-----END … PRIVATE KEY-----`, or to where a key body cannot go on. */
function privateKeys(text: string, spans: Span[]): void {
  for (let i = text.indexOf(PRIVATE_KEY_START); i !== -1; ) {
    let end = labelEnd(text, i + PRIVATE_KEY_START.length);
    if (end === -1) {
      i = text.indexOf(PRIVATE_KEY_START, i + PRIVATE_KEY_START.length);
      continue;
    }
    for (const limit = Math.min(text.length, end + KEY_BODY_MAX); end < limit; end += 1) {
      if (text.startsWith(PRIVATE_KEY_END, end)) {
        const closed = labelEnd(text, end + PRIVATE_KEY_END.length);
        end = closed === -1 ? end + PRIVATE_KEY_END.length : closed;
        break;
      }
      if (!isKeyBodyChar(text.charCodeAt(end))) break;
    }
    spans.push({ start: i, end, label: 'private-key' });
    i = text.indexOf(PRIVATE_KEY_START, end);
  }
}

/** The labels `scanSecretShapes` gives its spans: a marker bearing one is apicert's (see Redactor). */
export const SHAPE_LABELS: ReadonlySet<string> = new Set(['api-key', 'signing-secret', 'jwt', 'private-key']);

export function scanSecretShapes(text: string, spans: Span[]): void {
  prefixed(text, 'service_sk_', 4, 'api-key', spans);
  prefixed(text, 'whsec_', 8, 'signing-secret', spans);
  jwts(text, spans);
  privateKeys(text, spans);
}
