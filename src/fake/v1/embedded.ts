import type { EmbeddedContributor } from '../embedded/types.ts';

/** /v1 roles and fixtures for the embedded fake (issue: /v1 execution fabric). */
export const v1Embedded: EmbeddedContributor = () => ({});
