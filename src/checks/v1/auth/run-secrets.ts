/** Keys belong to the trusted server runtime only: no /v1 response of the run may hand one back. */
import { judgeEchoedSecrets } from '../../../traffic/secrets.ts';
import { section } from '../../../rule/index.ts';
import { EXECUTE, primaryKey } from '../support/fabric.ts';

const rule = section({ surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'] } });

export const runSecrets = rule({
  id: 'v1.auth.run-secrets',
  title: "No /v1 response of the run carries one of the run's own secrets (API keys, signing secrets after creation), judged over every exchange of the run",
  level: 'required',
  judgesTheRun: true,
  spec: {
    section: 'Authentication',
    quote: 'Webhook secrets, API keys and OAuth tokens belong to the trusted server runtime only. Browsers, mobile apps and model prompts must not hold them.',
  },
  judgement: {
    record: "answered /v1 requests (the run's exchanges, or a recording's)",
    judge: (j) => judgeEchoedSecrets(j, ['v1']),
  },
  async provoke(ctx) {
    // Its own provocations, so the rule judges something even when run alone: errors are where a
    // service most often echoes what it was sent. The judgement reads every exchange of the run.
    const key = primaryKey(ctx);
    await ctx.http.send({ method: 'POST', path: EXECUTE, credential: key, rawBody: '{"mode":', label: 'malformed execute (may echo the request)' });
    const expired = ctx.profile.credentials.find((c) => c.surfaces.includes('v1') && c.expired);
    if (expired) await ctx.http.send({ method: 'GET', path: '/v1/usage', credential: expired, label: 'usage with the expired key' });
  },
});
