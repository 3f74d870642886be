/** Endpoints: POST /v8/intents, which one overview lists and another omits. */
import { type CheckContext, section } from '../../../rule/index.ts';
import { newKey } from '../support/missions.ts';
import { PATHS } from '../support/read.ts';

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:primary'] } });

export const intentsExistence = rule({
  id: 'v8.intents.existence',
  title: 'Whether POST /v8/intents exists, and how it answers an empty body',
  level: 'observation',
  spec: {
    section: 'Endpoints',
    quote: 'One overview page lists 15 operations and includes `POST /v8/intents` among the mutating operations. Another lists 14 and omits it. Path, payload and response of `POST /v8/intents`: not shown.',
  },
  async check(ctx: CheckContext) {
    // An empty body asks for nothing, so a deployment that has the operation has nothing to act on.
    const res = await ctx.http.send({ method: 'POST', path: PATHS.intents, credential: ctx.primary('v8'), headers: { 'idempotency-key': newKey() }, json: {}, label: 'POST /v8/intents with an empty body' });
    ctx.expect(res.status >= 100 && res.status < 600, `POST /v8/intents gave no HTTP status`);
    const reading = res.status === 404 || res.status === 405 ? 'absent (the 14-operation overview)' : 'present (the 15-operation overview)';
    ctx.observe('POST /v8/intents', { status: res.status, contentType: res.contentType, reading });
  },
});
