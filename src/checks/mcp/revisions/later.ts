/**
 * Versioning (the /v8 seed): /mcp follows revision 2025-03-26. What later revisions changed
 * (the MCP-Protocol-Version header of 2025-06-18, batching removed in 2025-06-18) is recorded only.
 */
import type { CheckContext } from '../../../rule/index.ts';
import { limitAwareSection } from '../support/limiter.ts';
import { MCP_REVISION } from '../../../contract/mcp/lifecycle.ts';
import { PROTOCOL_VERSION_HEADER, SESSION_HEADER } from '../../../contract/mcp/transport.ts';
import { requestJson } from '../../../traffic/read.ts';
import { initializeOnce, isObject, newRequestId, postMcp, request, withSession } from '../support/session.ts';
import { askedVersion, SessionHistory } from '../support/session-history.ts';
import { answeredResponses, isRequestMessage, ordinaryMcpPosts, sentMessages, wellFormedCalls } from '../support/traffic.ts';

const rule = limitAwareSection({ surface: 'mcp', document: 'v8-integration-gateway.md', needs: { credentials: ['mcp:primary'] } });

const OWN_VERSIONING = '`/mcp` follows the MCP 2025-03-26 Streamable HTTP protocol and has its own versioning, outside `/v8/`.';

/** The revision MCP-Protocol-Version came with. */
const LATER_REVISION = '2025-06-18';

/** The longest string id a ping is judged with: longer than the ids clients send (UUIDs, counters), short of the 10,000-character ids the catalogue probes limits with. */
const ORDINARY_ID_LENGTH = 256;

function ordinaryId(id: unknown): boolean {
  return typeof id === 'string' ? id.length <= ORDINARY_ID_LENGTH : Number.isSafeInteger(id);
}

export const protocolVersionHeader = rule({
  id: 'mcp.revisions.protocol-version-header',
  title: 'Requests without MCP-Protocol-Version are served in a 2025-03-26 session; what the header changes is recorded',
  level: 'observation',
  spec: { section: 'Versioning', quote: OWN_VERSIONING },
  judgement: {
    record: 'a ping with an ordinary id (an integer, or a string of at most 256 characters) POSTed by an authorised client in an open 2025-03-26 session it had initialized',
    judge(j) {
      const sessions = new SessionHistory(j);
      for (const ex of ordinaryMcpPosts(j)) {
        const calls = wellFormedCalls(ex);
        const ping = calls?.length === 1 && calls[0]!.method === 'ping' && isRequestMessage(calls[0]!) && !Array.isArray(requestJson(ex)) ? calls[0]! : undefined;
        // Only a ping the server has no other reason to refuse shows what the header's absence does: one whose id is of
        // the length clients use (no sentence bounds an id's length, nor forbids a server to limit it).
        if (!ping || !ordinaryId(ping.id) || ex.status === undefined) continue;
        const header = ex.requestHeaders[PROTOCOL_VERSION_HEADER];
        if (header !== undefined) {
          // Whatever the session, what the header does is recorded only.
          if (sessions.inOpenSession(ex)) j.observe(`ping with MCP-Protocol-Version: ${header}`, ex.status, header === MCP_REVISION ? undefined : `revision ${LATER_REVISION} answers an unsupported value with 400`);
          continue;
        }
        if (!sessions.inOperatingSession(ex)) continue;
        const answered = answeredResponses(j, ex, [ping.id]);
        if (!answered) continue;
        // Revision 2025-03-26 has no such header, so a server speaking it cannot require one.
        // Its one response; whether it carries the ping's id is mcp.jsonrpc.id-echoed's to judge.
        j.check(ex, ex.status === 200 && answered.length === 1, `a ping without MCP-Protocol-Version in an open ${MCP_REVISION} session was answered HTTP ${ex.status}${ex.status === 200 ? ' without its one response' : ''}; a ${MCP_REVISION} client never sends that header, so its pings are served without it (recorded whatever the answer was about)`);
      }
    },
  },
  async provoke(ctx: CheckContext) {
    await withSession(ctx, async (session) => {
      await postMcp(ctx, request(newRequestId('ping'), 'ping'), { session, label: 'ping without MCP-Protocol-Version' });
      for (const value of [MCP_REVISION, 'apicert-unsupported']) {
        await postMcp(ctx, request(newRequestId('ping'), 'ping'), { session, headers: { [PROTOCOL_VERSION_HEADER]: value }, label: `ping with MCP-Protocol-Version: ${value}` });
      }
    });
  },
});

function offeredVersion(message: Record<string, unknown> | undefined): string | undefined {
  return isObject(message?.result) && typeof message.result.protocolVersion === 'string' ? message.result.protocolVersion : undefined;
}

export const batchingLater = rule({
  id: 'mcp.revisions.batching',
  title: 'Which version a client asking for 2025-06-18 gets, and whether batches are still accepted then (recorded, not gated)',
  level: 'observation',
  spec: { section: 'Versioning', quote: OWN_VERSIONING },
  judgement: {
    record: `an initialize asking for ${LATER_REVISION}, POSTed to the MCP endpoint by an authorised client`,
    judge(j) {
      for (const ex of ordinaryMcpPosts(j)) {
        if (ex.status === undefined) continue;
        const asked = ex.requestHeaders[SESSION_HEADER] === undefined ? askedVersion(ex) : undefined;
        if (asked === LATER_REVISION) {
          const id = (wellFormedCalls(ex) ?? []).find((m) => m.method === 'initialize')?.id;
          const answered = answeredResponses(j, ex, id === undefined ? undefined : [id]);
          if (!answered) continue;
          const message = answered.find((m) => id !== undefined && m.id === id);
          j.check(ex, ex.status === 200 && message !== undefined, `initialize asking for ${LATER_REVISION} was answered HTTP ${ex.status} without a response`);
          j.observe(`protocolVersion offered to a ${LATER_REVISION} client`, offeredVersion(message) ?? null);
          continue;
        }
        const header = ex.requestHeaders[PROTOCOL_VERSION_HEADER];
        const batch = requestJson(ex);
        if (header !== undefined && header > MCP_REVISION && Array.isArray(batch) && batch.length > 0) {
          // A count read off a stream its reader stopped before each request's response is no count of the answer.
          const answered = answeredResponses(j, ex, (sentMessages(ex) ?? []).filter(isRequestMessage).map((m) => m.id));
          if (answered) j.observe(`batch of ${batch.length} in a ${header} session`, { status: ex.status, responses: answered.length }, `revision ${LATER_REVISION} removed batching`);
        }
      }
    },
  },
  async provoke(ctx: CheckContext) {
    const { message } = await initializeOnce(ctx, LATER_REVISION, `initialize asking for ${LATER_REVISION}`);
    const offered = offeredVersion(message);
    if (offered === undefined || offered <= MCP_REVISION) return;
    await withSession(
      ctx,
      async (session) => {
        await postMcp(ctx, [request(newRequestId('ping'), 'ping'), request(newRequestId('ping'), 'ping')], {
          session,
          headers: { [PROTOCOL_VERSION_HEADER]: offered },
          label: `batch in a ${offered} session`,
        });
      },
      { protocolVersion: offered },
    );
  },
});
