/** Headers (documented or not), the method, the path, the query, content negotiation and credentials. */
import { always, http, isGet, open, raw, same, stated, withQuery } from '../build.ts';
import { standard, V1, V8, type Sentence } from '../../../contract/sentence.ts';
import type { HttpOperator, HttpTarget } from '../types.ts';

const rfc9110 = (section: string, sentence: string): Sentence => standard('RFC 9110', `§${section}`, sentence);
const HEADER_REQUIRED: Record<'v8', Sentence> = {
  v8: V8('Endpoints', 'Header `Authorization: Bearer <ACCESS_TOKEN>` is required on every `/v8` call.'),
};
const TOKEN_FORM: Record<'v8' | 'v1', Sentence> = {
  v8: V8('Authentication', 'The token is a short-lived delegated OAuth token signed with Ed25519.'),
  v1: V1('Authentication', 'The token is an API key whose format has the prefix `service_sk_`.'),
};
const SCHEME_CASE = rfc9110('11.1', 'It uses a case-insensitive token to identify the authentication scheme');
/** RFC 9110 §5.5, whole: HTTP/1.1 allows the whitespace (RFC 9112 §5.1: `field-line = field-name ":" OWS field-value OWS`), so a server reads the value without it. */
export const VALUE_WHITESPACE = rfc9110(
  '5.5',
  'A field value does not include leading or trailing whitespace. When a specific version of HTTP allows such whitespace to appear in a message, a field parsing implementation MUST exclude such whitespace prior to evaluating the field value.',
);

/** Every header line of the base, and the Authorization line the client writes, with `lead` before and `trail` after the value. */
function padded(t: HttpTarget, lead: string, trail: string) {
  return raw(t, (r) => {
    r.headers = r.headers.map(([n, v]) => [n, `${lead}${v}${trail}`]);
    r.place = { header: 'Authorization', before: `${lead}Bearer `, after: trail };
  });
}

function header(t: HttpTarget, name: string, value: string) {
  return http(t, (r) => (r.headers = { ...r.headers, [name]: value }));
}

function withAuthorization(t: HttpTarget, value: string) {
  return http(t, (r) => ((r.credential = null), (r.headers = { ...r.headers, authorization: value })));
}

const hasParam = (t: HttpTarget) => Object.keys(t.endpoint.pathParams).length > 0;

export const HEADERS: readonly HttpOperator[] = [
  {
    id: 'header.unknown',
    scope: 'message',
    family: 'header',
    sends: 'an undocumented header, then 100 of them, then one of 16 KiB',
    peer: 'CATS ExtraHeaders / LargeNumberOfRandomHeaders / VeryLargeHeaders',
    applies: always,
    cases: (t) => [
      open('X-Apicert-Probe', header(t, 'x-apicert-probe', '1'), 'RFC 9110 5.1: recipients SHOULD ignore unrecognized fields; a SHOULD is not a stated acceptance'),
      open('100 undocumented headers', http(t, (r) => (r.headers = { ...r.headers, ...Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`x-apicert-${i}`, String(i)])) })), 'a server may limit the header section (431)'),
      open('a 16 KiB header', header(t, 'x-apicert-probe', 'a'.repeat(16 * 1024)), 'a server may limit the header section (431)'),
    ],
  },
  {
    id: 'header.override',
    scope: 'message',
    family: 'header',
    sends: 'X-Forwarded-For and Forwarded naming loopback; deep: X-HTTP-Method-Override: DELETE',
    peer: 'CATS (method override, spoofed forwarding headers)',
    applies: always,
    cases: (t) => [
      open('X-Forwarded-For: 127.0.0.1', http(t, (r) => (r.headers = { ...r.headers, 'x-forwarded-for': '127.0.0.1', forwarded: 'for=127.0.0.1;proto=https' })), 'the descriptions name no forwarding headers'),
      open('X-HTTP-Method-Override: DELETE', header(t, 'x-http-method-override', 'DELETE'), 'the descriptions name no method override'),
    ],
  },
  {
    id: 'header.name-case',
    scope: 'message',
    family: 'header',
    sends: 'every header name upper-cased (AUTHORIZATION, CONTENT-TYPE)',
    peer: 'RFC 9110 5.1',
    raw: true,
    applies: always,
    cases: (t) => [
      same('upper-case header names',
        raw(t, (r) => {
          r.headers = r.headers.map(([n, v]) => [n.toUpperCase(), v]);
          r.place = { header: 'AUTHORIZATION' };
        }),
        rfc9110('5.1', 'Field names are case-insensitive')),
    ],
  },
  {
    id: 'header.value-whitespace',
    scope: 'message',
    family: 'header',
    sends: 'spaces and tabs around every header value (Authorization, Content-Type, Idempotency-Key, Accept); deep: trailing whitespace only',
    peer: 'CATS (leading and trailing spaces in header values); RFC 9110 5.5, RFC 9112 5.1',
    raw: true,
    applies: always,
    cases: (t) => [same('SP and HTAB around every header value', padded(t, ' \t', ' \t'), VALUE_WHITESPACE), same('trailing SP and HTAB after every header value', padded(t, '', ' \t'), VALUE_WHITESPACE)],
  },
  {
    id: 'header.conditional',
    family: 'header',
    sends: 'Range: bytes=0-0, then If-None-Match: *',
    peer: 'RFC 9110 13.1, 14.2',
    applies: isGet,
    cases: (t) => [open('Range: bytes=0-0', header(t, 'range', 'bytes=0-0'), 'RFC 9110 14.2: a server MAY ignore Range'), open('If-None-Match: *', header(t, 'if-none-match', '*'), 'RFC 9110 13.1.2: a server may answer 304 or ignore it')],
  },
];

