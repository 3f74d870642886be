/**
 * What else may refuse a /v1 request than the rule judging it. No sentence orders a deployment's
 * checks: a request without a usable key, or on a key whose limiter is down, that also carries a
 * body or header the contract does not admit, or names a run no earlier answer showed, may be
 * refused for that other cause first. The rules that judge the key (v1.auth.*) and the limiter
 * (v1.errors.limiter-unavailable-503) accept that refusal too; an ordinary request (none of these)
 * is held to their own answer. Everything is read from the request and the exchanges before it.
 */
import { credentialIn, type Exchange, type Judge, mediaType } from '../../../rule/index.ts';
import type { Profile } from '../../../profile/schema.ts';
import { approveRequest } from '../../../contract/v1/runs.ts';
import { webhookRegistration } from '../../../contract/v1/webhooks.ts';
import { acceptAdmitsNoAnswer } from '../../../traffic/http-fields.ts';
import { dataOf, eventsOf, idAfter, journalFact, openWireForm, operation, oversizedHead, parsedAs, recordOf, requestJson, responseJson } from '../../../traffic/read.ts';
import { isIdentifier, modeOf, taskMayBeRefused, testReceiverUrl, turnMayBeRefused, validBody } from '../support/traffic.ts';

export interface OtherCause {
  /** What of the request may be refused first, for a failure message. */
  what: string;
  /** The refusal that cause earns, in words. */
  refusal: string;
  /** Whether the answer is that refusal. */
  refuses(ex: Exchange): boolean;
}

const codeOf = (ex: Exchange): unknown => recordOf(responseJson(ex))?.code;
const clientError = (ex: Exchange): boolean => ex.status !== undefined && ex.status >= 400 && ex.status < 500 && ex.status !== 429;

/** "Mapping of each `code` to an HTTP status: not shown.": a 4xx (but 429) with one of the codes; a HEAD answer has no content, so its status. */
function refusedWith(...codes: string[]): (ex: Exchange) => boolean {
  return (ex) => clientError(ex) && (ex.method === 'HEAD' || codes.includes(codeOf(ex) as string));
}

const INVALID: Pick<OtherCause, 'refusal' | 'refuses'> = { refusal: 'a 4xx with code invalid_request', refuses: refusedWith('invalid_request') };

/** A request the contract does not admit as sent: its form, not its key, may be what is refused. */
function malformed(j: Pick<Judge, 'profile'>, ex: Exchange): string | undefined {
  if (ex.path.includes('?')) return 'a query no /v1 endpoint defines';
  const version = ex.requestHeaders['x-ai-platform-version'];
  if (version !== undefined && version !== 'v1') return `X-AI-Platform-Version "${version}"`;
  if (acceptAdmitsNoAnswer(ex.requestHeaders.accept)) return `Accept "${ex.requestHeaders.accept}"`;
  const op = operation(ex);
  const sendsBody = op === 'v1.execute' || op === 'v1.runs.approve' || op === 'v1.webhooks.create';
  if (!sendsBody) return ex.requestBody !== undefined && ex.requestBody !== '' ? 'a body where none is defined' : undefined;
  if (ex.requestBody === undefined) return 'no body';
  if (openWireForm(ex) || mediaType(ex.requestHeaders) !== 'application/json') return 'a body in another wire form than plain JSON';
  if (op === 'v1.execute') {
    const key = ex.requestHeaders['idempotency-key'];
    if (key !== undefined && !isIdentifier(key)) return 'an Idempotency-Key that is no Identifier';
    const mode = modeOf(ex);
    if (mode === undefined || !validBody(ex, mode)) return 'a body that is neither a turn nor a task body';
    return (mode === 'turn' ? turnMayBeRefused(j, ex) : taskMayBeRefused(j, ex)) === undefined ? undefined : `a ${mode} body the deployment may not take`;
  }
  if (op === 'v1.runs.approve') return parsedAs(approveRequest, requestJson(ex)).success ? undefined : 'a body that is no ApproveRequest';
  return parsedAs(webhookRegistration, requestJson(ex)).success ? undefined : 'a body that is no webhook registration';
}

