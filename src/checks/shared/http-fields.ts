/**
 * RFC 9110's fields of a status, on every surface: a 401 carries `WWW-Authenticate` with a
 * challenge of the scheme the surface states (15.5.2), a 405 carries `Allow` without the method it
 * refuses (15.5.6). The descriptions name neither status for most refusals ("Mapping of
 * each `code` to an HTTP status: not shown" on /v1), so these rules bind only the answers that have
 * the status: a deployment that refuses with 403 or 404 leaves them nothing to judge, never a failure.
 */
import { section, type CheckContext, type Exchange, type Judge, type Needs, type Rule } from '../../rule/index.ts';
import { allowCase, challengeCase, type StatedScheme } from '../../traffic/http-fields.ts';

type Surface = 'v1' | 'v8' | 'mcp';

/** Whether an exchange went to the surface: its paths for /v1 and /v8, the profile's MCP endpoint for /mcp. */
export type OnSurface = (j: Judge, ex: Exchange) => boolean;

const RFC = 'https://www.rfc-editor.org/rfc/rfc9110';

/** Each answer of the surface with `status`: which answers carry the field is what the sentence binds. */
function eachAnswered(j: Judge, onSurface: OnSurface, status: number, judge: (e: Exchange) => { ok: boolean; why: string }): void {
  for (const e of j.exchanges) {
    if (e.status !== status || !onSurface(j, e)) continue;
    const { ok, why } = judge(e);
    j.check(e, ok, why);
  }
}

const SURFACE_NAME: Record<Surface, string> = { v1: '/v1', v8: '/v8', mcp: 'the MCP endpoint' };

export interface ChallengeOptions {
  /** `<surface>.auth.challenge`, written in the rule's own area folder. */
  id: string;
  surface: Surface;
  onSurface: OnSurface;
  /** The request a deployment would refuse for want of credentials: sent without any. */
  provoke: (ctx: CheckContext) => Promise<void>;
}

/**
 * The one scheme each surface's Authentication section states: a 401 challenge "applicable to the
 * target resource" names it. /v1's identity-provider JWT principals are "out of scope here", so
 * the API key's HTTP bearer is the scheme a /v1 client is answered for.
 */
const STATED_SCHEME: Record<Surface, StatedScheme> = {
  v1: { name: 'Bearer', stated: '/v1 Authentication: "Scheme: HTTP bearer"' },
  v8: { name: 'Bearer', stated: '/v8 Authentication: "Scheme: `Authorization: Bearer <ACCESS_TOKEN>`"' },
  mcp: { name: 'Bearer', stated: 'the gateway\'s "POST | /mcp | see Authentication", and there "Scheme: `Authorization: Bearer <ACCESS_TOKEN>`"' },
};

/** Every 401 answer of the surface carries a challenge of the surface's scheme. */
export function challengeRule({ id, surface, onSurface, provoke }: ChallengeOptions): Rule {
  const scheme = STATED_SCHEME[surface];
  const rule = section({ surface, document: 'rfc9110', url: `${RFC}#section-15.5.2` });
  return rule({
    id,
    title: `Every 401 answer of ${SURFACE_NAME[surface]} carries a WWW-Authenticate header field with at least one challenge, one of them ${scheme.name}, the scheme the surface takes (RFC 9110)`,
    level: 'required',
    spec: {
      section: '15.5.2. 401 Unauthorized',
      quote: 'The server generating a 401 response MUST send a WWW-Authenticate header field (Section 11.6.1) containing at least one challenge applicable to the target resource.',
    },
    judgement: {
      record: `a ${SURFACE_NAME[surface]} request answered 401`,
      none: `no request was answered 401 (a deployment may refuse a request without credentials with another status where the descriptions name none; the sentence binds only a 401)`,
      judge(j) {
        eachAnswered(j, onSurface, 401, (e) => challengeCase(e.responseHeaders['www-authenticate'], scheme));
      },
    },
    provoke,
  });
}

export interface AllowOptions {
  /** `<surface>.<area>.allow-on-405`, written in the rule's own area folder. */
  id: string;
  surface: Surface;
  onSurface: OnSurface;
  /** A request with a method the target resource does not support (a 405 is then the RFC's answer, though not the only one). */
  provoke: (ctx: CheckContext) => Promise<void>;
  /** The credential the provocation authenticates with, so the request is not refused for want of one first. */
  needs: Needs;
}

/** Every 405 answer of the surface carries Allow. */
export function allowRule({ id, surface, onSurface, provoke, needs }: AllowOptions): Rule {
  const rule = section({ surface, document: 'rfc9110', url: `${RFC}#section-15.5.6`, needs });
  return rule({
    id,
    title: `Every 405 answer of ${SURFACE_NAME[surface]} carries an Allow header field listing the resource's methods, never the method it refuses (RFC 9110)`,
    level: 'required',
    spec: {
      section: '15.5.6. 405 Method Not Allowed',
      quote: "The origin server MUST generate an Allow header field in a 405 response containing a list of the target resource's currently supported methods.",
    },
    judgement: {
      record: `a ${SURFACE_NAME[surface]} request answered 405`,
      none: 'no request was answered 405 (an unsupported method may also be answered 404 or, for a method supported nowhere, 501: the sentence binds only a 405)',
      judge(j) {
        // The refused method is the request's own: an Allow naming it lists a method this very answer does not support.
        eachAnswered(j, onSurface, 405, (e) => allowCase(e.responseHeaders.allow, e.method));
      },
    },
    provoke,
  });
}
