import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseProfile } from '../../src/profile/load.ts';
import type { Verdict } from '../../src/rule/index.ts';
import { certify } from '../../src/runner/certify.ts';
import { PEER_KINDS, PEER_PATH, startSdkPeer, type PeerKind, type SdkPeer } from '../support/sdk-peers.ts';

/**
 * Every verdict other than pass on an MCP server built with the official TypeScript SDK, with the
 * sentence that justifies it. A rule that starts failing a peer for a reason not in this table is
 * over-assuming (fix the rule); a rule that starts passing where this table says fail has lost
 * its teeth.
 */
const JUSTIFIED: Record<PeerKind, Record<string, { verdict: Verdict; sentence: string }>> = {
  'stateful-json': {
    'mcp.transport.get-405': GATEWAY_GET(),
    'mcp.auth.challenge': NO_TOKENS(),
    'mcp.auth.expired-401': NO_BEARER(),
    'mcp.session.delete-terminates': DELETE_404(),
    'mcp.session.ended-stays-404': KEEPS_SESSIONS(),
    'mcp.jsonrpc.invalid-request': INVALID_REQUEST(),
    'mcp.jsonrpc.invalid-params': INVALID_PARAMS(),
    'mcp.batch.answer-array': {
      verdict: 'fail',
      sentence:
        'JSON-RPC 2.0, Batch: "The Server should respond with an Array containing the corresponding Response objects" (a should, so the rule is a SHOULD: a warning that gates only with --strict). The peer answers a batch of one request with a bare object.',
    },
    'mcp.sse.event-ids-unique': { verdict: 'not-applicable', sentence: 'enableJsonResponse: every answer is application/json, so there is no SSE event id to judge.' },
    'mcp.sse.closes-after-response': { verdict: 'not-applicable', sentence: 'enableJsonResponse: no SSE stream is opened for a POST.' },
    'mcp.sse.no-broadcast': {
      verdict: 'not-applicable',
      sentence: 'Multiple Connections: "it MUST NOT broadcast the same message across multiple streams"; enableJsonResponse opens no SSE stream for a POST, so there are no two streams of a session to compare.',
    },
  },
  'stateful-sse': {
    'mcp.transport.get-405': GATEWAY_GET(),
    'mcp.auth.challenge': NO_TOKENS(),
    'mcp.auth.expired-401': NO_BEARER(),
    'mcp.session.delete-terminates': DELETE_404(),
    'mcp.session.ended-stays-404': KEEPS_SESSIONS(),
    'mcp.jsonrpc.invalid-request': INVALID_REQUEST(),
    'mcp.jsonrpc.invalid-params': INVALID_PARAMS(),
    'mcp.batch.answer-array': ONE_EVENT_PER_RESPONSE(),
    'mcp.transport.origin': ORIGIN(),
    'mcp.sse.event-ids-unique': NO_EVENT_IDS(),
  },
  stateless: {
    'mcp.transport.get-405': GATEWAY_GET(),
    'mcp.auth.challenge': NO_TOKENS(),
    'mcp.auth.expired-401': NO_BEARER(),
    'mcp.session.id-visible-ascii': NO_SESSIONS(),
    'mcp.session.id-unique': NO_SESSIONS(),
    'mcp.session.missing-400': NO_SESSIONS(),
    'mcp.session.never-issued': NO_SESSIONS(),
    'mcp.session.delete-terminates': NO_SESSIONS(),
    'mcp.session.ended-stays-404': KEEPS_SESSIONS(),
    'mcp.jsonrpc.invalid-request': INVALID_REQUEST(),
    'mcp.jsonrpc.invalid-params': INVALID_PARAMS(),
    'mcp.batch.answer-array': ONE_EVENT_PER_RESPONSE(),
    'mcp.transport.origin': ORIGIN(),
    'mcp.sse.event-ids-unique': NO_EVENT_IDS(),
  },
};

