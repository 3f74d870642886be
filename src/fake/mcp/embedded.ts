import type { ProfileInput } from '../../profile/schema.ts';
import type { EmbeddedContributor } from '../embedded/types.ts';
import { requiresSessions } from './session.ts';

/**
 * /mcp credentials and fixtures for the embedded fake. The seed names no scope for /mcp, so the
 * tokens hold none; an expired one lets the auth observation record what /mcp does with it.
 */
export const mcpEmbedded: EmbeddedContributor = (fake) => {
  const credentials: NonNullable<ProfileInput['credentials']> = [];
  const mcp = (name: string, expired: boolean) => {
    const token = fake.context.tokens.issue('mcpat_', { principal: 'mcp-principal-a', tenant: 'tenant-a', scopes: [], expired });
    credentials.push({ name, token, surfaces: ['mcp'], scopes: [], principal: 'mcp-principal-a', expired });
  };
  mcp('mcp', false);
  mcp('mcp-expired', true);
  return {
    credentials,
    // The deployment this profile describes: sessions are required unless the fake is stateless.
    fixtures: { mcp: { requiresSession: requiresSessions(fake.context), safeTool: { name: 'echo', arguments: { text: 'apicert probe' } } } },
  };
};
