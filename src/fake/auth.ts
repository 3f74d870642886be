import { randomBytes } from 'node:crypto';

export interface FakeCaller {
  principal: string;
  tenant: string;
  scopes: ReadonlySet<string>;
  expired: boolean;
}

/** The fake's tokens: random per fake instance, so no token is ever written down. */
export class TokenRegistry {
  private readonly tokens = new Map<string, FakeCaller>();

  issue(prefix: string, caller: Omit<FakeCaller, 'scopes'> & { scopes: Iterable<string> }): string {
    const token = `${prefix}${randomBytes(18).toString('base64url')}`;
    this.tokens.set(token, { ...caller, scopes: new Set(caller.scopes) });
    return token;
  }

  /** The caller behind an `Authorization: Bearer` header, or undefined when there is none or it is unknown. */
  lookup(authorization: string | undefined): FakeCaller | undefined {
    if (!authorization?.startsWith('Bearer ')) return undefined;
    return this.tokens.get(authorization.slice(7).trim());
  }
}
