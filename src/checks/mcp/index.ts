import type { Rule } from '../../catalog/types.ts';

/** /mcp transport and lifecycle rules (issue: /mcp transport). */
export const mcpRules: Rule[] = [];
