import type { Rule } from '../../catalog/types.ts';

/** /v1 rules apart from webhooks (issue: /v1 execution fabric). */
export const v1Rules: Rule[] = [];
