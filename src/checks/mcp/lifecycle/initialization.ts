/** Lifecycle > Initialization and Version Negotiation. */
import { type CheckContext, type Exchange, type Judge } from '../../../rule/index.ts';
import { limitAwareSection } from '../support/limiter.ts';
import { askedVersion, initializeResultOf, push } from '../support/session-history.ts';
import { initializeResult, MCP_REVISION } from '../../../contract/mcp/lifecycle.ts';
import { errorOf, initializeOnce, isObject, newRequestId, notification, postMcp, request, SPEC_URL, withSession } from '../support/session.ts';
import { answeredResponses, answerMessages, isRequestMessage, openingInitialize, ordinaryMcpPosts, ordinaryMcpRequests, sentMessages, sessionKeyOf, stillOwed, type Message } from '../support/traffic.ts';
import { bodyMissing, issuesOf, requestBodyMissing, startsAfterEnd } from '../../../traffic/read.ts';
import { isResponseLike } from '../../../contract/mcp/jsonrpc.ts';

const rule = limitAwareSection({ surface: 'mcp', document: 'mcp-2025-03-26', needs: { credentials: ['mcp:primary'] } });

/** The protocolVersion of a result, read loosely so only initialize-result judges the rest of the shape. */
function versionOf(message: Record<string, unknown> | undefined): string | undefined {
  const result = message?.result;
  return isObject(result) && typeof result.protocolVersion === 'string' ? result.protocolVersion : undefined;
}

export const initializeResultRule = rule({
  id: 'mcp.lifecycle.initialize-result',
  title: 'initialize is answered with a result carrying protocolVersion, capabilities and serverInfo (name, version)',
  level: 'required',
  spec: {
    section: 'Lifecycle > Initialization',
    quote: 'The initialization phase MUST be the first interaction between client and server. … The server MUST respond with its own capabilities and information',
    url: SPEC_URL.lifecycle,
  },
  judgement: {
    record: `a POST to the MCP endpoint carrying a well-formed initialize request (protocolVersion ${MCP_REVISION}, capabilities, clientInfo)`,
    judge(j) {
      for (const ex of ordinaryMcpPosts(j)) {
        // The revision /mcp follows: for another, the lifecycle's Error Handling lets a server answer an error instead.
        const init = openingInitialize(ex);
        if (!init || askedVersion(ex) !== MCP_REVISION || ex.status === undefined) continue;
        if (!j.check(ex, ex.status === 200, `initialize was answered HTTP ${ex.status}, expected 200`)) continue;
        const answered = answeredResponses(j, ex, [init.id]);
        if (!answered) continue;
        const message = answered.find((m) => m.id === init.id);
        if (!j.check(ex, message !== undefined, 'initialize was answered without a response carrying its id') || !message) continue;
        if (!j.check(ex, !('error' in message), `initialize was answered with an error: ${JSON.stringify(message.error)}`)) continue;
        const parsed = initializeResult.safeParse(message.result);
        if (!j.check(ex, parsed.success, `the InitializeResult lacks ${parsed.success ? '' : issuesOf(parsed.error)}`) || !parsed.success) continue;
        j.observe('server', { serverInfo: parsed.data.serverInfo, capabilities: Object.keys(parsed.data.capabilities) });
      }
    },
  },
  async provoke(ctx: CheckContext) {
    await initializeOnce(ctx, MCP_REVISION, 'initialize');
  },
});

type JudgeAnswer = (ex: Exchange, message: Record<string, unknown> | undefined) => void;

/**
 * Each opening initialize, in order, given to `select` (by the version it asked for and the
 * exchanges before it); the one it returns a judgement for is judged with the response carrying
 * its id (undefined when none did). Only those selected are read, so a cut answer of another
 * initialize costs the rule nothing.
 */
