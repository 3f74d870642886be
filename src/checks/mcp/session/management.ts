/** Streamable HTTP > Session Management. */
import { randomBytes } from 'node:crypto';
import { type CheckContext, type Exchange, type Judge } from '../../../rule/index.ts';
import { admitted, limitAwareSection, stopIfLimited } from '../support/limiter.ts';
import { SESSION_HEADER, VISIBLE_ASCII } from '../../../contract/mcp/transport.ts';
import { mcpPosts, openingInitialize, ordinaryMcpPosts, ordinaryMcpRequests, redacted, sessionUnknown, wellFormedCalls } from '../support/traffic.ts';
import { askedVersion, SessionHistory } from '../support/session-history.ts';
import { MCP_REVISION } from '../../../contract/mcp/lifecycle.ts';
import { caller, closeSession, deleteSession, initializeOnce, mcpPath, newRequestId, openSession, postMcp, request, sendInitialize, SPEC_URL, withSession, type McpSession } from '../support/session.ts';

const rule = limitAwareSection({ surface: 'mcp', document: 'mcp-2025-03-26', needs: { credentials: ['mcp:primary'] } });

/**
 * A server that assigns no session id does not manage sessions (MCP: it "MAY assign" one), so the
 * session rules do not apply; unless the profile says this deployment requires sessions, when the
 * missing id contradicts the deployment described and each session rule fails saying so.
 */
function noSessionAssigned(ctx: CheckContext, detail = 'so session management is not in use'): never {
  if (ctx.profile.fixtures.mcp.requiresSession === true) {
    ctx.fail('the server assigned no Mcp-Session-Id at initialization, but the profile says this deployment requires sessions (fixtures.mcp.requiresSession: true): a server that requires a session ID assigns one in an Mcp-Session-Id header on the response containing the InitializeResult');
  }
  ctx.notApplicable(`the server assigned no Mcp-Session-Id at initialization, ${detail}`);
}

const NONE_ASSIGNED = 'the server assigned no Mcp-Session-Id at initialization, but the profile says this deployment requires sessions (fixtures.mcp.requiresSession: true)';

/** An initialize for /mcp's revision answered 200 without an Mcp-Session-Id: on a deployment that requires sessions, every session rule fails on it. */
function assignedNone(ex: Exchange): boolean {
  return ex.status === 200 && ex.responseHeaders[SESSION_HEADER] === undefined && openingInitialize(ex) !== undefined && askedVersion(ex) === MCP_REVISION;
}

/** A session as setup; the rules below do not apply to a server that assigns no session id. */
async function sessionWithId(ctx: CheckContext): Promise<McpSession & { id: string }> {
  const session = await openSession(ctx);
  if (session.id === undefined) noSessionAssigned(ctx);
  return { ...session, id: session.id };
}

function ping(ctx: CheckContext, session: string | null, label: string) {
  return postMcp(ctx, request(newRequestId('ping'), 'ping'), { session, label });
}

export const idVisibleAscii = rule({
  id: 'mcp.session.id-visible-ascii',
  title: 'An Mcp-Session-Id assigned at initialization contains only visible ASCII (0x21-0x7E)',
  level: 'required',
  spec: {
    section: 'Transports > Session Management',
    quote: 'The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E).',
    url: SPEC_URL.transports,
  },
  judgement: {
    record: 'an answer from the MCP endpoint carrying Mcp-Session-Id (or an initialize answered 200, when the profile says the deployment requires sessions)',
    none: 'the server assigned no Mcp-Session-Id at initialization, so there is no id to judge',
    judge(j) {
      // Whether the deployment requires sessions is not in the traffic: the profile says it (fixtures.mcp.requiresSession).
      const required = j.profile?.fixtures.mcp.requiresSession === true;
      for (const ex of mcpPosts(j)) {
        const id = ex.responseHeaders[SESSION_HEADER];
        if (id !== undefined && redacted(id)) {
          j.lacks(ex, 'the Mcp-Session-Id: the recorder replaced it with a marker');
        } else if (id !== undefined) {
          const bad = [...id].find((c) => !VISIBLE_ASCII.test(c));
          j.check(ex, bad === undefined, `the Mcp-Session-Id (${id.length} characters) contains ${JSON.stringify(bad)} (0x${bad?.codePointAt(0)?.toString(16)}), outside visible ASCII 0x21-0x7E`);
        } else if (required && assignedNone(ex)) {
          j.check(ex, false, NONE_ASSIGNED);
        }
      }
    },
  },
  async provoke(ctx: CheckContext) {
    // One id to judge; whether two initializations get the same one is mcp.session.id-unique's.
    await initializeOnce(ctx, MCP_REVISION, 'initialize');
  },
});

