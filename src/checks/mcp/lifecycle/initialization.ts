/** Lifecycle > Initialization and Version Negotiation. */
import { type CheckContext, section } from '../../../rule/index.ts';
import { initializeResult, MCP_REVISION } from '../../../contract/mcp/lifecycle.ts';
import { errorOf, initializeOnce, isObject, SPEC_URL } from '../support/session.ts';
import { answeredResponses, mcpPosts, ordinaryMcpPosts, sentMessages } from '../support/traffic.ts';
import { issuesOf } from '../../../traffic/read.ts';

const rule = section({ surface: 'mcp', document: 'mcp-2025-03-26', needs: { credentials: ['mcp:primary'] } });

/** The protocolVersion of a result, read loosely so only initialize-result judges the rest of the shape. */
function versionOf(message: Record<string, unknown> | undefined): string | undefined {
  const result = message?.result;
  return isObject(result) && typeof result.protocolVersion === 'string' ? result.protocolVersion : undefined;
}

export const initializeResultRule = rule({
  id: 'mcp.lifecycle.initialize-result',
  title: 'initialize is answered with a result carrying protocolVersion, capabilities and serverInfo (name, version)',
  level: 'required',
  spec: {
    section: 'Lifecycle > Initialization',
    quote: 'The initialization phase MUST be the first interaction between client and server. … The server MUST respond with its own capabilities and information',
    url: SPEC_URL.lifecycle,
  },
  judgement: {
    record: 'a POST to the MCP endpoint carrying a well-formed initialize request (protocolVersion, capabilities, clientInfo)',
    judge(j) {
      for (const ex of ordinaryMcpPosts(j)) {
        // Any version asked for: a server that does not support it still answers with a result naming one it does.
        const init = (sentMessages(ex) ?? []).find((m) => m.method === 'initialize' && 'id' in m && isObject(m.params) && typeof m.params.protocolVersion === 'string' && isObject(m.params.capabilities) && isObject(m.params.clientInfo));
        if (!init || ex.status === undefined) continue;
        if (!j.check(ex, ex.status === 200, `initialize was answered HTTP ${ex.status}, expected 200`)) continue;
        const answered = answeredResponses(j, ex);
        if (!answered) continue;
        const message = answered.find((m) => m.id === init.id);
        if (!j.check(ex, message !== undefined, 'initialize was answered without a response carrying its id') || !message) continue;
        if (!j.check(ex, !('error' in message), `initialize was answered with an error: ${JSON.stringify(message.error)}`)) continue;
        const parsed = initializeResult.safeParse(message.result);
        if (!j.check(ex, parsed.success, `the InitializeResult lacks ${parsed.success ? '' : issuesOf(parsed.error)}`) || !parsed.success) continue;
        j.observe('server', { serverInfo: parsed.data.serverInfo, capabilities: Object.keys(parsed.data.capabilities) });
      }
    },
  },
  async provoke(ctx: CheckContext) {
    await initializeOnce(ctx, MCP_REVISION, 'initialize');
  },
});

export const versionEcho = rule({
  id: 'mcp.lifecycle.version-echo',
  title: 'initialize asking for 2025-03-26 is answered with protocolVersion 2025-03-26',
  level: 'required',
  spec: {
    section: 'Lifecycle > Initialization > Version Negotiation',
    quote: 'If the server supports the requested protocol version, it MUST respond with the same version.',
    url: SPEC_URL.lifecycle,
  },
  async check(ctx: CheckContext) {
    const { reply, message } = await initializeOnce(ctx, MCP_REVISION, `initialize asking for ${MCP_REVISION}`);
    ctx.check(reply.res.status === 200, `initialize was answered HTTP ${reply.res.status}, expected 200`);
    const version = versionOf(message);
    ctx.check(version === MCP_REVISION, `initialize asking for ${MCP_REVISION} was answered with protocolVersion ${JSON.stringify(version)}; /mcp follows ${MCP_REVISION}, so it must echo it`);
  },
});

/** Dated like a revision, so a server that compares dates sees it, but older than any MCP revision. */
const UNKNOWN_VERSION = '1999-12-31';

export const versionUnknown = rule({
  id: 'mcp.lifecycle.version-unknown',
  title: 'initialize asking for an unknown version is answered with another version the server supports',
  level: 'required',
  spec: {
    section: 'Lifecycle > Initialization > Version Negotiation; Error Handling',
    quote: 'Otherwise, the server MUST respond with another protocol version it supports. … Protocol version mismatch',
    url: SPEC_URL.lifecycle,
  },
  async check(ctx: CheckContext) {
    const { reply, message } = await initializeOnce(ctx, UNKNOWN_VERSION, `initialize asking for ${UNKNOWN_VERSION}`);
    if (!message) ctx.fail(`initialize asking for ${UNKNOWN_VERSION} was answered HTTP ${reply.res.status} without a response carrying its id`);
    const error = errorOf(message);
    if (error) {
      // The lifecycle's Error Handling example answers a mismatch with an error; the text asks for a result. Both are recorded.
      ctx.expect(Number.isInteger(error.code), `the version mismatch error has no integer code: ${JSON.stringify(error)}`);
      ctx.observe('unknown protocolVersion answered with', { error }, 'Version Negotiation asks for a result with another version; Error Handling shows a -32602 error');
      return;
    }
    const version = versionOf(message);
    if (version === undefined) ctx.fail('the answer to initialize has no result.protocolVersion');
    ctx.expect(version !== UNKNOWN_VERSION, `initialize asking for ${UNKNOWN_VERSION} (no such revision) was answered with that same version, so the server claims a version that does not exist`);
    ctx.observe('unknown protocolVersion answered with', version);
    // Whether the offered version is then echoed is mcp.lifecycle.version-echo's to judge; here it is recorded.
    const again = await initializeOnce(ctx, version, `initialize asking for the offered ${version}`);
    ctx.observe(`initialize asking for the offered ${version} answered with`, versionOf(again.message) ?? null);
  },
});
