import type { Rule } from '../../../catalog/types.ts';

/** /v1 webhook rules (issue: /v1 webhooks). */
export const v1WebhookRules: Rule[] = [];
