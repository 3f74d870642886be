/** Base Protocol > Batching, as carried by Streamable HTTP POST bodies (revision 2025-03-26). */
import fc from 'fast-check';
import { type CheckContext, section } from '../../../rule/index.ts';
import { newRequestId, notification, postMcp, request, responses, SPEC_URL, withSession } from '../support/session.ts';

const rule = section({ surface: 'mcp', document: 'mcp-2025-03-26', needs: { credentials: ['mcp:primary'] } });

const MUST_RECEIVE_BATCHES = 'MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches.';

function cancelled(): Record<string, unknown> {
  return notification('notifications/cancelled', { requestId: newRequestId('never-sent'), reason: 'apicert batch probe' });
}

/** One element of a generated batch: a request (answered) or a notification (not answered). */
type Element = 'ping' | 'tools/list' | 'notification';

const batches: fc.Arbitrary<Element[]> = fc
  .array(fc.constantFrom<Element>('ping', 'tools/list', 'notification'), { minLength: 1, maxLength: 6 })
  .filter((b) => b.some((e) => e !== 'notification'));

export const batchRequests = rule({
  id: 'mcp.batch.requests',
  title: 'A batch gets exactly one response per request it carries, with their ids, and none for its notifications',
  level: 'required',
  spec: {
    section: 'Base Protocol > Batching; Transports > Sending Messages to the Server',
    quote: `${MUST_RECEIVE_BATCHES} … An array batching one or more requests and/or notifications`,
    url: SPEC_URL.base,
  },
  async check(ctx: CheckContext) {
    await withSession(ctx, async (session) => {
      const framings = new Set<string>();
      await ctx.property(
        batches,
        async (shape) => {
          const ids: string[] = [];
          const body = shape.map((e) => {
            if (e === 'notification') return cancelled();
            const id = newRequestId('batch');
            ids.push(id);
            return request(id, e);
          });
          const reply = await postMcp(ctx, body, { session, label: `batch [${shape.join(', ')}]` });
          framings.add(reply.kind);
          const got = responses(reply).map((m) => m.id);
          if (reply.res.status < 200 || reply.res.status >= 300) ctx.fail(`the batch [${shape.join(', ')}] was answered HTTP ${reply.res.status}, expected a 2xx`);
          const missing = ids.filter((id) => got.filter((g) => g === id).length !== 1);
          const extra = got.filter((g) => typeof g !== 'string' || !ids.includes(g));
          if (missing.length > 0 || extra.length > 0) {
            ctx.fail(`the batch [${shape.join(', ')}] was answered with responses ${JSON.stringify(got)}, expected exactly one for each of ${JSON.stringify(ids)}`);
          }
        },
        { numRuns: 25, examples: [['ping', 'tools/list'], ['ping', 'notification'], ['notification', 'tools/list', 'notification', 'ping']] },
      );
      ctx.observe('batch answers framed as', [...framings]);
    });
  },
});

export const batchNotifications202 = rule({
  id: 'mcp.batch.notifications-202',
  title: 'A batch carrying only notifications is answered 202 Accepted with no body',
  level: 'required',
  spec: {
    section: 'Base Protocol > Batching; Transports > Sending Messages to the Server',
    quote: `${MUST_RECEIVE_BATCHES} … If the input consists solely of (any number of) JSON-RPC responses or notifications: If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body.`,
    url: SPEC_URL.transports,
  },
  async check(ctx: CheckContext) {
    await withSession(ctx, async (session) => {
      const reply = await postMcp(ctx, [cancelled(), cancelled()], { session, label: 'batch of two notifications' });
      ctx.expect(reply.res.status === 202, `a batch of two notifications was answered HTTP ${reply.res.status}, expected 202 Accepted`);
      ctx.expect(reply.res.text.length === 0, `a batch of two notifications was answered with a body (${reply.res.text.length} characters), expected none`);
    });
  },
});
