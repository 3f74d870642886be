import type { FaultDefinition } from '../types.ts';

/** Faults of the v8.auth rules: each breaks exactly the rule named before its slash. */
export const v8AuthFaults = [
  { id: 'v8.auth.challenge/no-challenge', description: 'a /v8 401 carries no WWW-Authenticate header' },
  { id: 'v8.auth.challenge/basic-only', description: 'a /v8 401 challenges only with Basic, a scheme the gateway does not take' },
  { id: 'v8.auth.scope-matrix/coverage-without-scope', description: 'coverage answers 200 without coverage:read' },
  { id: 'v8.auth.scope-matrix/expired-token-on-certificates', description: 'certificates accept an expired token' },
  { id: 'v8.auth.scope-matrix/trace-other-principal', description: "a trace is served to another principal" },
  { id: 'v8.auth.scope-matrix/search-without-token', description: 'capability search answers without a token' },
] as const satisfies readonly FaultDefinition[];