export const METHODS: readonly HttpOperator[] = [
  {
    id: 'method.head',
    family: 'method',
    sends: 'HEAD on a GET endpoint',
    peer: 'CATS HttpMethods; RFC 9110 9.3.2',
    applies: isGet,
    cases: (t) => [open('HEAD', http(t, (r) => (r.method = 'HEAD')), 'RFC 9110 9.3.2 describes HEAD; the descriptions do not list it')],
  },
  {
    id: 'method.options',
    family: 'method',
    sends: 'OPTIONS, then PATCH, on the endpoint path',
    peer: 'CATS HttpMethods / NonRestHttpMethods',
    applies: always,
    cases: (t) => [open('OPTIONS', http(t, (r) => ((r.method = 'OPTIONS'), delete r.json, delete r.rawBody)), 'methods the descriptions do not list are open'), open('PATCH', http(t, (r) => (r.method = 'PATCH')), 'methods the descriptions do not list are open')],
  },
  {
    id: 'method.unknown',
    scope: 'message',
    family: 'method',
    sends: 'the method in lower case, then a method no one defines (APICERT), then TRACE',
    peer: 'CATS CustomHttpMethods / NonRestHttpMethods; RFC 9110 9.1',
    raw: true,
    applies: always,
    cases: (t) => [
      open('lower-case method', raw(t, (r) => (r.method = r.method.toLowerCase())), 'RFC 9110 9.1: the method token is case-sensitive, so this is an unknown method: 501 is the named answer', [501]),
      open('APICERT', raw(t, (r) => (r.method = 'APICERT')), 'RFC 9110 9.1: an unrecognized method SHOULD get 501', [501]),
      open('TRACE', raw(t, (r) => ((r.method = 'TRACE'), delete r.body)), 'the descriptions do not list TRACE', [501]),
    ],
  },
];

