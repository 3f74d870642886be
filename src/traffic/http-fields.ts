/**
 * The two response fields RFC 9110 makes a status carry: `WWW-Authenticate` on a 401 (15.5.2) and
 * `Allow` on a 405 (15.5.6). Plain functions over a header value, judged the same wherever the
 * answer came from. Only what the grammar makes certain is judged: a challenge begins with its
 * auth-scheme token; an Allow list holds method tokens and may be empty (10.2.1).
 */
import { HTTP_TOKEN } from '../util/http-token.ts';
import type { AnswerCase } from './answer-cases.ts';


/** A header value shown in a reason: short, one line (the output pass redacts what it must). */
function shown(value: string): string {
  const line = value.replace(/[\r\n]+/g, ' ');
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}

/**
 * `WWW-Authenticate = #challenge`, `challenge = auth-scheme [ 1*SP ( token68 / #auth-param ) ]`:
 * at least one list element must begin with an auth-scheme token. Empty elements are allowed by the
 * list syntax (5.6.1) and skipped.
 */
export function challengeCase(value: string | undefined): AnswerCase {
  const check = 'a 401 answer carries WWW-Authenticate with at least one challenge';
  if (value === undefined) return { ok: false, check, why: 'answered 401 without a WWW-Authenticate header field (RFC 9110 15.5.2: "MUST send a WWW-Authenticate header field … containing at least one challenge")' };
  const first = value.split(',').map((element) => element.trim()).find((element) => element.length > 0);
  const scheme = first?.split(/[ \t]/, 1)[0] ?? '';
  return { ok: HTTP_TOKEN.test(scheme), check, why: `answered 401 with WWW-Authenticate "${shown(value)}", which holds no challenge (a challenge begins with its auth-scheme, a token such as Bearer)` };
}

/** `Allow = #method`, `method = token`: every non-empty element a token; an empty value is allowed (10.2.1). */
export function allowCase(value: string | undefined): AnswerCase {
  const check = 'a 405 answer carries Allow listing the supported methods';
  if (value === undefined) return { ok: false, check, why: 'answered 405 without an Allow header field (RFC 9110 15.5.6: "The origin server MUST generate an Allow header field in a 405 response")' };
  const bad = value.split(',').map((element) => element.trim()).filter((element) => element.length > 0 && !HTTP_TOKEN.test(element));
  return { ok: bad.length === 0, check, why: `answered 405 with Allow "${shown(value)}", whose element(s) ${bad.map((b) => `"${shown(b)}"`).join(', ')} are no method tokens` };
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