function eachInitialize(j: Judge, select: (asked: string, ex: Exchange) => JudgeAnswer | undefined): void {
  for (const ex of ordinaryMcpPosts(j)) {
    const init = openingInitialize(ex);
    const asked = askedVersion(ex);
    if (!init || asked === undefined || ex.status === undefined) continue;
    const judge = select(asked, ex);
    if (!judge) continue;
    const answered = answeredResponses(j, ex, [init.id]);
    if (!answered) continue;
    judge(ex, answered.find((m) => m.id === init.id));
  }
}

export const versionEcho = rule({
  id: 'mcp.lifecycle.version-echo',
  title: 'initialize asking for 2025-03-26 is answered with protocolVersion 2025-03-26',
  level: 'required',
  spec: {
    section: 'Lifecycle > Initialization > Version Negotiation',
    quote: 'If the server supports the requested protocol version, it MUST respond with the same version.',
    url: SPEC_URL.lifecycle,
  },
  judgement: {
    record: `a well-formed initialize asking for ${MCP_REVISION}, POSTed to the MCP endpoint by an authorised client`,
    judge(j) {
      const echoed: JudgeAnswer = (ex, message) => {
        if (!j.check(ex, ex.status === 200, `initialize asking for ${MCP_REVISION} was answered HTTP ${ex.status}, expected 200`)) return;
        const version = versionOf(message);
        j.check(ex, version === MCP_REVISION, `initialize asking for ${MCP_REVISION} was answered with protocolVersion ${JSON.stringify(version)}; /mcp follows ${MCP_REVISION}, so it must echo it`);
      };
      eachInitialize(j, (asked) => (asked === MCP_REVISION ? echoed : undefined));
    },
  },
  async provoke(ctx: CheckContext) {
    await initializeOnce(ctx, MCP_REVISION, `initialize asking for ${MCP_REVISION}`);
  },
});

/**
 * Dated like a revision, so a server that compares dates sees it, but from before MCP existed: a
 * version no server can support. Only this one is judged: a version that is merely not a published
 * revision may still be one a server supports (the TypeScript SDK lists the pre-release 2024-10-07).
 */
const UNKNOWN_VERSION = '1999-12-31';

/**
 * The versions the server offered before `ex` was sent: for each, the answer to an initialize asking
 * for another version whose result named it ("Otherwise, the server MUST respond with another
 * protocol version it supports"), so the server claimed to support it. /mcp's own revision is left
 * out: asked for it, the server is held to it by mcp.lifecycle.version-echo whatever it offered.
 */
class Offers {
  private readonly offers: { version: string; by: Exchange }[] = [];

  note(ex: Exchange, asked: string): void {
    const offered = initializeResultOf(ex)?.protocolVersion;
    if (typeof offered === 'string' && offered !== asked && offered !== MCP_REVISION) this.offers.push({ version: offered, by: ex });
  }

  before(version: string, ex: Exchange): Exchange | undefined {
    return this.offers.find((o) => o.version === version && startsAfterEnd(ex, o.by))?.by;
  }
}

export const versionUnknown = rule({
  id: 'mcp.lifecycle.version-unknown',
  title: 'initialize asking for an unknown version is answered with another version the server supports (asked for that one, it echoes it)',
  level: 'required',
  spec: {
    section: 'Lifecycle > Initialization > Version Negotiation; Error Handling',
    quote: 'Otherwise, the server MUST respond with another protocol version it supports. … Protocol version mismatch',
    url: SPEC_URL.lifecycle,
  },
  judgement: {
    record: `a well-formed initialize asking for protocolVersion ${UNKNOWN_VERSION} (from before MCP existed, so no server supports it), or for a version other than ${MCP_REVISION} the server offered in answer to an earlier initialize, POSTed to the MCP endpoint by an authorised client`,
    judge(j) {
      const offers = new Offers();
      // Every initialize is read for what it offered; only those asking for the unknown or an offered version are judged.
      eachInitialize(j, (asked, ex) => {
        const offeredBy = offers.before(asked, ex);
        offers.note(ex, asked);
        if (asked === UNKNOWN_VERSION) return (_, message) => unknownAnswered(j, ex, asked, message);
        return offeredBy ? (_, message) => offerKept(j, ex, asked, message, offeredBy) : undefined;
      });
    },
  },
  async provoke(ctx: CheckContext) {
    const { message } = await initializeOnce(ctx, UNKNOWN_VERSION, `initialize asking for ${UNKNOWN_VERSION}`);
    // Asked for the version it offered, a server that supports it answers with it: the judgement holds the offer to that.
    const offered = versionOf(message);
    if (offered !== undefined && offered !== UNKNOWN_VERSION) await initializeOnce(ctx, offered, `initialize asking for the offered ${offered}`);
  },
});

