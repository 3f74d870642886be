/** Authentication (the /v8 seed): /mcp's scopes are not shown, so what it does with tokens is recorded. */
import { type CheckContext, credentialIn, pathOnly } from '../../../rule/index.ts';
import { limitAwareSection } from '../support/limiter.ts';
import type { Credential } from '../../../profile/schema.ts';
import { SESSION_HEADER } from '../../../contract/mcp/transport.ts';
import { deleteSession, sendInitialize } from '../support/session.ts';
import { mcpEndpoint, sentMessages } from '../support/traffic.ts';

const rule = limitAwareSection({ surface: 'mcp', document: 'v8-integration-gateway.md' });

export const tokenObservation = rule({
  id: 'mcp.auth.tokens',
  title: 'What /mcp answers to initialize without a token and with an expired one (recorded, not gated)',
  level: 'observation',
  spec: {
    section: 'Authentication',
    quote: 'Scopes required for cancel, `/v8/intents` and `/mcp`: not shown.',
  },
  judgement: {
    record: 'an initialize POSTed to the MCP endpoint without an Authorization header, or (with the profile) with a credential it marks expired',
    judge(j) {
      // Which token is expired is the profile's to say; without one, only requests without a token are picked.
      const expired = (j.profile?.credentials ?? []).filter((c) => c.surfaces.includes('mcp') && c.expired);
      const endpoint = mcpEndpoint(j);
      for (const ex of j.exchanges) {
        if (ex.method !== 'POST' || pathOnly(ex) !== endpoint || ex.status === undefined) continue;
        if (!(sentMessages(ex) ?? []).some((m) => m.method === 'initialize')) continue;
        const what = ex.requestHeaders.authorization === undefined ? 'initialize without a token' : credentialIn(ex, expired) ? 'initialize with an expired token' : undefined;
        if (what === undefined) continue;
        // Whatever the policy, an unauthenticated call is never a reason for a server error.
        j.check(ex, ex.status < 500, `${what} was answered HTTP ${ex.status}, a server error`);
        j.observe(what, { status: ex.status, wwwAuthenticate: ex.responseHeaders['www-authenticate'] ?? null, sessionIssued: ex.responseHeaders[SESSION_HEADER] !== undefined });
      }
    },
  },
  async provoke(ctx: CheckContext) {
    const cases: Array<{ what: string; credential: Credential | null }> = [{ what: 'initialize without a token', credential: null }];
    const expired = ctx.profile.credentials.find((c) => c.surfaces.includes('mcp') && c.expired);
    if (expired) cases.push({ what: 'initialize with an expired token', credential: expired });
    else ctx.observe('initialize with an expired token', 'not tried', 'the profile has no expired mcp credential (expired: true)');
    for (const c of cases) {
      const reply = await sendInitialize(ctx, { credential: c.credential, label: c.what });
      if (c.credential) await deleteSession(ctx, reply.sessionId, c.credential);
    }
  },
});