/** The Mcp-Session-Id an opening initialize was answered with, or undefined when it was none or got none. */
function issuedAtInitialization(ex: Exchange): string | undefined {
  return openingInitialize(ex) !== undefined ? ex.responseHeaders[SESSION_HEADER] : undefined;
}

/**
 * "Globally unique" is judged where the traffic can show it: no two initializations, by any caller,
 * at any time of the journal, get the same id. Whether an id is "cryptographically secure" no
 * answer shows; its length and whether it is a bare number are recorded.
 */
export const idUnique = rule({
  id: 'mcp.session.id-unique',
  title: 'No two initializations get the same Mcp-Session-Id (SHOULD: globally unique)',
  level: 'should',
  judgesTheRun: true,
  spec: {
    section: 'Transports > Session Management',
    quote: 'The session ID SHOULD be globally unique and cryptographically secure (e.g., a securely generated UUID, a JWT, or a cryptographic hash).',
    url: SPEC_URL.transports,
  },
  judgement: {
    record: 'an initialize POSTed to the MCP endpoint without a session id and answered with an Mcp-Session-Id, after another was (or an initialize answered 200, when the profile says the deployment requires sessions)',
    none: 'fewer than two initializations were answered with an Mcp-Session-Id, so there are no ids to compare',
    judge(j) {
      const required = j.profile?.fixtures.mcp.requiresSession === true;
      const firstWith = new Map<string, Exchange>();
      let shortest: number | undefined;
      let numeric = true;
      for (const ex of mcpPosts(j)) {
        const id = issuedAtInitialization(ex);
        if (id === undefined) {
          if (required && assignedNone(ex)) j.check(ex, false, NONE_ASSIGNED);
          continue;
        }
        // A marker every session shares hides which ids were equal; a numbered one stands for one id.
        if (sessionUnknown(id)) {
          j.lacks(ex, 'the Mcp-Session-Id: the recorder replaced it with a marker every session shares');
          continue;
        }
        const first = firstWith.get(id);
        if (firstWith.size > 0) j.check(ex, first === undefined, 'the initialize was answered with the Mcp-Session-Id an earlier initialization got; MCP: the session ID SHOULD be globally unique', first ? [first] : undefined);
        if (first === undefined) firstWith.set(id, ex);
        if (!redacted(id)) {
          shortest = Math.min(shortest ?? id.length, id.length);
          numeric &&= /^[0-9]+$/.test(id);
        }
      }
      if (shortest !== undefined) {
        j.observe('shortest Mcp-Session-Id (characters)', shortest, 'MCP: SHOULD be cryptographically secure (a securely generated UUID, a JWT, or a cryptographic hash); not judged');
        if (numeric) j.observe('every Mcp-Session-Id is a bare number', true, 'a guessable id is not cryptographically secure (SHOULD)');
      }
    },
  },
  async provoke(ctx: CheckContext) {
    // Two initialize requests alike to the byte (a request id may repeat across sessions): an id derived from the request alone repeats.
    const id = newRequestId('initialize');
    const first = await sendInitialize(ctx, { id, label: 'initialize (first session)' });
    const second = await sendInitialize(ctx, { id, label: 'initialize (second session, the same request)' });
    await deleteSession(ctx, first.sessionId, caller(ctx));
    if (second.sessionId !== first.sessionId) await deleteSession(ctx, second.sessionId, caller(ctx));
  },
});

