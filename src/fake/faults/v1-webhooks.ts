import type { FaultDefinition } from './types.ts';

/** Each fault breaks exactly the rule named before its slash. */
export const v1WebhooksFaults = [] as const satisfies readonly FaultDefinition[];
