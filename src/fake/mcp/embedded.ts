import type { EmbeddedContributor } from '../embedded/types.ts';

/** /mcp credentials and fixtures for the embedded fake (issue: /mcp transport). */
export const mcpEmbedded: EmbeddedContributor = () => ({});
