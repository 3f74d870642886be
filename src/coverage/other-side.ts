/**
 * The rules of the other side of the wire: `certify-receiver` judges a team's webhook receiver and
 * `judge-client` its API client (the lists their `--list-rules` print). They live outside the
 * registry, so certify never runs them, yet they judge the sentences that bind a receiver or a
 * client: the matrix credits those units to them like to certify's rules.
 */
import { CLIENT_RULES } from '../client-judge/rules.ts';
import { receiverRules } from '../receiver-cert/rules.ts';
import type { Rule } from '../rule/index.ts';

export const OTHER_SIDE_RULES: readonly Rule[] = [...receiverRules, ...CLIENT_RULES];
