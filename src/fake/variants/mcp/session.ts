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
    id: 'mcp.session/missing-404',
    description: 'a request without Mcp-Session-Id, on a server that requires one, is answered 404 Not Found instead of the recommended 400',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Session Management',
      quote: 'Servers that require a session ID SHOULD respond to requests without an `Mcp-Session-Id` header (other than initialization) with HTTP 400 Bad Request.',
    },
    departsFrom: ['mcp.session.missing-400'],
  },
  {
    id: 'mcp.session/no-sessions',
    description: 'no Mcp-Session-Id is assigned at initialization; every request is served without one (a stateless server)',
    spec: { document: 'mcp-2025-03-26', section: 'Transports > Session Management', quote: 'A server using the Streamable HTTP transport MAY assign a session ID at initialization time' },
  },
  {
    id: 'mcp.session/jwt-ids',
    description: 'session ids are JWT-shaped (three base64url parts joined by dots, about 250 characters), one of the forms MCP names',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Session Management',
      quote: 'The session ID SHOULD be globally unique and cryptographically secure (e.g., a securely generated UUID, a JWT, or a cryptographic hash).',
    },
    excludes: ['mcp.session/punctuation-ids', 'mcp.session/no-sessions'],
  },
  {
    id: 'mcp.session/punctuation-ids',
    description: 'session ids are 600 characters long and use every visible ASCII character, punctuation included (" \\ , ; = ~ and the rest)',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Session Management',
      quote: 'The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E).',
    },
    excludes: ['mcp.session/jwt-ids', 'mcp.session/no-sessions'],
  },
  {
    id: 'mcp.session/id-on-every-response',
    description: 'every answer in a session repeats its Mcp-Session-Id header, not only the answer to initialize (as the TypeScript SDK does)',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Session Management',
      quote: 'A server using the Streamable HTTP transport MAY assign a session ID at initialization time, by including it in an Mcp-Session-Id header on the HTTP response containing the InitializeResult.',
    },
    excludes: ['mcp.session/no-sessions'],
  },
  {
    id: 'mcp.session/delete-405',
    description: 'DELETE with a session id is refused with 405 Method Not Allowed: clients cannot end sessions',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Session Management',
      quote: 'The server MAY respond to this request with HTTP 405 Method Not Allowed, indicating that the server does not allow clients to terminate sessions.',
    },
    excludes: ['mcp.session/no-sessions'],
  },
  {
    id: 'mcp.session/plain-refusals',
    description: 'a request without a session id (400) or with one that is unknown or ended (404) is refused with a text/plain body, not a JSON-RPC error',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Session Management',
      quote: 'The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.',
    },
    excludes: ['mcp.session/no-sessions'],
  },
  {
    id: 'mcp.session/ids-not-required',
    description: 'session ids are assigned at initialization but not required: a request without Mcp-Session-Id, or with one the server never issued, is served (a terminated session still gets 404)',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Session Management',
      quote: 'A server using the Streamable HTTP transport MAY assign a session ID at initialization time … Servers that require a session ID SHOULD respond to requests without an Mcp-Session-Id header (other than initialization) with HTTP 400 Bad Request.',
    },
    excludes: ['mcp.session/no-sessions', 'mcp.session/missing-404', 'mcp.session/never-issued-400'],
  },
  {
    id: 'mcp.session/ends-after-requests',
    description: 'the server ends a session after it served 20 requests in it, and answers every later request carrying its id 404 Not Found',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Session Management',
      quote: 'The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.',
    },
    excludes: ['mcp.session/no-sessions', 'mcp.session/kept-open', 'mcp.session/ends-early'],
  },
  {
    id: 'mcp.session/ends-early',
    description: 'the server ends a session after it served 3 requests in it (a per-session quota), and answers every later request carrying its id 404 Not Found: the catalogue\'s session, and many a check\'s, end under them',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Session Management',
      quote: 'The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.',
    },
    excludes: ['mcp.session/no-sessions', 'mcp.session/kept-open', 'mcp.session/ends-after-requests'],
  },
  {
    id: 'mcp.session/kept-open',
    description: 'the server never ends a session of its own accord (by default it ends one after 100 requests): a session lives until its DELETE',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Session Management',
      quote: 'The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.',
    },
    excludes: ['mcp.session/no-sessions', 'mcp.session/ends-after-requests', 'mcp.session/ends-early'],
  },
] as const satisfies readonly VariantDefinition[];
