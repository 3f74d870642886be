/** The reference client's /v1/chat path, whose relation to /v1/execute the spec leaves open. */
import { section } from '../../../rule/index.ts';
import { ACCEPTED } from '../../../contract/v1/runs.ts';
import { eventKind, postTurn, problemCode, turnBody } from '../support/fabric.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'] } });

export const chatPath = rule({
  id: 'v1.chat.relation',
  title: 'Whether the target serves turn bodies on /v1/chat, and how that compares with /v1/execute',
  level: 'observation',
  activeOnly: 'compares /v1/chat with /v1/execute on the same body, which apicert sends to both',
  spec: {
    section: 'Resources > Task request body',
    quote: 'The reference client posts the turn body to a separate `/v1/chat` path. How that path relates to `/v1/execute` is unreconciled.',
  },
  async check(ctx) {
    const chat = await postTurn(ctx, turnBody(ctx), { path: '/v1/chat', label: 'turn body on /v1/chat' });
    const execute = await postTurn(ctx, turnBody(ctx), { label: 'the same kind of turn body on /v1/execute' });
    ctx.expect(chat.res.status > 0 && execute.res.status > 0, 'both paths answered');
    const describe = (a: typeof chat) => ({
      status: a.res.status,
      contentType: a.res.contentType,
      code: problemCode(a.res) ?? null,
      kinds: a.events.map(eventKind),
      accepted: a.events.some((e) => eventKind(e) === ACCEPTED),
    });
    const c = describe(chat);
    const e = describe(execute);
    ctx.observe('/v1/chat', c);
    ctx.observe('/v1/execute', e);
    ctx.observe('/v1/chat behaves like turn-mode /v1/execute', c.status === e.status && c.contentType.split(';')[0] === e.contentType.split(';')[0] && JSON.stringify(c.kinds) === JSON.stringify(e.kinds));
  },
});