/** The answer to the unknown version: another version (a result), or an error (Error Handling's example). */
function unknownAnswered(j: Judge, ex: Exchange, asked: string, message: Record<string, unknown> | undefined): void {
  if (!j.check(ex, message !== undefined, `initialize asking for ${JSON.stringify(asked)} was answered HTTP ${ex.status} without a response carrying its id`) || !message) return;
  const error = errorOf(message);
  if (error) {
    // The lifecycle's Error Handling example answers a mismatch with an error; the text asks for a result. Both are recorded.
    j.check(ex, Number.isInteger(error.code), `the version mismatch error has no integer code: ${JSON.stringify(error)}`);
    j.observe('unknown protocolVersion answered with', { error }, 'Version Negotiation asks for a result with another version; Error Handling shows a -32602 error');
    return;
  }
  const version = versionOf(message);
  if (!j.check(ex, version !== undefined, 'the answer to initialize has no result.protocolVersion')) return;
  j.check(ex, version !== asked, `initialize asking for ${JSON.stringify(asked)} (no such revision) was answered with that same version, so the server claims a version that does not exist`);
  j.observe('unknown protocolVersion answered with', version);
}

/**
 * The answer to an initialize asking for a version the server offered earlier. The offer said the
 * server supports it, and a server that supports the version asked for "MUST respond with the same
 * version": answered with another, or refused with an error, the offer named a version it does not
 * support. An answer carrying no response (an HTTP refusal such as a rate limit) says nothing of versions.
 */
function offerKept(j: Judge, ex: Exchange, asked: string, message: Record<string, unknown> | undefined, offeredBy: Exchange): void {
  if (!message) return;
  const error = errorOf(message);
  const answered = error ? `an error ${JSON.stringify(error)}` : `protocolVersion ${JSON.stringify(versionOf(message))}`;
  j.check(
    ex,
    !error && versionOf(message) === asked,
    `initialize asking for ${JSON.stringify(asked)}, the version the server offered in answer to an earlier initialize, was answered with ${answered}; MCP: the server MUST respond with another protocol version it supports, and asked for a version it supports, with that same version`,
    [offeredBy],
  );
}

