export const EVIDENCE_BODY_LIMIT = 4096;
export const EVIDENCE_EVENT_LIMIT = 60;
/** What one run keeps of bodies and events in all (characters); later evidence keeps headers only. */
export const RUN_EVIDENCE_LIMIT = 24 * 1024 * 1024;

/**
 * A fresh copy: a slice of a large string can keep the whole string alive (V8 sliced strings), so
 * evidence never holds a view of a target's body.
 */
export function detached(text: string): string {
  return text.length < 16 ? text : Buffer.from(text, 'utf8').toString('utf8');
}

export function clip(text: string, limit = EVIDENCE_BODY_LIMIT): { text: string; truncated: boolean } {
  return text.length > limit ? { text: `${detached(text.slice(0, limit))}…`, truncated: true } : { text: detached(text), truncated: false };
}

/**
 * `clip(text, limit).text` for a text that may already be evidence: one `clip` made (at most the
 * limit, or the limit and its ellipsis) is kept as it is. Evidence is redacted again whenever a check
 * learns a secret, and a fresh copy of every kept body each time doubled what the run held (the
 * entries other rules still point at keep the old copy).
 */
export function clipped(text: string, limit = EVIDENCE_BODY_LIMIT): string {
  return text.length <= limit || (text.length === limit + 1 && text.endsWith('…')) ? text : clip(text, limit).text;
}

/** Shared by the forks of one run's probe: the total evidence text the run keeps. */
export class EvidenceBudget {
  used = 0;
  readonly limit: number;
  constructor(limit = RUN_EVIDENCE_LIMIT) {
    this.limit = limit;
  }

  /** `text` if it fits the run's budget, else a note saying it was dropped. */
  keep(text: string): string {
    if (this.used + text.length > this.limit) return `«dropped: the run's evidence reached ${Math.round(this.limit / 1024 / 1024)} MiB»`;
    this.used += text.length;
    return text;
  }
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function tokenVariable(credentialName: string): string {
  return `TOKEN_${credentialName.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

/** Builds the curl line from redacted parts; the token becomes `$TOKEN_<CREDENTIAL>`. */
export function curlLine(method: string, url: string, headers: Record<string, string>, body: string | undefined, credentialName?: string, streaming = false): string {
  const parts = ['curl', '-sS', '-i'];
  if (streaming) parts.push('-N');
  parts.push('-X', method, shellQuote(url));
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'authorization' && credentialName) {
      parts.push('-H', `"Authorization: Bearer \${${tokenVariable(credentialName)}}"`);
    } else {
      parts.push('-H', shellQuote(`${name}: ${value}`));
    }
  }
  if (body !== undefined) parts.push('--data-raw', shellQuote(body));
  return parts.join(' ');
}
