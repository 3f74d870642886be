import type { JsonRpcRequest } from '../../contract/mcp/jsonrpc.ts';
import { initializeParams, MCP_REVISION } from '../../contract/mcp/lifecycle.ts';
import type { FakeCaller } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import type { RouteRequest } from '../http.ts';
import { writeJson } from './respond.ts';
import { newSessionId, sessionHeaders } from './session.ts';
import type { McpSurface } from './surface.ts';

/** Revisions this fake speaks; it answers every other request for a version with the newest of these. */
const SUPPORTED_VERSIONS = [MCP_REVISION] as const;
const SERVER_INFO = { name: 'apicert-reference-fake', version: '0.1.0' };

function negotiate(fake: FakeContext, requested: string): string {
  if ((SUPPORTED_VERSIONS as readonly string[]).includes(requested)) {
    return fake.faults.has('mcp.lifecycle.version-echo/answers-2024-11-05') ? '2024-11-05' : requested;
  }
  return fake.faults.has('mcp.lifecycle.version-unknown/echoes-unknown') ? requested : SUPPORTED_VERSIONS[0];
}

/** `initialize`, sent on its own: a new session, its id in the response header. */
export function initialize({ fake, sessions, responses }: McpSurface, r: RouteRequest, caller: FakeCaller, request: JsonRpcRequest): void {
  const params = initializeParams.safeParse(request.params ?? {});
  if (!params.success) {
    writeJson(r.res, 200, responses.error(request.id, -32602, 'Invalid params: initialize needs protocolVersion, capabilities and clientInfo'));
    return;
  }
  const protocolVersion = negotiate(fake, params.data.protocolVersion);
  const session = sessions.create(caller.principal, protocolVersion, newSessionId(fake));
  const result: Record<string, unknown> = {
    protocolVersion,
    capabilities: { tools: { listChanged: false } },
    serverInfo: SERVER_INFO,
    instructions: 'Reference fake of /mcp: the tools echo and add have no side effects.',
  };
  if (fake.faults.has('mcp.lifecycle.initialize-result/no-server-info')) delete result.serverInfo;
  writeJson(r.res, 200, responses.result(request.id, result), sessionHeaders(fake, session));
}
