import type { VariantDefinition } from '../types.ts';

export const mcpSessionVariants = [
  {
    id: 'mcp.session/never-issued-400',
    description: 'a session id the server never issued is answered 400 Bad Request (the fake otherwise answers 404, as for a terminated one)',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Session Management',
      quote: 'The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.',
    },
  },
  {
    id: 'mcp.session/no-sessions',
    description: 'no Mcp-Session-Id is assigned at initialization; every request is served without one (a stateless server)',
    spec: { document: 'mcp-2025-03-26', section: 'Transports > Session Management', quote: 'A server using the Streamable HTTP transport MAY assign a session ID at initialization time' },
  },
] as const satisfies readonly VariantDefinition[];
