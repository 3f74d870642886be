import type { VariantDefinition } from '../types.ts';

const DOC = 'v8-integration-gateway.md';

export const v8RateLimitVariants = [
  {
    id: 'v8.rate-limit/global-limit',
    description:
      "besides each principal's own limit, a gateway-wide one: the requests of every principal on a tier count in one bucket of twice the strictest tier, so once the sum passes it every principal is answered 429, one below its own limit too",
    spec: { document: DOC, section: 'Limits', quote: 'A per-principal rate limit exists (`429`). Its numeric values: not shown.' },
  },
  {
    id: 'v8.rate-limit/tight-limit',
    description:
      'every principal without a tier of its own is limited to 150 requests per 5 s (fixed windows), answered 429 problem+json with Retry-After: a certification run at full speed meets the limit many times',
    spec: { document: DOC, section: 'Limits', quote: 'A per-principal rate limit exists (`429`). Its numeric values: not shown.' },
  },
] as const satisfies readonly VariantDefinition[];
