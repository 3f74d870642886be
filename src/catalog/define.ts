import type { Rule } from './types.ts';

const ID_PATTERN = /^(v8|v1|mcp)\.[a-z0-9-]+(\.[a-z0-9-]+)+$/;

/** Declares a rule; the id must start with its surface and area so it sorts with its section. */
export function defineRule(rule: Rule): Rule {
  if (!ID_PATTERN.test(rule.id) || !rule.id.startsWith(`${rule.surface}.`)) {
    throw new Error(`rule id ${rule.id} must look like <surface>.<area>.<name> and start with ${rule.surface}`);
  }
  return rule;
}