/** Revisions are dated (YYYY-MM-DD), so a later one sorts after: versions named otherwise have no order to judge. */
const DATED_REVISION = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The dated versions the server showed it supports, each with the first exchange that showed it: an
 * initialize answered with the version it asked for ("If the server supports the requested protocol
 * version, it MUST respond with the same version"). Read without judging: a cut answer of one shows nothing.
 */
function echoedVersions(j: Judge): Map<string, Exchange> {
  const supported = new Map<string, Exchange>();
  for (const ex of ordinaryMcpPosts(j)) {
    const asked = askedVersion(ex);
    if (asked === undefined || !DATED_REVISION.test(asked) || supported.has(asked) || !openingInitialize(ex)) continue;
    if (initializeResultOf(ex)?.protocolVersion === asked) supported.set(asked, ex);
  }
  return supported;
}

export const versionLatest = rule({
  id: 'mcp.lifecycle.version-latest',
  title: 'initialize asking for an unknown version is answered with the latest version the server is seen to support',
  level: 'should',
  spec: {
    section: 'Lifecycle > Initialization > Version Negotiation',
    quote: 'Otherwise, the server MUST respond with another protocol version it supports. This SHOULD be the latest version supported by the server.',
    url: SPEC_URL.lifecycle,
  },
  judgement: {
    record: `a well-formed initialize asking for protocolVersion ${UNKNOWN_VERSION} (no server supports it) answered with another dated version, POSTed to the MCP endpoint by an authorised client; initializes the server answered with the dated version they asked for show later versions it supports`,
    none: `the server answered initialize asking for ${UNKNOWN_VERSION} with an error, or with that same version (mcp.lifecycle.version-unknown judges both): it offered no other version to compare`,
    judge(j) {
      const supported = echoedVersions(j);
      // The gateway's description says "`/mcp` follows the MCP 2025-03-26 Streamable HTTP protocol": a version it supports, echoed or not.
      const newest = [...supported.keys(), MCP_REVISION].sort().at(-1)!;
      const shownBy = supported.get(newest);
      eachInitialize(j, (asked) =>
        asked !== UNKNOWN_VERSION
          ? undefined
          : (ex, message) => {
              // An error (Error Handling's example) or the version asked for back is mcp.lifecycle.version-unknown's to judge.
              const offered = versionOf(message);
              if (!message || errorOf(message) || offered === undefined || offered === asked || !DATED_REVISION.test(offered)) return;
              const why = shownBy ? 'it answered an initialize asking for it with it' : 'the version /mcp follows, by the gateway description';
              j.check(ex, newest <= offered, `initialize asking for ${JSON.stringify(asked)} was answered with ${offered}, though the server supports the later ${newest} (${why})`, shownBy ? [shownBy] : []);
            },
      );
    },
  },
  async provoke(ctx: CheckContext) {
    await initializeOnce(ctx, UNKNOWN_VERSION, `initialize asking for ${UNKNOWN_VERSION}`);
    await initializeOnce(ctx, MCP_REVISION, `initialize asking for ${MCP_REVISION}, the revision /mcp follows`);
  },
});

/**
 * What the journal shows of each session's lifecycle (by `sessionKeyOf`): the exchanges that opened
 * it (an initialize answered with a result), the POSTs carrying notifications/initialized, whatever
 * their answer (the server received it), and the POSTs whose body is not there to read (one may
 * have carried it).
 */
class Lifecycles {
  private readonly opened = new Map<string, Exchange[]>();
  private readonly initialized = new Map<string, Exchange[]>();
  private readonly unread = new Map<string, Exchange[]>();

  constructor(exchanges: readonly Exchange[]) {
    for (const ex of exchanges) {
      if (ex.method !== 'POST') continue;
      const owner = sessionKeyOf(ex);
      if (owner === 'hidden') continue;
      if (openingInitialize(ex) !== undefined && initializeResultOf(ex) !== undefined) push(this.opened, owner.key, ex);
      const sent = sentMessages(ex);
      if (sent === undefined) {
        if (requestBodyMissing(ex) !== undefined || ex.requestBodyTruncated) push(this.unread, owner.key, ex);
      } else if (sent.some((m) => m.method === 'notifications/initialized')) push(this.initialized, owner.key, ex);
    }
  }

  /**
   * Where `ex` stands in its session: `before` when the session's opening is in the journal (at or
   * before `ex`) and every notifications/initialized the client sent in it started after the answer
   * to `ex` ended (the clock's grain aside, as every rule reads "after"), so each message on that
   * answer came before the server received it; `unknown` when only a POST whose body is not kept
   * could have carried it earlier; else undefined. Without a session id, the caller's session-less
   * traffic is one sequence: a notifications/initialized of any earlier connection of the caller
   * counts, so connections that interleave are never judged on another's lifecycle.
   */
  of(key: string, ex: Exchange): { at: 'before' | 'unknown'; initialized: Exchange | undefined; unread?: Exchange } | undefined {
    const opened = (this.opened.get(key) ?? []).some((o) => o === ex || startsAfterEnd(ex, o));
    if (!opened) return undefined;
    const initialized = this.initialized.get(key) ?? [];
    if (!initialized.every((i) => startsAfterEnd(i, ex))) return undefined;
    const first = initialized[0];
    const unread = (this.unread.get(key) ?? []).find((u) => !startsAfterEnd(u, ex));
    return unread ? { at: 'unknown', initialized: first, unread } : { at: 'before', initialized: first };
  }
}

/** A request of the server's own that the sentence does not allow before initialized: any but a ping ("logging" is the notifications/message notification). */
function requestNotAllowed(m: Message): boolean {
  return isRequestMessage(m) && m.method !== 'ping';
}

export const requestsBeforeInitialized = rule({
  id: 'mcp.lifecycle.requests-before-initialized',
  title: 'Before the client\'s notifications/initialized, the server sends no requests but pings (SHOULD)',
  level: 'should',
  spec: {
    section: 'Lifecycle > Initialization',
    quote: 'The server SHOULD NOT send requests other than pings and logging before receiving the initialized notification.',
    url: SPEC_URL.lifecycle,
  },
  judgement: {
    record:
      'an answer (a JSON body, or an SSE stream of a POST or a GET) of the MCP endpoint to an authorised client, in a session whose opening initialize the exchanges show, that ended before the client sent notifications/initialized in that session (without a session id: before the caller sent any)',
    judge(j) {
      const lifecycles = new Lifecycles(j.exchanges);
      for (const ex of ordinaryMcpRequests(j)) {
        if ((ex.method !== 'POST' && ex.method !== 'GET') || ex.status === undefined) continue;
        const owner = sessionKeyOf(ex);
        if (owner === 'hidden') {
          if ((answerMessages(ex) ?? []).some(requestNotAllowed)) j.lacks(ex, 'its Mcp-Session-Id: the recorder replaced it with a marker, so its session is unknown');
          continue;
        }
        // Where it stands first: most answers of a run come after their session's notification, and are not read.
        const place = lifecycles.of(owner.key, ex);
        if (!place) continue;
        const messages = answerMessages(ex);
        const early = messages?.filter(requestNotAllowed) ?? [];
        if (!messages) {
          j.lacks(ex, `the answer's JSON-RPC messages: ${bodyMissing(ex) ?? 'no body was kept'}`);
          continue;
        }
        if (place.at === 'unknown') {
          if (early.length > 0) j.lacks(ex, `whether the client had sent notifications/initialized before it: the body of exchange #${place.unread?.index} was not kept`);
          continue;
        }
        if (early.length > 0) {
          const shown = early.slice(0, 3).map((m) => `${String(m.method)} (id ${JSON.stringify(m.id)})`).join(', ');
          const when = place.initialized ? `; the client sent notifications/initialized only after this answer ended (exchange #${place.initialized.index})` : '; the client had not sent notifications/initialized in the session';
          j.check(ex, false, `the server sent request(s) of its own on this answer before it received notifications/initialized: ${shown}${when}. Before it, only pings and logging (a notification) SHOULD come`, place.initialized ? [place.initialized] : []);
          continue;
        }
        // Nothing disallowed in what was read: an answer kept in part, or a stream its reader stopped before the responses owed, may hold one yet.
        const cut = bodyMissing(ex);
        if (cut !== undefined) {
          j.lacks(ex, `the whole answer: ${cut}`);
          continue;
        }
        const owed = (sentMessages(ex) ?? []).filter(isRequestMessage).map((m) => m.id);
        if (stillOwed(j, ex, messages.filter(isResponseLike), owed)) continue;
        j.check(ex, true, '');
      }
    },
  },
  async provoke(ctx: CheckContext) {
    await withSession(
      ctx,
      async (session) => {
        // Ping is always allowed before initialized, so every server may answer it; an SSE answer shows what else it sends then.
        await postMcp(ctx, request(newRequestId('ping'), 'ping'), { session, label: 'ping before notifications/initialized' });
        await postMcp(ctx, notification('notifications/initialized'), { session, label: 'notifications/initialized' });
      },
      { sendInitialized: false },
    );
  },
});