export const missing400 = rule({
  id: 'mcp.session.missing-400',
  title: 'A server that requires sessions answers a request without Mcp-Session-Id with 400 (SHOULD)',
  level: 'should',
  spec: {
    section: 'Transports > Session Management',
    quote: 'Servers that require a session ID SHOULD respond to requests without an Mcp-Session-Id header (other than initialization) with HTTP 400 Bad Request.',
    url: SPEC_URL.transports,
  },
  judgement: {
    record: 'a POST of well-formed JSON-RPC (no initialize) without Mcp-Session-Id, by an authorised client, to a server that assigned session ids or that the profile says requires them',
    none: 'the server assigned no Mcp-Session-Id, or served a request without one, so it does not require sessions (set fixtures.mcp.requiresSession: true if it should)',
    judge(j) {
      // Whether the deployment requires sessions is the profile's to say; without it, a request served without one shows it does not.
      const requires = j.profile?.fixtures.mcp.requiresSession;
      if (requires === false) return;
      const sessions = new SessionHistory(j);
      if (requires === undefined && !sessions.issuesSessions) return;
      for (const ex of ordinaryMcpPosts(j)) {
        const calls = wellFormedCalls(ex);
        if (ex.status === undefined || ex.requestHeaders[SESSION_HEADER] !== undefined || !calls || calls.some((m) => m.method === 'initialize')) continue;
        const served = ex.status >= 200 && ex.status < 300;
        if (requires === undefined && served) continue;
        j.observe('a POST without Mcp-Session-Id', ex.status);
        const what = calls.map((m) => m.method).join(', ');
        const assigned = sessions.issuesSessions ? '' : ' (and the server assigned no Mcp-Session-Id at initialization, though the profile says this deployment requires sessions: fixtures.mcp.requiresSession: true)';
        j.check(ex, ex.status === 400, `${what} without Mcp-Session-Id was answered HTTP ${ex.status}; MCP recommends (SHOULD) 400 Bad Request${assigned}`);
      }
    },
  },
  async provoke(ctx: CheckContext) {
    await withSession(ctx, async () => {
      await ping(ctx, null, 'ping without Mcp-Session-Id');
    });
  },
});

/**
 * MCP 2025-03-26 states no answer for an id the server never issued: its MUST (404) is said of a
 * session the server terminated, its SHOULD (400) of a request without the header. The SHOULD comes
 * closest (a never-issued id names no session, so the request is in none), so the rule is a SHOULD,
 * accepting either status a server may read it by (the TypeScript SDK's README wiring answers 400, its transport alone 404).
 */
export const neverIssued = rule({
  id: 'mcp.session.never-issued',
  title: 'A server that requires sessions refuses a request carrying a session id it never issued with a 4xx (SHOULD; which one is recorded)',
  level: 'should',
  spec: {
    section: 'Transports > Session Management',
    quote: 'Servers that require a session ID SHOULD respond to requests without an Mcp-Session-Id header (other than initialization) with HTTP 400 Bad Request.',
    url: SPEC_URL.transports,
  },
  activeOnly: 'a recording cannot tell an id the server never issued from one it issued before the recording began; only an id apicert made up exists nowhere',
  async check(ctx: CheckContext) {
    // No sentence names an answer for an id never issued: a server that assigns ids without requiring them may serve it.
    // Only a server that requires sessions (the profile says so, or it refused a request without one) cannot serve a request in no session it issued.
    const requires = ctx.profile.fixtures.mcp.requiresSession;
    if (requires === false) ctx.notApplicable('the profile says this deployment does not require sessions (fixtures.mcp.requiresSession: false), and MCP names no answer for a session id such a server never issued');
    const session = await sessionWithId(ctx);
    try {
      if (requires === undefined) {
        const without = await ping(ctx, null, 'ping without Mcp-Session-Id (does the server require sessions?)');
        stopIfLimited(ctx, without.res, 'a ping without Mcp-Session-Id');
        const status = without.res.status;
        if (status >= 200 && status < 300) ctx.notApplicable('the server served a request without Mcp-Session-Id, so it does not require sessions, and MCP names no answer for a session id such a server never issued (set fixtures.mcp.requiresSession: true if it should)');
        if (status < 400 || status >= 500) ctx.inconclusive(`setup failed: a ping without Mcp-Session-Id was answered HTTP ${status}, so whether the server requires sessions is unknown`);
      }
      const unknown = `apicert-never-issued-${randomBytes(16).toString('hex')}`;
      const reply = await ping(ctx, unknown, 'ping with a never-issued Mcp-Session-Id');
      stopIfLimited(ctx, reply.res, 'a ping with a never-issued Mcp-Session-Id');
      const status = reply.res.status;
      ctx.observe('a never-issued Mcp-Session-Id answered', status, status === 404 ? 'as a terminated session' : status === 400 ? 'as a request without a valid session' : undefined);
      ctx.expect(
        status >= 400 && status < 500,
        `a ping with a never-issued Mcp-Session-Id was answered HTTP ${status} by a server that requires sessions; MCP recommends (SHOULD) refusing a request in no session it issued (4xx: 400 as a request without a valid session, 404 as a terminated one)`,
        reply.res,
      );
    } finally {
      await closeSession(ctx, session);
    }
  },
});