export const PATHS: readonly HttpOperator[] = [
  {
    id: 'path.shape',
    family: 'path',
    sends: 'a trailing slash; deep: a doubled slash, upper case, a ;parameter',
    peer: 'CATS (path fuzzers); RFC 3986 3.3',
    applies: always,
    cases: (t) => [
      open('trailing slash', http(t, (r) => (r.path = r.path.replace(/(\?|$)/, '/$1'))), 'the descriptions do not say whether a trailing slash names the same resource'),
      open('doubled slash', http(t, (r) => (r.path = r.path.replace(/^\/(v[18])\//, '/$1//'))), 'the descriptions do not say how an empty segment is read'),
      open('upper case', http(t, (r) => (r.path = r.path.toUpperCase())), 'paths are case-sensitive: a 404 is expected, not stated'),
      open(';parameter', http(t, (r) => (r.path = `${r.path};apicert=1`)), 'path parameters are not part of the descriptions'),
    ],
  },
  {
    id: 'path.dot-segments',
    scope: 'message',
    family: 'path',
    sends: 'the path with ./ and an encoded %2e%2e/ segment, unnormalised',
    peer: 'CATS (path traversal); RFC 3986 5.2.4',
    raw: true,
    applies: always,
    cases: (t) => [
      open('/./ segment', raw(t, (r) => (r.target = r.target.replace(/^\/(v[18])\//, '/$1/./'))), 'RFC 3986 5.2.4 removes dot segments; whether a server does is not stated'),
      open('%2e%2e segment', raw(t, (r) => (r.target = r.target.replace(/^\/(v[18])\//, '/$1/apicert/%2e%2e/'))), 'RFC 3986 5.2.4 removes dot segments; whether a server does is not stated'),
    ],
  },
  {
    id: 'path.param-encoding',
    family: 'path',
    sends: 'a path parameter with an encoded slash, an encoded NUL, raw UTF-8, or 8 KiB long',
    peer: 'CATS (path parameter fuzzers)',
    raw: true,
    applies: hasParam,
    cases: (t) => {
      const at = (value: string) => (r: { target: string }) => (r.target = r.target.replace(/^(\/v[18]\/[^/]+\/)[^/?]+/, `$1${value}`));
      return [
        open('encoded slash', raw(t, at('apicert%2Fnothing')), 'a parameter that names nothing: 404 or 400 are legal'),
        open('encoded NUL', raw(t, at('apicert%00')), 'a parameter that names nothing: 404 or 400 are legal'),
        open('raw UTF-8 bytes', raw(t, at(Buffer.from('grüße', 'utf8').toString('latin1'))), 'RFC 9112 3.2: the target is ASCII; 400 or 404 are legal'),
        open('8 KiB', raw(t, at('a'.repeat(8192))), 'a server may limit the target (414)'),
      ];
    },
  },
];

export const QUERY: readonly HttpOperator[] = [
  {
    id: 'query.unknown',
    family: 'query',
    sends: 'an unknown parameter; deep: repeated, 8 KiB, array-style, empty, an encoded NUL, a bad escape',
    peer: 'CATS (query fuzzers); Schemathesis (unexpected query parameters)',
    applies: always,
    cases: (t) =>
      (
        [
          ['unknown parameter', 'apicert=1'],
          ['repeated parameter', 'apicert=1&apicert=2'],
          ['8 KiB parameter', `apicert=${'a'.repeat(8192)}`],
          ['array-style', 'apicert[]=1&apicert[0]=2'],
          ['empty name and value', '&=&'],
          ['encoded NUL', 'apicert=%00'],
          ['invalid escape', 'apicert=%zz'],
        ] as const
      ).map(([label, q]) => open(label, http(t, (r) => (r.path = withQuery(r.path, q))), 'none of these endpoints defines a query parameter; how others are read is not stated')),
  },
];

export const NEGOTIATION: readonly HttpOperator[] = [
  {
    id: 'negotiation.accept-any',
    family: 'negotiation',
    sends: 'Accept: */* where the endpoint answers JSON',
    peer: 'CATS (Accept headers); RFC 9110 12.5.1',
    applies: (t) => t.endpoint.success.body === 'json' && !t.endpoint.headers.some((h) => h.name === 'accept'),
    cases: (t) => [same('Accept: */*', header(t, 'accept', '*/*'), rfc9110('12.5.1', 'The asterisk "*" character is used to group media types into ranges, with "*/*" indicating all media types'))],
  },
  {
    id: 'negotiation.accept-other',
    family: 'negotiation',
    sends: 'Accept: image/png; deep: application/json;q=0, a malformed Accept, Accept-Charset: utf-16',
    peer: 'CATS (unsupported Accept); Schemathesis (negotiation)',
    applies: (t) => t.endpoint.success.body !== 'sse',
    cases: (t) => [
      open('Accept: image/png', header(t, 'accept', 'image/png'), 'RFC 9110 12.5.1: a server may answer 406 or disregard Accept'),
      open('application/json;q=0', header(t, 'accept', 'application/json;q=0'), 'RFC 9110 12.5.1: a server may answer 406 or disregard Accept'),
      open('malformed Accept', header(t, 'accept', ';;/,'), 'the descriptions do not say how a malformed Accept is read'),
      open('Accept-Charset: utf-16', header(t, 'accept-charset', 'utf-16'), 'RFC 9110 12.5.2: a server may disregard it'),
    ],
  },
];

export const CREDENTIALS: readonly HttpOperator[] = [
  {
    id: 'credentials.scheme-case',
    family: 'credentials',
    sends: 'the scheme as "bearer"; deep: "BEARER"',
    peer: 'RFC 9110 11.1, RFC 6750 2.1',
    applies: always,
    cases: (t) => [same('bearer <token>', withAuthorization(t, `bearer ${t.credential.token}`), SCHEME_CASE), same('BEARER <token>', withAuthorization(t, `BEARER ${t.credential.token}`), SCHEME_CASE)],
  },
  {
    id: 'credentials.spacing',
    scope: 'message',
    family: 'credentials',
    sends: 'two spaces after the scheme; deep: trailing whitespace after the token',
    peer: 'RFC 9110 11.4, 5.5',
    applies: always,
    cases: (t) => [
      same('two spaces after Bearer', withAuthorization(t, `Bearer  ${t.credential.token}`), rfc9110('11.4', 'credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ]')),
      same('trailing whitespace', withAuthorization(t, `Bearer ${t.credential.token} \t`), rfc9110('5.5', 'a field parsing implementation MUST exclude such whitespace prior to evaluating the field value')),
    ],
  },
  {
    id: 'credentials.elsewhere',
    scope: 'message',
    family: 'credentials',
    sends: 'the token only in the query (access_token); deep: only in a cookie',
    peer: 'CATS (auth placement); RFC 6750 2.3',
    raw: true,
    applies: always,
    cases: (t) => {
      const query = raw(t, (r) => (r.place = { query: 'access_token' }));
      const cookie = raw(t, (r) => (r.place = { cookie: 'access_token' }));
      // /v1 shows only an "Example header shape": RFC 6750 2.3 lets a resource server take the token from the query ("MAY support"), and nothing speaks of cookies.
      if (t.surface === 'v1') return [open('token only in the query', query, 'RFC 6750 2.3: "Resource servers MAY support this method"; /v1 gives only an example header shape'), open('token only in a cookie', cookie, '/v1 gives only an example header shape: where else a key may be read is not stated')];
      // /v8 states the header, so a token elsewhere is no credential and the request is refused; but an unknown query parameter or a
      // cookie is an open cause a deployment may refuse first (query.unknown), with another status than the 401 of a missing token.
      return [stated('token only in the query', query, 'refuse', HEADER_REQUIRED.v8), stated('token only in a cookie', cookie, 'refuse', HEADER_REQUIRED.v8)];
    },
  },
  {
    id: 'credentials.tampered',
    family: 'credentials',
    sends: 'a token of the same shape that the deployment never issued; deep: the token with a NUL appended',
    peer: 'CATS (invalid auth values); Schemathesis ignored_auth',
    applies: always,
    cases: (t) => {
      const token = t.credential.token;
      // Only the shape is kept (a prefix of letters and underscores), so no part of the secret is ever sent or shown.
      const prefix = /^[A-Za-z]+_(?:[A-Za-z]+_)?/.exec(token)?.[0] ?? '';
      const forged = `${prefix}${'A'.repeat(Math.max(8, token.length - prefix.length))}`;
      const because = TOKEN_FORM[t.surface];
      return [
        stated('a forged token of the same shape', withAuthorization(t, `Bearer ${forged}`), 'refuse', because),
        open('NUL after the token', raw(t, (r) => (r.place = { header: 'Authorization', after: '\u0000' })), 'RFC 9110 5.5: a NUL in a field value is refused or replaced'),
      ];
    },
  },
];
