import type { VariantDefinition } from '../types.ts';

const DOC = 'v8-integration-gateway.md';
const SIGNATURE = { document: DOC, section: 'Resources > World certificate', quote: 'signature | string | Ed25519 signature by the verifier plane' } as const;

export const v8CertificatesVariants = [
  {
    id: 'v8.certificates/array-payload',
    description: 'world certificates are answered as a bare array (the prose\'s and SDK\'s reading) instead of {certificates: [...]}',
    spec: { document: DOC, section: 'Resources > World certificate', quote: 'The response is an object `{certificates: [...]}`. The prose and SDK call the payload an array.' },
  },
  {
    id: 'v8.certificates/extra-properties',
    description: 'the certificates wrapper and every certificate carry unknown properties (nested objects, arrays, nulls, odd names)',
    spec: { document: DOC, section: 'Resources > World certificate', quote: 'The response is an object `{certificates: [...]}`. The prose and SDK call the payload an array.' },
  },
  {
    id: 'v8.certificates/other-formats',
    description: 'certificateIds are URNs with `:` and `/`, heads are prefixed `sha256:`, and timestamps carry a `+00:00` offset',
    spec: { document: DOC, section: 'Resources > World certificate', quote: 'head | string | hash of the knowledge snapshot' },
  },
  {
    id: 'v8.certificates/hex-signature',
    description: 'signatures are 128 lowercase hex characters instead of base64url',
    spec: SIGNATURE,
    excludes: ['v8.certificates/base64-signature'],
  },
  {
    id: 'v8.certificates/base64-signature',
    description: 'signatures are standard base64 with `+`, `/` and `=` padding instead of base64url',
    spec: SIGNATURE,
    excludes: ['v8.certificates/hex-signature'],
  },
] as const satisfies readonly VariantDefinition[];
