/**
 * Authentication (the /v8 seed) on /mcp: "POST | /mcp | see Authentication", and there "A missing or
 * expired token gives 401". Only /mcp's scopes are "not shown". MCP 2025-03-26 makes authorization
 * optional, so a deployment may serve /mcp without a token; one that answers a missing token 401
 * runs the gateway's bearer authentication there, and an expired token is then refused the same way.
 */
import { type CheckContext, type Exchange, type Prerequisite } from '../../../rule/index.ts';
import type { Credential } from '../../../profile/schema.ts';
import { limitAwareSection, stopIfLimited } from '../support/limiter.ts';
import { resolveRole, roleName } from '../../../profile/roles.ts';
import { SessionHistory } from '../support/session-history.ts';
import { caller, deleteSession, newRequestId, notification, postMcp, request, sendInitialize } from '../support/session.ts';
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
  title: 'Where /mcp answers a missing token 401 (the gateway\'s bearer authentication), it answers an expired token 401 too, and a missing or expired token 401 in a session opened with a valid one',
  level: 'required',
  spec: {
    section: 'Authentication',
    quote: 'A missing or expired token gives `401`.',
  },
  judgement: {
    record:
      'a POST to the MCP endpoint carrying a credential the profile marks expired and no other cause of refusal (an opening initialize, or well-formed JSON-RPC in a session the server opened), or carrying no token in such a session, on an endpoint that answered a POST without a token 401',
    none: 'the MCP endpoint answered no POST without a token with 401, so it shows no bearer authentication an expired token is held to (MCP 2025-03-26 makes authorization optional; mcp.auth.tokens records what it answered)',
    judge(j) {
      const posts = mcpPosts(j);
      if (!posts.some(refusedWithoutToken)) return;
      const sessions = new SessionHistory(j);
      // No sentence orders authentication before a session or framing check: only a request nothing else may refuse is judged.
      const inSession = (ex: Exchange) => wellFormedCalls(ex) !== undefined && sessions.inOpenSession(ex);
      const judged = posts.filter((ex) => ex.status !== undefined && !foreignOriginOrHost(ex));
      // The sentence holds on every request, not at initialize only: a session id is no credential (a gateway that "authenticates the handshake and trusts the session id" serves anyone holding it).
      for (const ex of judged) {
        if (ex.requestHeaders.authorization !== undefined || !inSession(ex)) continue;
        j.check(ex, ex.status === 401, `a POST without a token in a session the server opened was answered HTTP ${ex.status}, expected 401: this endpoint answers a missing token 401, and "a missing or expired token gives 401" on every request, not only at initialize`);
      }
      // Which token is expired is not in the traffic: the profile says it (`expired: true`). A missing token's failure stands without it.
      if (j.profile && !resolveRole(j.profile, EXPIRED).credential) {
        if (j.failed) return;
        j.untestable(NO_EXPIRED);
      }
      for (const ex of judged) {
        if (ex.requestHeaders.authorization === undefined || !j.credentialOf(ex)?.expired) continue;
        const opening = openingInitialize(ex) !== undefined;
        if (!opening && !inSession(ex)) continue;
        j.check(ex, ex.status === 401, `a POST with an expired token${opening ? '' : ' in a session the server opened'} was answered HTTP ${ex.status}, expected 401: this endpoint answers a missing token 401, so it takes the gateway's bearer tokens, and "a missing or expired token gives 401"`);
      }
    },
  },
  async provoke(ctx: CheckContext) {
    // The missing-token answer decides whether the rule applies; the expired token is the case judged.
    const bare = await sendInitialize(ctx, { credential: null, label: 'initialize without a token' });
    stopIfLimited(ctx, bare.res, 'initialize without a token');
    if (bare.res.status !== 401) return;
    const expired = resolveRole(ctx.profile, EXPIRED).credential;
    if (expired) {
      const reply = await sendInitialize(ctx, { credential: expired, label: 'initialize with an expired token' });
      await deleteSession(ctx, reply.sessionId, expired);
    }
    // Without an expired credential the judgement is untestable, unless the ping without a token already fails it.
    await pingsInSession(ctx, expired);
  },
});

/**
 * A ping with the expired token and one without a token, in a session opened with the valid one: a
 * gateway that checks the token only where no live session id comes ("authenticate the handshake,
 * trust the session id") serves both. Best effort: a session that could not be opened leaves the
 * initialize cases above the rule's only ones.
 */
async function pingsInSession(ctx: CheckContext, expired: Credential | undefined): Promise<void> {
  const valid = caller(ctx);
  const opened = await sendInitialize(ctx, { label: 'initialize a session with the valid token' });
  if (opened.res.status !== 200) return;
  const session = opened.sessionId ?? null;
  try {
    await postMcp(ctx, notification('notifications/initialized'), { session, credential: valid, label: 'notifications/initialized with the valid token' });
    if (expired) await postMcp(ctx, request(newRequestId('ping'), 'ping'), { session, credential: expired, label: 'ping in the session with an expired token' });
    await postMcp(ctx, request(newRequestId('ping'), 'ping'), { session, credential: null, label: 'ping in the session without a token' });
  } finally {
    await deleteSession(ctx, opened.sessionId, valid);
  }
}
