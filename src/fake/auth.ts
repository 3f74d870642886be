import { randomBytes } from 'node:crypto';

export interface FakeCaller {
  principal: string;
  tenant: string;
  scopes: ReadonlySet<string>;
  expired: boolean;
}

/** The /v1 key prefix the seed requires; the fake's other prefixes are its own choice. */
const REQUIRED_PREFIX = 'service_sk_';

/**
 * The fake's tokens: random per fake instance, so no token is ever written down. Given `words`,
 * tokens are built from them instead (`oauth-missions-session-…`), as OAuth deployments often do:
 * the tests of the redactor certify with such tokens to show that words shared with the
 * descriptions are never taken for secrets.
 */
export class TokenRegistry {
  private readonly tokens = new Map<string, FakeCaller>();

  private readonly words: readonly string[] | undefined;

  constructor(words?: readonly string[]) {
    this.words = words;
  }

  issue(prefix: string, caller: Omit<FakeCaller, 'scopes'> & { scopes: Iterable<string> }): string {
    const token = this.words ? `${prefix === REQUIRED_PREFIX ? prefix : 'oauth-'}${this.wordsFor(this.tokens.size)}` : `${prefix}${randomBytes(18).toString('base64url')}`;
    this.tokens.set(token, { ...caller, scopes: new Set(caller.scopes) });
    return token;
  }

  /** Four words for the n-th token, its digits in base `words.length`: distinct for every token issued. */
  private wordsFor(n: number): string {
    const words = this.words!;
    const picked: string[] = [];
    for (let i = 0, rest = n; i < 4; i += 1, rest = Math.floor(rest / words.length)) picked.push(words[(rest + i * 3) % words.length]!);
    return picked.join('-');
  }

  /** The first token issued with `prefix` to a caller whose token has not expired: what a fault that takes a forged key for a real one serves it as. */
  firstIssued(prefix: string): string | undefined {
    for (const [token, caller] of this.tokens) if (token.startsWith(prefix) && !caller.expired) return token;
    return undefined;
  }

  /** The caller behind an `Authorization: Bearer` header, or undefined when there is none or it is unknown. */
  lookup(authorization: string | undefined): FakeCaller | undefined {
    // RFC 9110 11.1: "It uses a case-insensitive token to identify the authentication scheme"; 11.4: one or more spaces follow it.
    const token = /^bearer +(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    return token === undefined ? undefined : this.tokens.get(token);
  }
}
