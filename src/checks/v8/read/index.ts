import type { Rule } from '../../../catalog/types.ts';

/** /v8 rules outside missions (issue: /v8 read surfaces, redaction canaries and the scope matrix). */
export const v8ReadRules: Rule[] = [];
