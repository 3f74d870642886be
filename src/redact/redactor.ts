import { serviceKey } from '../rule/context.ts';
/**
 * Evidence is redacted at the source: the probe client passes every request and response through
 * one Redactor before anything is stored, so no report, log or curl line can carry a secret.
 */
const SECRET_SHAPES: ReadonlyArray<[RegExp, string]> = [
  [/service_sk_[A-Za-z0-9_\-]{4,}/g, '«redacted:api-key»'],
  [/whsec_[A-Za-z0-9_\-]{8,}/g, '«redacted:signing-secret»'],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g, '«redacted:jwt»'],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, '«redacted:private-key»'],
];

export const SECRET_HEADER_NAMES = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);

/** A response of the run that carried one of the run's own secrets: where, and which secret by label only. */
export interface SecretSighting {
  label: string;
  /** Method, redacted URL and status of the exchange. */
  where: string;
  path: string;
}

/** The run's sightings, for the rules that judge every exchange of the run (v8.redaction.run-secrets). */
export const SECRET_SIGHTINGS = serviceKey<readonly SecretSighting[]>('secret-sightings');

export class Redactor {
  private readonly secrets = new Map<string, string>();
  /** Every response of the run that carried a registered secret, noted before redaction hid it. */
  readonly sightings: SecretSighting[] = [];

  /** Notes which of the run's secrets appear in a response (its headers, body or events). */
  noteResponse(method: string, path: string, status: number, parts: readonly string[]): void {
    for (const [secret, label] of this.secrets) {
      if (parts.some((p) => p.includes(secret))) this.sightings.push({ label, path, where: `${method} ${this.text(path)} -> ${status}` });
    }
  }

  /** Registers a value that must never be printed; `label` names it in the redacted output. */
  add(value: string | undefined, label: string): void {
    // Very short values would redact ordinary text everywhere; a real secret is never this short.
    if (value && value.length >= 6) this.secrets.set(value, label);
  }

  text(input: string): string {
    let out = input;
    for (const [secret, label] of this.secrets) {
      if (out.includes(secret)) out = out.split(secret).join(`«redacted:${label}»`);
    }
    for (const [shape, marker] of SECRET_SHAPES) out = out.replace(shape, marker);
    return out;
  }

  headers(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (SECRET_HEADER_NAMES.has(name.toLowerCase())) {
        const scheme = /^(Bearer|Basic)\s/i.exec(value)?.[1];
        out[name] = scheme ? `${scheme} «redacted»` : '«redacted»';
      } else {
        out[name] = this.text(value);
      }
    }
    return out;
  }
}
