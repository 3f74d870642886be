/**
 * Sensitive values are redacted before any response leaves the gateway: no /v8 response of the run
 * may carry one of the run's own secrets (a token echoed in a 401 detail, say). /mcp's answers are
 * mcp.redaction.run-secrets' (the same judgement): an MCP server is often certified alone, with only
 * an mcp credential, and one echo is one rule's failure, never two.
 */
import { judgeEchoedSecrets } from '../../../traffic/secrets.ts';
import { section } from '../../../rule/index.ts';
import { MISSIONS } from '../support/missions.ts';
import { resolveRole, roleName } from '../../../profile/roles.ts';

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:primary'] } });

export const runSecrets = rule({
  id: 'v8.redaction.run-secrets',
  title: "No /v8 response of the run carries one of the run's own secrets (its tokens), judged over every exchange of the run",
  level: 'required',
  judgesTheRun: true,
  spec: {
    section: 'What the service does; Errors',
    quote: 'Sensitive values are redacted before any response leaves the gateway. … Sensitive fields are redacted.',
  },
  judgement: {
    record: 'answered /v8 requests (the run\'s exchanges, or a recording\'s)',
    judge: (j) => judgeEchoedSecrets(j, ['v8']),
  },
  async provoke(ctx) {
    // Its own provocations, so the rule judges something even when run alone: errors are where a
    // gateway most often echoes what it was sent. The judgement reads every exchange of the run.
    const primary = ctx.primary('v8');
    await ctx.http.send({ method: 'POST', path: MISSIONS, credential: primary, rawBody: '{"goalSpec":', headers: { 'idempotency-key': `apicert-run-secrets-${Date.now()}` }, label: 'malformed create (may echo the request)' });
    await ctx.http.send({ method: 'GET', path: `${MISSIONS}/not-a-uuid`, credential: primary, label: 'read a malformed runId' });
    const expired = ctx.profile.credentials.find((c) => c.surfaces.includes('v8') && c.expired);
    if (expired) await ctx.http.send({ method: 'GET', path: `${MISSIONS}/not-a-uuid`, credential: expired, label: 'read with the expired token' });
    // A 403 for a missing scope answers a token the gateway authenticated: where a profile has one without missions:read, its refusal may echo it.
    const lacking = resolveRole(ctx.profile, roleName('v8', 'lacking', ['missions:read'])).credential;
    if (lacking) await ctx.http.send({ method: 'GET', path: `${MISSIONS}/00000000-0000-4000-8000-000000000000`, credential: lacking, label: 'read without missions:read' });
  },
});
