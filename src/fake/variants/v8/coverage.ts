import type { VariantDefinition } from '../types.ts';

const DOC = 'v8-integration-gateway.md';

export const v8CoverageVariants = [
  {
    id: 'v8.coverage/extra-properties',
    description: 'the coverage report, every endpoint entry and every capabilityKinds entry carry unknown properties (the kind keys stay the seven)',
    spec: {
      document: DOC,
      section: 'Resources > Coverage report',
      quote: 'endpoints | array of {operationId string, method string, path string, scope string, available boolean, evidenceScore number 0.0-1.0}',
    },
  },
  {
    id: 'v8.coverage/unavailable-endpoints',
    description: 'the endpoints list also names POST /v8/intents, unavailable with evidenceScore 0, and gives the gateway version with a build suffix',
    spec: { document: DOC, section: 'Resources > Coverage report', quote: 'The report shows only what the caller\'s scopes permit. Scores measure verification depth, not production readiness.' },
  },
] as const satisfies readonly VariantDefinition[];
