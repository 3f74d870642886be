/** Endpoints: POST /v8/intents, which one overview lists and another omits. */
import { type CheckContext, mediaType, pathOnly, section } from '../../../rule/index.ts';
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
  judgement: {
    record: 'a POST /v8/intents',
    judge(j) {
      for (const ex of j.exchanges) {
        if (ex.method !== 'POST' || pathOnly(ex) !== PATHS.intents || ex.status === undefined) continue;
        j.check(ex, ex.status >= 100 && ex.status < 600, `POST /v8/intents gave no HTTP status`);
        const reading = ex.status === 404 || ex.status === 405 ? 'absent (the 14-operation overview)' : 'present (the 15-operation overview)';
        j.observe('POST /v8/intents', { status: ex.status, contentType: mediaType(ex.responseHeaders), reading });
      }
    },
  },
  async provoke(ctx: CheckContext) {
    // An empty body asks for nothing, so a deployment that has the operation has nothing to act on.
    await ctx.http.send({ method: 'POST', path: PATHS.intents, credential: ctx.primary('v8'), headers: { 'idempotency-key': newKey() }, json: {}, label: 'POST /v8/intents with an empty body' });
  },
});