/**
 * Where each run id was first shown by an answer (a task response's `run_id`, an event's, a 2xx to
 * its own path), and to which principals: a run nobody was shown may not exist, and one shown only
 * to others may be outside the caller's reach. Principals are the profile's, else the caller.
 */
function runsShownIn(exchanges: readonly Exchange[], profile: Profile | undefined): ReadonlyMap<string, ReadonlyMap<string, number>> {
  const credentials = profile?.credentials ?? [];
  const shown = new Map<string, Map<string, number>>();
  const show = (run: unknown, ex: Exchange): void => {
    if (typeof run !== 'string' || run === '') return;
    const who = credentialIn(ex, credentials)?.principal ?? ex.credential ?? ex.requestHeaders.authorization ?? '';
    let to = shown.get(run);
    if (!to) shown.set(run, (to = new Map()));
    if (!to.has(who)) to.set(who, ex.index);
  };
  for (const ex of exchanges) {
    if (ex.status === undefined || ex.status < 200 || ex.status >= 300) continue;
    const op = operation(ex);
    if (op === 'v1.execute') show(recordOf(responseJson(ex))?.run_id, ex);
    if (op.startsWith('v1.runs.')) show(decodedRun(ex), ex);
    if (op === 'v1.execute' || op === 'v1.runs.events') for (const e of eventsOf(ex) ?? []) show(dataOf(e)?.run_id, ex);
  }
  return shown;
}

function decodedRun(ex: Exchange): string | undefined {
  const raw = idAfter(ex, '/v1/runs/');
  if (raw === undefined) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * The other causes a /v1 request carries besides its key and its limiter: a head past what a server
 * may limit it to (`oversizedHead`, the reading `openRequestForm` takes), what of its form the
 * contract does not admit, the state an approve or cancel depends on, a run the caller was not
 * shown before. `principal`: whose reach the run is judged in (undefined: anyone's, as for a
 * request without a key, which names nobody).
 */
export function otherCauses(j: Pick<Judge, 'exchanges' | 'profile'>, ex: Exchange, principal?: string): OtherCause[] {
  const causes: OtherCause[] = [];
  // RFC 9110 §5.4: a head larger than a server wishes to process gets a 4xx, often from its HTTP layer before any key is read (Node's is a bodiless 431).
  const head = oversizedHead(ex);
  if (head !== undefined) causes.push({ what: head, refusal: 'a 4xx, perhaps the HTTP layer\'s without a problem', refuses: clientError });
  const form = malformed(j, ex);
  if (form !== undefined) causes.push({ what: form, ...INVALID });
  const op = operation(ex);
  // "Transitions: not shown."; approving needs a parked run and its digest, cancelling a finished run is not shown.
  if (op === 'v1.runs.approve' || op === 'v1.runs.cancel') causes.push({ what: "the run's state", refusal: 'a 4xx with code conflict or invalid_request', refuses: refusedWith('conflict', 'invalid_request') });
  if (op === 'v1.webhooks.create' && form === undefined) {
    const url = recordOf(requestJson(ex))?.url;
    // Only a receiver the profile vouches for is known public: any other URL may be refused by the URL rules (a name may resolve anywhere).
    if (typeof url === 'string' && !testReceiverUrl(j, url)) causes.push({ what: `the endpoint URL ${url}`, refusal: 'a 4xx (but 401, 403, 404, 405, 429)', refuses: (a) => clientError(a) && ![401, 403, 404, 405].includes(a.status!) });
  }
  const run = op.startsWith('v1.runs.') ? decodedRun(ex) : undefined;
  if (run !== undefined) {
    const to = journalFact(j.exchanges, runsShownIn, j.profile).get(run);
    const before = to === undefined ? [] : [...to].filter(([who, at]) => at < ex.index && (principal === undefined || who === principal));
    if (before.length === 0) causes.push({ what: `run ${run}, which no earlier answer showed ${principal === undefined ? '' : `to ${principal}`}`.trim(), refusal: '404', refuses: (a) => a.status === 404 });
  }
  return causes;
}

/** `otherCauses` for the message of a failing case: ", or (for X) Y" per cause. */
export function orOtherRefusals(causes: readonly OtherCause[]): string {
  return causes.map((c) => `, or (for ${c.what}) ${c.refusal}`).join('');
}