function GATEWAY_GET() {
  return {
    verdict: 'fail' as const,
    sentence:
      'The /v8 gateway seed, Endpoints: GET /mcp gives "`405 Method Not Allowed`, no JSON success body (server-to-client push is disabled)". MCP itself allows the SSE stream the peer opens (mcp.transport.get-stream-or-405 passes); the rule is the gateway\'s.',
  };
}
function DELETE_404() {
  return {
    verdict: 'fail' as const,
    sentence:
      'Session Management: "The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found." The README wiring answers 400 ("No valid session ID provided") once the transport is closed.',
  };
}
function INVALID_REQUEST() {
  return {
    verdict: 'fail' as const,
    sentence:
      'Messages: "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification"; JSON-RPC 2.0 defines -32600 Invalid Request as "The JSON sent is not a valid Request object" and -32700 as "Invalid JSON was received by the server". The SDK answers valid JSON without "jsonrpc" with -32700.',
  };
}
function INVALID_PARAMS() {
  return {
    verdict: 'fail' as const,
    sentence:
      'Messages: "MUST follow the JSON-RPC 2.0 specification"; JSON-RPC 2.0 defines -32602 Invalid params as "Invalid method parameter(s)". The SDK answers tools/call without a tool name with -32603 (Internal error).',
  };
}
function ORIGIN() {
  return {
    verdict: 'fail' as const,
    sentence:
      'Security Warning: "Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks". The SDK\'s DNS rebinding protection is off by default, and this peer keeps the default; the stateful-json peer turns it on and passes.',
  };
}
function NO_EVENT_IDS() {
  return {
    verdict: 'not-applicable' as const,
    sentence: 'Resumability and Redelivery: "Servers MAY attach an id field to their SSE events … If present, the ID MUST be globally unique"; without an EventStore the SDK sends no ids, so uniqueness has nothing to judge (it used to pass vacuously).',
  };
}
function ONE_EVENT_PER_RESPONSE() {
  return { verdict: 'not-applicable' as const, sentence: 'Sending Messages to the Server: on an SSE stream "These responses MAY be batched", so one event per response is legal.' };
}
function NO_TOKENS() {
  return {
    verdict: 'not-applicable' as const,
    sentence: 'RFC 9110 15.5.2 binds a 401 only, and the peers take no token (MCP 2025-03-26 Authorization: "Authorization is OPTIONAL for MCP implementations"): nothing is answered 401.',
  };
}
function NO_BEARER() {
  return {
    verdict: 'not-applicable' as const,
    sentence: 'Authentication: "A missing or expired token gives `401`." binds an endpoint that takes the gateway\'s bearer tokens; the peers take none (MCP 2025-03-26 Authorization: "Authorization is OPTIONAL for MCP implementations") and answer a missing token 200.',
  };
}
function KEEPS_SESSIONS() {
  return { verdict: 'not-applicable' as const, sentence: 'Session Management: "The server MAY terminate the session at any time"; the SDK peer ends no session of its own accord (only a DELETE ends one).' };
}

function NO_SESSIONS() {
  return { verdict: 'not-applicable' as const, sentence: 'Session Management: "A server using the Streamable HTTP transport MAY assign a session ID at initialization time"; the stateless peer assigns none.' };
}

describe.concurrent('MCP servers built with the official TypeScript SDK, certified with --surface mcp at an endpoint path', () => {
  const peers = new Map<PeerKind, SdkPeer>();
  beforeAll(async () => {
    for (const kind of PEER_KINDS) peers.set(kind, await startSdkPeer(kind));
  });
  afterAll(async () => {
    for (const peer of peers.values()) await peer.close();
  });

  it.each(PEER_KINDS.map((k) => [k] as const))('%s: every verdict but pass is one the MCP 2025-03-26 text (or the gateway seed) justifies', async (kind) => {
    const peer = peers.get(kind)!;
    expect(peer.endpoint.endsWith(PEER_PATH)).toBe(true);
    const profile = parseProfile(
      {
        target: peer.endpoint,
        // The peers take no token; the rules still need a caller to name.
        credentials: [{ name: 'mcp', token: 'apicert-peer-token', surfaces: ['mcp'] }],
        fixtures: { mcp: { safeTool: { name: 'echo', arguments: { text: 'apicert' } } } },
      },
      'sdk peer profile',
    );
    const { results, report } = await certify({ profile, surfaces: ['mcp'], seed: 5 });
    const notPassing = Object.fromEntries(results.filter((r) => r.verdict !== 'pass').map((r) => [r.rule.id, r.verdict]));
    const expected = Object.fromEntries(Object.entries(JUSTIFIED[kind]).map(([id, j]) => [id, j.verdict]));
    expect(notPassing).toEqual(expected);
    // Every request went to the configured endpoint, never to /mcp at the origin.
    const paths = new Set(results.flatMap((r) => r.evidence.map((e) => new URL(e.request.url).pathname)));
    expect([...paths]).toEqual([PEER_PATH]);
    expect(report.target.baseUrl).toBe(peer.endpoint);
    expect(report.summary.judged).toBeGreaterThan(15);
  });
});
