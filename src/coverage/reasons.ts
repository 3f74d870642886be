/**
 * Why a unit of a seed is judged by no rule. Each reason names what makes the sentence impossible
 * to judge from outside the deployment; a unit that could be judged gets a rule instead, or
 * NO_RULE_YET until it has one (counted apart, never as "not judgeable").
 */
export const REASONS = {
  INFORMATIVE: 'informative: it describes the documents, the version label or the service, and states no behaviour a request can show',
  NOT_SHOWN: 'not shown: the seed says so, so there is nothing to hold the target to (every legal choice passes)',
  LEAD_IN: 'lead-in: it introduces the items that follow, each a unit of its own',
  CLIENT: 'binds the client (or a receiver), not the server, and no judge-client or certify-receiver rule judges it: certify plays the client and cannot judge itself',
  INTERNAL: 'no endpoint exposes it: routing, policy and authority happen inside the deployment and no response shows them',
  OUT_OF_SCOPE: 'out of scope: the seed says so (identity-provider JWT principals of the operator\'s own clients)',
  UNSPECIFIED: 'unspecified: the seed says the relationship is unspecified, so no answer can break it',
  DEPLOYMENT: 'a property of where and how the deployment runs (its own origin, its network binding), which no request to it can show',
  NO_INVOKE: 'no endpoint invokes a capability: the seed shows no invocation operation, so "cannot be invoked" has nothing to call',
  NO_SERVER_REQUEST: 'answers to server-to-client requests: the gateway disables server push and shows no JSON-RPC methods, so apicert has no server request to answer',
  MAY: 'a permission (MAY): either choice is legal, so no answer can break it',
  GET_DISABLED: 'the GET stream: the seed disables server-to-client streams opened by GET (GET /mcp is 405, judged by mcp.transport.get-405), so there is no such stream to observe',
  NO_RULE_YET: 'judgeable, no rule yet: the traffic can show it (a POST to /mcp may be answered with an SSE stream, which mcp.transport.request-response accepts, and the messages on it would show a break), yet no rule judges it',
} as const;

export type ReasonCode = keyof typeof REASONS;
