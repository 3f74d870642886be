/**
 * Authentication (the /v8 seed) on /mcp: "POST | /mcp | see Authentication", and there "A missing or
 * expired token gives 401". Only /mcp's scopes are "not shown". MCP 2025-03-26 makes authorization
 * optional, so a deployment may serve /mcp without any token check; one that answers a missing
 * token 401, or a token the profile marks expired 401, runs the gateway's bearer authentication
 * there, and is then held to the whole sentence: a missing token and an expired one both get 401.
 */
import { type CheckContext, credentialIn, type Exchange, type Judge, type Prerequisite } from '../../../rule/index.ts';
import type { Credential } from '../../../profile/schema.ts';
import { SESSION_HEADER } from '../../../contract/mcp/transport.ts';
import { limitAwareSection, stopIfLimited } from '../support/limiter.ts';
import { resolveRole, roleName } from '../../../profile/roles.ts';
import { SessionHistory } from '../support/session-history.ts';
import { caller, deleteSession, newRequestId, notification, postMcp, request, sendInitialize } from '../support/session.ts';
import { foreignOriginOrHost, mcpPosts, openingInitialize, wellFormedCalls } from '../support/traffic.ts';

// No static need for an expired credential: a server that asks for no token is not-applicable whatever the profile holds.
const rule = limitAwareSection({ surface: 'mcp', document: 'v8-integration-gateway.md' });

const EXPIRED = roleName('mcp', 'expired');
const NO_EXPIRED: Prerequisite = { need: 'credential', role: EXPIRED, remedy: 'the profile has no expired credential for mcp: add one with "expired: true" (surfaces: [mcp])' };

/** The profile's expired credentials for mcp: which token is expired is not in the traffic. */
function expiredCredentials(j: Pick<Judge, 'profile'>): Credential[] {
  return (j.profile?.credentials ?? []).filter((c) => c.surfaces.includes('mcp') && c.expired);
}

/**
 * What showed that /mcp runs the gateway's bearer authentication: a POST it answered 401 without a
 * token, else one carrying a token the profile marks expired. A 401 is the authentication's own
 * refusal, whatever else the request held; a request from a foreign site is left out (its Origin may be why).
 */
function bearerShown(j: Judge, posts: readonly Exchange[]): 'missing' | 'expired' | undefined {
  const refused = posts.filter((ex) => ex.status === 401 && !foreignOriginOrHost(ex));
  if (refused.some((ex) => ex.requestHeaders.authorization === undefined)) return 'missing';
  const expired = expiredCredentials(j);
  return refused.some((ex) => ex.requestHeaders.authorization !== undefined && credentialIn(ex, expired) !== undefined) ? 'expired' : undefined;
}

const SHOWN: Record<'missing' | 'expired', string> = {
  missing: 'this endpoint answers a missing token 401',
  expired: 'this endpoint answers an expired token 401',
};

/** Where a POST of an open session was sent: in the session id the server issued, or, on a server that issues none, after an initialize it accepted. */
function whereInSession(ex: Exchange): string {
  return ex.requestHeaders[SESSION_HEADER] !== undefined ? 'in a session the server opened' : 'after an initialize the server accepted (it issues no session id)';
}

export const expired401 = rule({
  id: 'mcp.auth.expired-401',
  title: 'Where /mcp runs the gateway\'s bearer authentication (it answers a missing or an expired token 401), a missing and an expired token both get 401, at initialize and in a session opened with a valid one',
  level: 'required',
  spec: {
    section: 'Authentication',
    quote: 'A missing or expired token gives `401`.',
  },
  judgement: {
    record:
      'a POST to the MCP endpoint carrying no token, or a credential the profile marks expired, and no other cause of refusal (an opening initialize, or well-formed JSON-RPC in a session the server opened), on an endpoint that answered a POST without a token, or with an expired one, 401',
    none: 'the MCP endpoint answered no POST without a token, nor with an expired one, with 401, so it shows no bearer authentication (MCP 2025-03-26 makes authorization optional; mcp.auth.tokens records what it answered)',
    judge(j) {
      const posts = mcpPosts(j);
      const shown = bearerShown(j, posts);
      if (shown === undefined) return;
      const sessions = new SessionHistory(j);
      // No sentence orders authentication before a session or framing check: only a request nothing else may refuse is judged.
      const inSession = (ex: Exchange) => wellFormedCalls(ex) !== undefined && sessions.inOpenSession(ex);
      const judged = posts.filter((ex) => ex.status !== undefined && !foreignOriginOrHost(ex));
      // The sentence holds on every request, not at initialize only: a session id is no credential (a gateway that "authenticates the handshake and trusts the session id" serves anyone holding it).
      for (const ex of judged) {
        if (ex.requestHeaders.authorization !== undefined) continue;
        const opening = openingInitialize(ex) !== undefined;
        if (!opening && !inSession(ex)) continue;
        j.check(ex, ex.status === 401, `a POST without a token${opening ? ' (an initialize)' : ` ${whereInSession(ex)}`} was answered HTTP ${ex.status}, expected 401: ${SHOWN[shown]}, so it runs the gateway's bearer authentication, and "a missing or expired token gives 401" on every request`);
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
        j.check(ex, ex.status === 401, `a POST with an expired token${opening ? '' : ` ${whereInSession(ex)}`} was answered HTTP ${ex.status}, expected 401: ${SHOWN[shown]}, so it takes the gateway's bearer tokens, and "a missing or expired token gives 401"`);
      }
    },
  },
  async provoke(ctx: CheckContext) {
    // Either refusal shows the bearer authentication the rule holds to the whole sentence; neither, and there is none to judge.
    const bare = await sendInitialize(ctx, { credential: null, label: 'initialize without a token' });
    stopIfLimited(ctx, bare.res, 'initialize without a token');
    const expired = resolveRole(ctx.profile, EXPIRED).credential;
    let expiredStatus: number | undefined;
    if (expired) {
      const reply = await sendInitialize(ctx, { credential: expired, label: 'initialize with an expired token' });
      stopIfLimited(ctx, reply.res, 'initialize with an expired token');
      expiredStatus = reply.res.status;
      await deleteSession(ctx, reply.sessionId, expired);
    }
    if (bare.res.status !== 401 && expiredStatus !== 401) return;
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
