/**
 * Generated cases only a rate limiter answered. The engine sends a request a limiter refused (429,
 * or /v1's fail-closed 503: "`429` and `503` are safe to retry ... because nothing was accepted")
 * again after the wait it asks for, within bounds (src/checks/shared/limited-wait.ts); one still
 * refused judged nothing. "Per-key tier values and request-rate numbers: not shown": no tier fails a
 * rule, but neither may a rule pass on the part of its cases the limiter let through. As with the
 * catalogue's limited cases (`limitedCases`), an active run that left a case of the rule's aspect
 * unjudged so is inconclusive unless another case failed. A recording is the traffic there was (a
 * client may never send a refused request again): its rules say how many they could not judge.
 */
import type { EndpointSurface } from '../../contract/endpoints.ts';
import { Inconclusive, type Exchange, type Judge, type Judgement } from '../../rule/index.ts';
import { journalFact } from '../../traffic/read.ts';
import { LIMITED_RESENDS, LIMITED_WAIT_MAX_MS } from '../shared/limited-wait.ts';
import { expectationOf } from './expectation.ts';
import { judgesAspect, type Aspect } from './judgement.ts';
import { isLimited } from './oracles.ts';
import { sentOfExchange, surfaceOfPath } from './traffic.ts';

/** The parts of `requestKey`, in order. */
function keyParts(ex: Exchange): [string, string, string, string, string] {
  return [ex.method, ex.path, ex.credential ?? ex.requestHeaders.authorization ?? '', ex.requestHeaders['idempotency-key'] ?? '', ex.requestBody ?? ''];
}

/** The same request sent again: method, target, credential, idempotency key and body. */
function requestKey(ex: Exchange): string {
  return keyParts(ex).join('\n');
}

/** The length of `requestKey(ex)`, without building it: keys of unequal length are unequal. */
function requestKeyLength(ex: Exchange): number {
  const [method, path, credential, key, body] = keyParts(ex);
  return method.length + path.length + credential.length + key.length + body.length + 4;
}

/** The exchanges of the surface a limiter refused whose request no later exchange got another answer to. */
export function limitedLeft(exchanges: readonly Exchange[], surface: EndpointSurface): readonly Exchange[] {
  // Every generated rule asks it of the same journal: worked out once, for every surface.
  return journalFact(exchanges, limitedLeftBySurface).get(surface) ?? [];
}

function limitedLeftBySurface(exchanges: readonly Exchange[]): ReadonlyMap<string, readonly Exchange[]> {
  const left = new Map<string, Exchange[]>();
  const limited = exchanges.filter((ex) => ex.status !== undefined && isLimited({ status: ex.status }));
  // The common case, no limiter at all, costs one pass.
  if (limited.length === 0) return left;
  // Only a request to a target a limiter refused can be its resend: the others' keys (and their bodies) are never built.
  const targets = new Set(limited.map((ex) => `${ex.method} ${ex.path}`));
  // Only a key as long as some limited request's can be one of theirs: building and hashing every answered request's key (bodies
  // and all: 4 MB for the 1,500 requests of a certify run to its limited targets) cost ~10 ms of a 1.1 s judging.
  const lengths = new Set(limited.map(requestKeyLength));
  const answeredAt = new Map<string, number>();
  for (const ex of exchanges) if (ex.status !== undefined && !isLimited({ status: ex.status }) && targets.has(`${ex.method} ${ex.path}`) && lengths.has(requestKeyLength(ex))) answeredAt.set(requestKey(ex), ex.index);
  for (const ex of limited) {
    if ((answeredAt.get(requestKey(ex)) ?? -1) >= ex.index) continue;
    const surface = surfaceOfPath(ex.path);
    if (surface === undefined) continue;
    const list = left.get(surface);
    if (list) list.push(ex);
    else left.set(surface, [ex]);
  }
  return left;
}

/**
 * Whether `aspect` may have judged the request had the API answered it. Its expectation is read here
 * from the request alone: what earlier answers showed (an id handed out, a parked run) may make an
 * open one a must-accept, so an open request counts for every aspect.
 */
function mayJudge(aspect: Aspect, ex: Exchange, credentials: Parameters<typeof sentOfExchange>[1]): boolean {
  const kind = expectationOf(sentOfExchange(ex, credentials)).kind;
  return kind === 'open' || judgesAspect(aspect, kind);
}

/**
 * `judgement` of one generated aspect, and the cases of that aspect (by the expectation of their
 * request) only a limiter answered. `owns`: which exchanges the aspect judges in a recording.
 */
export function withLimitedLeft(inner: Judgement, surface: EndpointSurface, aspect: Aspect, owns?: (ex: Exchange, profile: Judge['profile']) => boolean): Judgement {
  return {
    ...inner,
    judge(j: Judge) {
      inner.judge(j);
      const credentials = j.profile?.credentials ?? [];
      const left = limitedLeft(j.exchanges, surface).filter((ex) => !(owns && j.source === 'recording' && !owns(ex, j.profile)) && mayJudge(aspect, ex, credentials));
      if (left.length === 0) return;
      const first = left[0]!;
      const what = `${left.length} request(s) this rule judges were answered only by a rate limiter (${[...new Set(left.map((ex) => ex.status))].join('/')}), never by the API (first: ${first.method} ${first.path.split('?', 1)[0]})`;
      // A failure found stands whatever else went unjudged.
      if (j.failed || j.source === 'recording') return j.observe('requests answered only by a rate limiter (429/503), not judged', left.length);
      throw new Inconclusive(`${what}, though a limited request is sent again after the wait it asks for (up to ${LIMITED_WAIT_MAX_MS / 1000} s, ${LIMITED_RESENDS} times): give the primary credential a tier that admits the generated requests, or certify the generated rules alone (--rules '*.contract.generated.*')`);
    },
  };
}
