/** Skills of the fake, each visible to one principal only so cross-principal lookups can be told apart. */
import { createHash } from 'node:crypto';
import type { Skill } from '../../src/contract/v8/skills.ts';
import { PRIMARY_PRINCIPAL, SECOND_PRINCIPAL } from './principal.ts';

export interface SkillScenario {
  owner: string;
  skill: Skill;
}

function skill(skillId: string, name: string, healthState: Skill['healthState'], evidenceScore: number): Skill {
  return {
    skillId,
    name,
    description: `${name} (reference fake skill)`,
    version: '2.3.0',
    contractHash: createHash('sha256').update(`skill:${skillId}`).digest('hex'),
    kind: 'skill',
    healthState,
    requiredScopes: ['skills:invoke'],
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    evidenceState: { lastVerifiedAt: '2026-11-01T08:00:00Z', evidenceScore, verificationPassed: evidenceScore >= 0.5 },
  };
}

export const skillScenarios: SkillScenario[] = [
  { owner: PRIMARY_PRINCIPAL, skill: skill('apicert.skill.summarise', 'Summarise documents', 'healthy', 0.92) },
  { owner: PRIMARY_PRINCIPAL, skill: skill('apicert.skill:translate-v2', 'Translate text', 'degraded', 0.4) },
  { owner: SECOND_PRINCIPAL, skill: skill('apicert.skill.payroll-export', 'Export payroll', 'healthy', 1) },
];

/** The fixture the embedded profile gives: a skill only the primary principal can see. */
export const PRIMARY_SKILL_ID = 'apicert.skill.summarise';
