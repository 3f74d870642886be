/**
 * The rule registry: every rule apicert knows, in one list, surface by surface. It imports the
 * surfaces' lists; nothing below it imports it. A newcomer starts reading at src/rule/, then here.
 */
import { mcpRules } from './checks/mcp/index.ts';
import { v1Rules } from './checks/v1/index.ts';
import { v8Rules } from './checks/v8/index.ts';
import type { Rule } from './rule/index.ts';

export const RULES: readonly Rule[] = [...v8Rules, ...v1Rules, ...mcpRules];

const byId = new Map(RULES.map((r) => [r.id, r]));
if (byId.size !== RULES.length) throw new Error('two rules share an id');

export function ruleById(id: string): Rule | undefined {
  return byId.get(id);
}
