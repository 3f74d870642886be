/**
 * Authentication (the /v8 seed) on /mcp: "POST | /mcp | see Authentication", and there "A missing or
 * expired token gives 401". Only /mcp's scopes are "not shown". MCP 2025-03-26 makes authorization
 * optional, so a deployment may serve /mcp without a token; one that answers a missing token 401
 * runs the gateway's bearer authentication there, and an expired token is then refused the same way.
 */
import { type CheckContext, type Exchange, type Prerequisite } from '../../../rule/index.ts';
import { limitAwareSection, stopIfLimited } from '../support/limiter.ts';
import { resolveRole, roleName } from '../../../profile/roles.ts';
import { SessionHistory } from '../support/session-history.ts';
import { deleteSession, sendInitialize } from '../support/session.ts';
import { foreignOriginOrHost, mcpPosts, openingInitialize, wellFormedCalls } from '../support/traffic.ts';

// No static need for an expired credential: a server that asks for no token is not-applicable whatever the profile holds.
const rule = limitAwareSection({ surface: 'mcp', document: 'v8-integration-gateway.md' });

const EXPIRED = roleName('mcp', 'expired');
const NO_EXPIRED: Prerequisite = { need: 'credential', role: EXPIRED, remedy: 'the profile has no expired credential for mcp: add one with "expired: true" (surfaces: [mcp])' };

/** A POST the endpoint answered 401 without a token: it shows /mcp takes the gateway's bearer tokens. */
function refusedWithoutToken(ex: Exchange): boolean {
  return ex.status === 401 && ex.requestHeaders.authorization === undefined && !foreignOriginOrHost(ex);
}

export const expired401 = rule({
  id: 'mcp.auth.expired-401',
  title: 'Where /mcp answers a missing token 401 (the gateway\'s bearer authentication), it answers an expired token 401 too',
  level: 'required',
  spec: {
    section: 'Authentication',
    quote: 'A missing or expired token gives `401`.',
  },
  judgement: {
    record:
      'a POST to the MCP endpoint carrying a credential the profile marks expired and no other cause of refusal (an opening initialize, or well-formed JSON-RPC in a session the server opened), on an endpoint that answered a POST without a token 401',
    none: 'the MCP endpoint answered no POST without a token with 401, so it shows no bearer authentication an expired token is held to (MCP 2025-03-26 makes authorization optional; mcp.auth.tokens records what it answered)',
    judge(j) {
      const posts = mcpPosts(j);
      if (!posts.some(refusedWithoutToken)) return;
      // Which token is expired is not in the traffic: the profile says it (`expired: true`).
      if (j.profile && !resolveRole(j.profile, EXPIRED).credential) j.untestable(NO_EXPIRED);
      const sessions = new SessionHistory(j);
      for (const ex of posts) {
        if (ex.status === undefined || ex.requestHeaders.authorization === undefined || foreignOriginOrHost(ex)) continue;
        if (!j.credentialOf(ex)?.expired) continue;
        // No sentence orders authentication before a session or framing check: only a request nothing else may refuse is judged.
        if (openingInitialize(ex) === undefined && !(wellFormedCalls(ex) !== undefined && sessions.inOpenSession(ex))) continue;
        j.check(ex, ex.status === 401, `a POST with an expired token was answered HTTP ${ex.status}, expected 401: this endpoint answers a missing token 401, so it takes the gateway's bearer tokens, and "a missing or expired token gives 401"`);
      }
    },
  },
  async provoke(ctx: CheckContext) {
    // The missing-token answer decides whether the rule applies; the expired token is the case judged.
    const bare = await sendInitialize(ctx, { credential: null, label: 'initialize without a token' });
    stopIfLimited(ctx, bare.res, 'initialize without a token');
    if (bare.res.status !== 401) return;
    const expired = resolveRole(ctx.profile, EXPIRED).credential;
    if (!expired) ctx.untestable(NO_EXPIRED);
    const reply = await sendInitialize(ctx, { credential: expired, label: 'initialize with an expired token' });
    await deleteSession(ctx, reply.sessionId, expired);
  },
});
