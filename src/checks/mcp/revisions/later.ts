/**
 * Versioning (the /v8 seed): /mcp follows revision 2025-03-26. What later revisions changed
 * (the MCP-Protocol-Version header of 2025-06-18, batching removed in 2025-06-18) is recorded only.
 */
import { type CheckContext, section } from '../../../rule/index.ts';
import { MCP_REVISION } from '../../../contract/mcp/lifecycle.ts';
import { PROTOCOL_VERSION_HEADER } from '../../../contract/mcp/transport.ts';
import { initializeOnce, isObject, newRequestId, postMcp, request, responses, withSession } from '../support/session.ts';

const rule = section({ surface: 'mcp', document: 'v8-integration-gateway.md', needs: { credentials: ['mcp:primary'] } });

const OWN_VERSIONING = '`/mcp` follows the MCP 2025-03-26 Streamable HTTP protocol and has its own versioning, outside `/v8/`.';

export const protocolVersionHeader = rule({
  id: 'mcp.revisions.protocol-version-header',
  title: 'Requests without MCP-Protocol-Version are served in a 2025-03-26 session; what the header changes is recorded',
  level: 'observation',
  spec: { section: 'Versioning', quote: OWN_VERSIONING },
  async check(ctx: CheckContext) {
    await withSession(ctx, async (session) => {
      const plain = await postMcp(ctx, request(newRequestId('ping'), 'ping'), { session, label: 'ping without MCP-Protocol-Version' });
      // Revision 2025-03-26 has no such header, so a server speaking it cannot require one.
      ctx.expect(plain.res.status === 200 && responses(plain).length === 1, `a ping without MCP-Protocol-Version was answered HTTP ${plain.res.status}; a ${MCP_REVISION} client never sends that header`);
      for (const value of [MCP_REVISION, 'apicert-unsupported']) {
        const reply = await postMcp(ctx, request(newRequestId('ping'), 'ping'), { session, headers: { [PROTOCOL_VERSION_HEADER]: value }, label: `ping with MCP-Protocol-Version: ${value}` });
        ctx.observe(`ping with MCP-Protocol-Version: ${value}`, reply.res.status, value === MCP_REVISION ? undefined : 'revision 2025-06-18 answers an unsupported value with 400');
      }
    });
  },
});

export const batchingLater = rule({
  id: 'mcp.revisions.batching',
  title: 'Which version a client asking for 2025-06-18 gets, and whether batches are still accepted then (recorded, not gated)',
  level: 'observation',
  spec: { section: 'Versioning', quote: OWN_VERSIONING },
  async check(ctx: CheckContext) {
    const { reply, message } = await initializeOnce(ctx, '2025-06-18', 'initialize asking for 2025-06-18');
    ctx.expect(reply.res.status === 200 && message !== undefined, `initialize asking for 2025-06-18 was answered HTTP ${reply.res.status} without a response`);
    const offered = isObject(message?.result) && typeof message.result.protocolVersion === 'string' ? message.result.protocolVersion : null;
    ctx.observe('protocolVersion offered to a 2025-06-18 client', offered);
    if (offered === null || offered <= MCP_REVISION) return;
    await withSession(
      ctx,
      async (session) => {
        const batch = await postMcp(ctx, [request(newRequestId('ping'), 'ping'), request(newRequestId('ping'), 'ping')], {
          session,
          headers: { [PROTOCOL_VERSION_HEADER]: offered },
          label: `batch in a ${offered} session`,
        });
        ctx.observe(`batch of two pings in a ${offered} session`, { status: batch.res.status, responses: responses(batch).length }, 'revision 2025-06-18 removed batching');
      },
      { protocolVersion: offered },
    );
  },
});