/**
 * The answered requests carrying a session id, as the rules of ending sessions walk them. On the way,
 * where the profile says the deployment requires sessions, an initialize answered without one fails
 * (every session rule fails it, as the active run does); a request whose id a recorder replaced with
 * a marker lacks its session.
 */
function* sessionRequests(j: Judge): Generator<{ ex: Exchange; id: string; status: number }> {
  const required = j.profile?.fixtures.mcp.requiresSession === true;
  for (const ex of ordinaryMcpRequests(j)) {
    const id = ex.requestHeaders[SESSION_HEADER];
    if (required && ex.method === 'POST' && assignedNone(ex)) j.check(ex, false, NONE_ASSIGNED);
    if (id === undefined || ex.status === undefined) continue;
    if (sessionUnknown(id)) {
      j.lacks(ex, 'its Mcp-Session-Id: the recorder replaced it with a marker, so its session is unknown');
      continue;
    }
    yield { ex, id, status: ex.status };
  }
}

export const deleteTerminates = rule({
  id: 'mcp.session.delete-terminates',
  title: 'DELETE with the Mcp-Session-Id ends the session, after which requests in it get 404 (or DELETE is refused with 405)',
  level: 'required',
  spec: {
    section: 'Transports > Session Management',
    quote:
      'SHOULD send an HTTP DELETE to the MCP endpoint with the Mcp-Session-Id header, to explicitly terminate the session. … The server MAY respond to this request with HTTP 405 Method Not Allowed, indicating that the server does not allow clients to terminate sessions. … after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.',
    url: SPEC_URL.transports,
  },
  judgement: {
    record: 'a DELETE of a session the server issued (or an initialize answered without a session id, when the profile says the deployment requires sessions), or a request carrying an Mcp-Session-Id that an earlier DELETE of that session was answered 2xx or 404 for, by an authorised client',
    none: 'the server assigned no Mcp-Session-Id at initialization, so there is no session to terminate',
    judge(j) {
      const sessions = new SessionHistory(j);
      for (const { ex, id, status } of sessionRequests(j)) {
        const ended = sessions.endedBefore(id, ex);
        if (ended) {
          // After the session ended: any request in it; a POST only when its JSON-RPC is well-formed (malformed input may be refused first).
          if (ex.method === 'POST' && !wellFormedCalls(ex)) continue;
          // A server offering no GET stream answers every GET 405 ("or else return HTTP 405 Method Not Allowed"), whatever session it names.
          const allowed = ex.method === 'GET' ? [404, 405] : [404];
          j.check(ex, allowed.includes(status), `a ${ex.method} in the session after DELETE was answered HTTP ${status}, expected 404 Not Found${ex.method === 'GET' ? ' (or 405, a server without GET streams)' : ''}`, [ended]);
        } else if (ex.method === 'DELETE' && sessions.issuedBefore(id, ex)) {
          // 404: the server may have ended the session itself ("at any time"); the requests after it are then held to 404.
          j.check(ex, [404, 405].includes(status) || (status >= 200 && status < 300), `DELETE with the session id was answered HTTP ${status}, expected a 2xx (terminated), 405 (not allowed) or 404 (already ended)`);
          if (status === 405) j.observe('DELETE /mcp', 405, 'the server does not allow clients to terminate sessions');
        }
      }
    },
  },
  async provoke(ctx: CheckContext) {
    let session = await openSession(ctx);
    // No session to terminate: the judgement says whether the deployment should have assigned one.
    if (session.id === undefined) return;
    let before = await ping(ctx, session.id, 'ping in the session before DELETE');
    stopIfLimited(ctx, before.res, 'setup: a ping in a fresh session');
    // "The server MAY terminate the session at any time": one it ended before the ping is no refusal; a fresh session once more.
    if (before.res.status === 404) {
      session = await openSession(ctx);
      if (session.id === undefined) return;
      before = await ping(ctx, session.id, 'ping in a second session before DELETE (the server ended the first)');
      stopIfLimited(ctx, before.res, 'setup: a ping in a fresh session');
    }
    if (before.res.status !== 200) ctx.inconclusive(`setup failed: a ping in a fresh session was answered HTTP ${before.res.status}${before.res.status === 404 ? ' twice: the server ended two fresh sessions before their first ping' : ''}`);
    const id = session.id;
    const res = await admitted(ctx, () => ctx.http.send({ method: 'DELETE', path: mcpPath(ctx), credential: session.credential, headers: { [SESSION_HEADER]: id }, label: 'DELETE the session' }));
    if (res.status >= 200 && res.status < 300) await ping(ctx, session.id, 'ping in the terminated session');
  },
});

