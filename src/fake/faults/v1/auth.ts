import type { FaultDefinition } from '../types.ts';

/** Faults of the v1.auth rules: each breaks exactly the rule named before its slash. */
export const v1AuthFaults = [
  { id: 'v1.auth.unauthenticated/serves-without-key', description: '/v1 requests without an API key are served' },
  { id: 'v1.auth.unauthenticated/webhooks-without-key', description: 'webhook registration is served without an API key (every other /v1 endpoint refuses one)' },
  { id: 'v1.auth.expired-key/accepted', description: 'an expired API key is accepted' },
  { id: 'v1.auth.key-prefix/ignored', description: 'a key presented without its service_sk_ prefix (or with another prefix) is accepted' },
  { id: 'v1.auth.key-prefix/other-surfaces-accepted', description: 'a token issued for /v8 or /mcp (no service_sk_ prefix) is accepted on /v1 as its principal with the /v1 scopes' },
  { id: 'v1.auth.challenge/no-challenge', description: 'a /v1 401 carries no WWW-Authenticate header' },
  { id: 'v1.auth.challenge/basic-only', description: 'a /v1 401 challenges only with Basic, a scheme /v1 does not take' },
  { id: 'v1.auth.run-secrets/key-in-401', description: "a 401 for an expired key echoes the caller's own key in its detail" },
] as const satisfies readonly FaultDefinition[];
