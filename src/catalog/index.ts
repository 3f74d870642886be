/** The rule registry: every rule apicert knows, in one list. A newcomer starts reading here. */
import { mcpRules } from '../checks/mcp/index.ts';
import { v1Rules } from '../checks/v1/index.ts';
import { v1WebhookRules } from '../checks/v1/webhooks/index.ts';
import { problemShape, versionHeader } from '../checks/v8/contract.ts';
import { v8MissionRules } from '../checks/v8/missions/index.ts';
import { v8ReadRules } from '../checks/v8/read/index.ts';
import type { Rule } from './types.ts';

export const RULES: readonly Rule[] = [...v8MissionRules, ...v8ReadRules, versionHeader, problemShape, ...v1Rules, ...v1WebhookRules, ...mcpRules];

const byId = new Map(RULES.map((r) => [r.id, r]));
if (byId.size !== RULES.length) throw new Error('two rules share an id');

export function ruleById(id: string): Rule | undefined {
  return byId.get(id);
}