/** How many pings the rule's own session sends before it gives up waiting for the server to end it (bounded: a server may never). */
const LONG_SESSION_PINGS = 120;

/**
 * A server may end a session whenever it likes; the 404 it answers a request of a live session with
 * is how a client learns it ("When a client receives HTTP 404 in response to a request containing
 * an Mcp-Session-Id, it MUST start a new session"). From that answer on, the session's id is owed
 * 404 on every request: a server that serves it again (a session store that lost the session and
 * makes a new one under the old id, a DELETE answered 204) contradicts the 404 its client acted on.
 * When a server ends sessions is its own choice, so no provocation can make it: the rule judges
 * every exchange of the run, where any session the server ended shows.
 */
export const endedStays404 = rule({
  id: 'mcp.session.ended-stays-404',
  title: 'A session the server ended itself stays ended: every later request carrying its id gets 404 Not Found',
  level: 'required',
  judgesTheRun: true,
  spec: {
    section: 'Transports > Session Management',
    quote: 'The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.',
    url: SPEC_URL.transports,
  },
  judgement: {
    record: "a request carrying an Mcp-Session-Id, by the session's own caller, sent after the server answered a well-formed POST of that session 404 Not Found (it ended the session itself); or an initialize answered without a session id, when the profile says the deployment requires sessions",
    none: 'the server ended no session itself in the exchanges judged (it answered no well-formed request of a session it issued 404); MCP lets a server keep its sessions ("MAY terminate the session at any time")',
    judge(j) {
      const sessions = new SessionHistory(j);
      for (const { ex, id, status } of sessionRequests(j)) {
        // Ended by a DELETE: mcp.session.delete-terminates holds the requests after it to 404.
        if (sessions.endedBefore(id, ex)) continue;
        const gone = sessions.goneBefore(id, ex);
        if (!gone || gone.requestHeaders.authorization !== ex.requestHeaders.authorization) continue;
        // A POST only when its JSON-RPC is well-formed: malformed input may be refused first.
        if (ex.method === 'POST' && !wellFormedCalls(ex)) continue;
        // 405 is a refusal of the method itself: a server without GET streams, or one that does not let clients end sessions.
        const or405 = ex.method === 'GET' || ex.method === 'DELETE';
        j.check(
          ex,
          status === 404 || (or405 && status === 405),
          `a ${ex.method} carrying the session id was answered HTTP ${status} after the server ended that session (it answered an earlier POST in it 404 Not Found); MCP: after the server terminates a session it MUST respond to requests containing that session ID with HTTP 404 Not Found${or405 ? ` (or 405, a server that refuses ${ex.method} on the endpoint)` : ''}`,
          [gone],
        );
      }
    },
  },
  async provoke(ctx: CheckContext) {
    // A long session of its own, so the rule judges something when run alone against a server that caps a session's requests.
    const session = await openSession(ctx);
    if (session.id === undefined) return;
    try {
      for (let n = 1; n <= LONG_SESSION_PINGS; n += 1) {
        const reply = await ping(ctx, session.id, `ping ${n} in a long session`);
        if (reply.res.status === 200) continue;
        // Any other refusal (a rate limit) ends the provocation: only a 404 shows a session the server ended.
        if (reply.res.status !== 404) break;
        await ping(ctx, session.id, 'ping in the session the server ended');
        break;
      }
    } finally {
      await closeSession(ctx, session);
    }
  },
});
