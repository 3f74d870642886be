import type { VariantDefinition } from '../types.ts';

export const v8CertificatesVariants = [
  {
    id: 'v8.certificates/array-payload',
    description: 'world certificates are answered as a bare array (the prose\'s and SDK\'s reading) instead of {certificates: [...]}',
    spec: { document: 'v8-integration-gateway.md', section: 'Resources > World certificate', quote: 'The response is an object `{certificates: [...]}`. The prose and SDK call the payload an array.' },
  },
] as const satisfies readonly VariantDefinition[];
