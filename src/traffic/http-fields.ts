/**
 * The two response fields RFC 9110 makes a status carry: `WWW-Authenticate` on a 401 (15.5.2) and
 * `Allow` on a 405 (15.5.6). Plain functions over a header value, judged the same wherever the
 * answer came from. Only what the grammar and the one exchange make certain is judged: a challenge
 * begins with its auth-scheme token, and where the surface states its scheme one challenge names it
 * ("at least one challenge applicable to the target resource"); an Allow list holds method tokens,
 * may be empty (10.2.1), and never names the method its own 405 refuses.
 */
import { HTTP_TOKEN } from '../util/http-token.ts';
import type { AnswerCase } from './answer-cases.ts';


/** A header value shown in a reason: short, one line (the output pass redacts what it must). */
function shown(value: string): string {
  const line = value.replace(/[\r\n]+/g, ' ');
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}

/** The scheme a surface's Authentication section states, and where it says so (shown in a reason). */
export interface StatedScheme {
  /** The auth-scheme, e.g. `Bearer`: compared case-insensitively (RFC 9110 11.1). */
  name: string;
  /** Where the description states it, quoted. */
  stated: string;
}

/**
 * The auth-schemes a WWW-Authenticate value names: each list element that begins a challenge
 * (a token, then the end or whitespace not followed by `=`); an element `name=value` is an
 * auth-param of the challenge before it. Quoted strings are blanked first, so a comma or a scheme
 * name inside a realm is not read as a challenge.
 */
function challengeSchemes(value: string): string[] {
  const schemes: string[] = [];
  for (const element of value.replace(/"(?:[^"\\]|\\.)*"/g, '""').split(',')) {
    const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(.*)$/.exec(element.trim());
    if (m && (m[2] === '' || (/^[ \t]/.test(m[2]!) && !m[2]!.trimStart().startsWith('=')))) schemes.push(m[1]!);
  }
  return schemes;
}

/**
 * `WWW-Authenticate = #challenge`, `challenge = auth-scheme [ 1*SP ( token68 / #auth-param ) ]`:
 * the first non-empty list element must begin with an auth-scheme token (empty elements are allowed
 * by the list syntax, 5.6.1, and skipped). With `scheme`, some challenge of the list must name it:
 * a challenge of another scheme only is none "applicable to the target resource" where the surface
 * takes that one scheme alone.
 */
export function challengeCase(value: string | undefined, scheme?: StatedScheme): AnswerCase {
  const check = scheme ? `a 401 answer carries WWW-Authenticate with a ${scheme.name} challenge` : 'a 401 answer carries WWW-Authenticate with at least one challenge';
  if (value === undefined) return { ok: false, check, why: 'answered 401 without a WWW-Authenticate header field (RFC 9110 15.5.2: "MUST send a WWW-Authenticate header field … containing at least one challenge")' };
  const first = value.split(',').map((element) => element.trim()).find((element) => element.length > 0);
  const firstScheme = first?.split(/[ \t]/, 1)[0] ?? '';
  if (!HTTP_TOKEN.test(firstScheme)) return { ok: false, check, why: `answered 401 with WWW-Authenticate "${shown(value)}", which holds no challenge (a challenge begins with its auth-scheme, a token such as Bearer)` };
  if (scheme === undefined) return { ok: true, check, why: '' };
  const named = challengeSchemes(value);
  const ok = named.some((s) => s.toLowerCase() === scheme.name.toLowerCase());
  return {
    ok,
    check,
    why: `answered 401 with WWW-Authenticate "${shown(value)}", whose challenges (${named.join(', ')}) name no ${scheme.name} scheme, the only one this surface takes (${scheme.stated}): RFC 9110 15.5.2 asks for "at least one challenge applicable to the target resource", and auth-scheme names are case-insensitive (11.1)`,
  };
}

/**
 * `Allow = #method`, `method = token`: every non-empty element a token; an empty value is allowed
 * (10.2.1). With the refused request's `method`, the list must not name it: it holds the resource's
 * "currently supported methods", and this very answer refuses that one (method names are
 * case-sensitive, 9.1, so `get` is not GET).
 */
export function allowCase(value: string | undefined, method?: string): AnswerCase {
  const check = 'a 405 answer carries Allow listing the supported methods';
  if (value === undefined) return { ok: false, check, why: 'answered 405 without an Allow header field (RFC 9110 15.5.6: "The origin server MUST generate an Allow header field in a 405 response")' };
  const elements = value.split(',').map((element) => element.trim()).filter((element) => element.length > 0);
  const bad = elements.filter((element) => !HTTP_TOKEN.test(element));
  if (bad.length > 0) return { ok: false, check, why: `answered 405 with Allow "${shown(value)}", whose element(s) ${bad.map((b) => `"${shown(b)}"`).join(', ')} are no method tokens` };
  const refused = method !== undefined && elements.includes(method);
  return { ok: !refused, check, why: `answered ${method} with 405 and Allow "${shown(value)}", which lists ${method}, the method this answer refuses: RFC 9110 15.5.6 has Allow list the resource's "currently supported methods"` };
}

/**
 * Whether a request's Accept admits none of the media types the APIs answer with (JSON, problem
 * JSON, an event stream): a deployment may refuse such a request 406 before it reads anything else
 * (RFC 9110 12.5.1), so the request carries a cause of refusal besides the one a rule probes.
 */
export function acceptAdmitsNoAnswer(accept: string | undefined): boolean {
  return accept !== undefined && !/json|\*\/\*|event-stream/i.test(accept);
}

/**
 * Whether an Accept value admits the media type `type` (RFC 9110 §12.5.1: a media range matching it,
 * `*\/*` or `type/*` included, whose weight is not 0); a request without Accept admits any. A value
 * that does not parse admits nothing, so a deployment may answer it 406 too.
 */
export function acceptAdmits(accept: string | undefined, type: string): boolean {
  if (accept === undefined) return true;
  const [main] = type.split('/');
  return accept.split(',').some((range) => {
    const [name = '', ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    const weight = params.find((p) => /^q\s*=/.test(p));
    if (weight !== undefined && !(Number(weight.replace(/^q\s*=\s*/, '')) > 0)) return false;
    return name === '*/*' || name === `${main}/*` || name === type;
  });
}
