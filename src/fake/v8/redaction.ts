import type { FakeContext } from '../context.ts';

/** What the fake puts where a sensitive value was. */
export const REDACTION_MARKER = '[REDACTED]';

/** Field names that hold secrets whatever their value looks like (`password`, `clientSecret`, `accessToken`, `apiKey`). */
const SECRET_FIELD = /(password|passphrase|secret|token|api[-_]?key|private[-_]?key|credentials?|authorization|cookie)$/i;

const BEARER = /^\s*Bearer\s+\S+\s*$/i;
const PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;
const API_KEY = /^(sk|pk|rk)_(live|test)_[A-Za-z0-9_-]{8,}$|^(ghp|gho|xox[abp])_[A-Za-z0-9_-]{8,}$|^AKIA[0-9A-Z]{16}$/;
const JWT = /^eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Redacts what is unambiguously sensitive before the fake echoes input back: values of fields named
 * like secrets, and whole values shaped like credentials. Free text is left alone, as the seed does
 * not define "sensitive"; each fault turns one of the detections off.
 */
export class SensitiveValues {
  private readonly fake: FakeContext;
  constructor(fake: FakeContext) {
    this.fake = fake;
  }

  /** True when the whole string is shaped like a credential. */
  isCredentialShaped(value: string): boolean {
    // Redacting by shape is the fake's choice, not the seed's ("sensitive" is not defined): a
    // gateway that echoes a PEM block under a neutral field is legal, and config turns it off.
    if (!this.fake.config.v8RedactsByShape) return false;
    return BEARER.test(value) || PRIVATE_KEY.test(value) || API_KEY.test(value) || JWT.test(value);
  }

  text(value: string): string {
    return this.isCredentialShaped(value) ? REDACTION_MARKER : value;
  }

  /** A refused purpose as a problem detail may show it. */
  purposeInError(purpose: string): string {
    return this.text(purpose);
  }

  /** A signal's payload as the mission's trace records it. */
  signalPayload(payload: unknown): unknown {
    return this.fake.faults.has('v8.redaction.canaries/signal-payload') ? payload : this.value(payload);
  }

  /** A deep copy of a JSON value with sensitive values replaced by the marker. */
  value(input: unknown, depth = 0): unknown {
    if (depth > 32) return REDACTION_MARKER;
    if (typeof input === 'string') return this.text(input);
    if (Array.isArray(input)) return input.map((item) => this.value(item, depth + 1));
    if (input && typeof input === 'object') {
      const honourNames = !this.fake.faults.has('v8.redaction.canaries/secret-named-field');
      return Object.fromEntries(
        Object.entries(input as Record<string, unknown>).map(([key, v]) => [key, honourNames && SECRET_FIELD.test(key) ? REDACTION_MARKER : this.value(v, depth + 1)]),
      );
    }
    return input;
  }
}

/** The faults echo the caller's own bearer token in a 401's or a 403's detail: what the run-secrets rule catches. */
export function echoedToken(fake: FakeContext, authorization: string | undefined, status: 401 | 403 = 401): string {
  if (!authorization || !fake.faults.has(status === 401 ? 'v8.redaction.run-secrets/token-in-401' : 'v8.redaction.run-secrets/token-in-403')) return '';
  return ` (token presented: ${authorization.replace(/^Bearer\s+/i, '')})`;
}
