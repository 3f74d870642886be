import type { VariantDefinition } from '../types.ts';

const DOC = 'v8-integration-gateway.md';

export const v8SkillsVariants = [
  {
    id: 'v8.skills/extra-properties',
    description: 'skills and their evidenceState carry unknown properties (nested objects, arrays, nulls, odd names)',
    spec: { document: DOC, section: 'Resources > Skill', quote: 'evidenceState | object | `lastVerifiedAt` (timestamp), `evidenceScore` (number 0-1), `verificationPassed` (boolean)' },
  },
  {
    id: 'v8.skills/other-formats',
    description: 'skillIds of up to 200 characters with `:`, `_`, `.` and `-`, starting with a digit; contractHash in uppercase hex; lastVerifiedAt as epoch milliseconds',
    spec: { document: DOC, section: 'Endpoints', quote: 'path `skillId`: string, 1-256 chars, pattern `^[A-Za-z0-9][A-Za-z0-9._:-]*$`' },
  },
  {
    id: 'v8.skills/shared-catalogue',
    description: "skills form one catalogue: another principal holding skills:read reads the primary principal's skill (200) instead of 404",
    spec: { document: DOC, section: 'Authentication', quote: "Mission, trace and skill lookups are limited to the caller's principal and policy scope; a resource outside it gives `404`." },
  },
  {
    id: 'v8.skills/malformed-id-404',
    description: 'a skillId outside the pattern or longer than 256 characters answers 404 instead of 400',
    spec: { document: DOC, section: 'Errors', quote: '`GET /v8/skills/{skillId}` | `401`; `403`; `404`' },
  },
] as const satisfies readonly VariantDefinition[];
