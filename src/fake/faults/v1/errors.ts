import type { FaultDefinition } from '../types.ts';

/** Faults of the v1.errors rules: each breaks exactly the rule named before its slash. */
export const v1ErrorsFaults = [
  { id: 'v1.errors.problem-shape/extra-member', description: 'v1 problems carry an extra "error" member' },
  { id: 'v1.errors.rate-limited/not-retryable', description: '429 answers say retryable: false' },
  { id: 'v1.errors.rate-limited-retry-after/no-retry-after', description: '429 answers carry no Retry-After header' },
  { id: 'v1.errors.limiter-unavailable-503/fail-open', description: 'requests are served when the rate limiter is unavailable' },
  { id: 'v1.errors.limiter-unavailable-503/not-retryable', description: 'the fail-closed 503 of a key whose limiter is unavailable says retryable: false' },
  { id: 'v1.errors.rate-limited/never-limits', description: 'a key past its declared tier is still served: no 429 ever' },
  { id: 'v1.errors.rate-limited/limit-as-403', description: 'over the rate limit a key is answered 403 entitlement_failed instead of 429' },
] as const satisfies readonly FaultDefinition[];
