/** Authentication (the /v8 seed): /mcp's scopes are not shown, so what it does with tokens is recorded. */
import { type CheckContext, section } from '../../../rule/index.ts';
import type { Credential } from '../../../profile/schema.ts';
import { deleteSession, sendInitialize } from '../support/session.ts';

const rule = section({ surface: 'mcp', document: 'v8-integration-gateway.md' });

export const tokenObservation = rule({
  id: 'mcp.auth.tokens',
  title: 'What /mcp answers to initialize without a token and with an expired one (recorded, not gated)',
  level: 'observation',
  spec: {
    section: 'Authentication',
    quote: 'Scopes required for cancel, `/v8/intents` and `/mcp`: not shown.',
  },
  async check(ctx: CheckContext) {
    const cases: Array<{ what: string; credential: Credential | null }> = [{ what: 'initialize without a token', credential: null }];
    const expired = ctx.profile.credentials.find((c) => c.surfaces.includes('mcp') && c.expired);
    if (expired) cases.push({ what: 'initialize with an expired token', credential: expired });
    else ctx.observe('initialize with an expired token', 'not tried', 'the profile has no expired mcp credential (expired: true)');
    for (const c of cases) {
      const reply = await sendInitialize(ctx, { credential: c.credential, label: c.what });
      // Whatever the policy, an unauthenticated call is never a reason for a server error.
      ctx.check(reply.res.status < 500, `${c.what} was answered HTTP ${reply.res.status}, a server error`);
      ctx.observe(c.what, { status: reply.res.status, wwwAuthenticate: reply.res.headers['www-authenticate'] ?? null, sessionIssued: reply.sessionId !== undefined });
      if (c.credential) await deleteSession(ctx, reply.sessionId, c.credential);
    }
  },
});
