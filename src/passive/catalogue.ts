/** The rules a recording can judge, each under the id of the existing rule it judges. */
import type { PassiveRule } from './judging.ts';
import { headerRules, problemRules, secretRules } from './rules/common.ts';
import { shapeRules } from './rules/shapes.ts';
import { v1Rules } from './rules/v1.ts';
import { webhookRules } from './rules/webhooks.ts';

export const PASSIVE_RULES: readonly PassiveRule[] = [...problemRules, ...headerRules, ...secretRules, ...v1Rules, ...shapeRules, ...webhookRules];

const byId = new Map(PASSIVE_RULES.map((p) => [p.id, p]));
if (byId.size !== PASSIVE_RULES.length) throw new Error('two passive judgements share a rule id');

export function passiveJudgement(id: string): PassiveRule | undefined {
  return byId.get(id);
}
