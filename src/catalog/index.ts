/** The rule registry: every rule apicert knows, in one list. A newcomer starts reading here. */
import { problemShape, versionHeader } from '../checks/v8/contract.ts';
import { v8MissionRules } from '../checks/v8/missions/index.ts';
import type { Rule } from './types.ts';

export const RULES: readonly Rule[] = [...v8MissionRules, versionHeader, problemShape];

const byId = new Map(RULES.map((r) => [r.id, r]));
if (byId.size !== RULES.length) throw new Error('two rules share an id');

export function ruleById(id: string): Rule | undefined {
  return byId.get(id);
}
