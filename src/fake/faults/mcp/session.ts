import type { FaultDefinition } from '../types.ts';

/** Faults of the mcp.session rules: each breaks exactly the rule named before its slash. */
export const mcpSessionFaults = [
  { id: 'mcp.session.id-visible-ascii/contains-space', description: 'the Mcp-Session-Id contains a space' },
  {
    id: 'mcp.session.id-visible-ascii/no-session-assigned',
    description: 'no Mcp-Session-Id is assigned at initialization, though the profile says the deployment requires sessions (fixtures.mcp.requiresSession: true)',
    alsoBreaks: {
      rules: ['mcp.session.id-unique', 'mcp.session.missing-400', 'mcp.session.never-issued', 'mcp.session.delete-terminates', 'mcp.session.ended-stays-404'],
      why: 'every session rule starts from the session id the declared deployment must assign; without one each fails saying so (missing-400 as the SHOULD it is)',
    },
  },
  {
    id: 'mcp.session.id-unique/request-hash-id',
    description: 'the Mcp-Session-Id is the SHA-256 of the initialize request, so two initialize requests alike to the byte get the same id',
  },
  { id: 'mcp.session.missing-400/served-without-session', description: 'a request without Mcp-Session-Id is served' },
  { id: 'mcp.session.never-issued/served', description: 'a session id that was never issued is served as if it were a live session' },
  { id: 'mcp.session.delete-terminates/delete-ignored', description: 'DELETE answers 204 but the session stays usable' },
  {
    id: 'mcp.session.ended-stays-404/delete-after-end-204',
    description: 'the server ends each session after 20 requests (answering 404 Not Found), but answers a DELETE of a session it ended 204 No Content',
  },
] as const satisfies readonly FaultDefinition[];
