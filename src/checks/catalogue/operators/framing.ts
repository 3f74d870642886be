/** The message framing (RFC 9112): forms undici will not write, so every one goes on a raw socket. */
import { hasBody, open, raw, same, stated } from '../build.ts';
import { standard } from '../../../contract/sentence.ts';
import type { HttpOperator } from '../types.ts';

const rfc = (section: string, sentence: string) => standard('RFC 9112', `§${section}`, sentence);
/** RFC 9112 §6.3: "A server MAY reject a request that contains a message body but not a Content-Length by responding with 411 (Length Required)." */
const LENGTH_REQUIRED: readonly number[] = [411];
const HOST_400 = rfc('3.2', 'A server MUST respond with a 400 (Bad Request) status code to any HTTP/1.1 request message that lacks a Host header field and to any request message that contains more than one Host header field line or a Host header field with an invalid field value.');

function chunked(body: string, extension = '', trailer = ''): string {
  return `${Buffer.byteLength(body).toString(16)}${extension}\r\n${body}\r\n0\r\n${trailer}\r\n`;
}

export const FRAMING: readonly HttpOperator[] = [
  {
    id: 'framing.missing-host',
    scope: 'message',
    family: 'framing',
    sends: 'an HTTP/1.1 request without a Host header',
    peer: 'CATS RemoveHeaders (Host); RFC 9112 3.2',
    raw: true,
    applies: () => true,
    cases: (t) => [stated('no Host header', raw(t, (r) => (r.omitHost = true)), 'refuse', HOST_400, 400)],
  },
  {
    id: 'framing.duplicate-host',
    scope: 'message',
    family: 'framing',
    sends: 'two Host header lines naming different hosts',
    peer: 'CATS DuplicateHeaders; RFC 9112 3.2',
    raw: true,
    applies: () => true,
    cases: (t) => [stated('two Host lines', raw(t, (r) => r.headers.unshift(['Host', 'apicert.invalid'], ['Host', 'apicert-2.invalid'])), 'refuse', HOST_400, 400)],
  },
  {
    id: 'framing.space-before-colon',
    scope: 'message',
    family: 'framing',
    sends: 'a header line with whitespace between the field name and the colon',
    peer: 'CATS MalformedHeaders; RFC 9112 5.1',
    raw: true,
    applies: () => true,
    cases: (t) => [
      stated(
        '"X-Apicert-Probe : 1"',
        raw(t, (r) => r.headers.push(['X-Apicert-Probe ', '1'])),
        'refuse',
        rfc('5.1', 'A server MUST reject, with a response status code of 400 (Bad Request), any received request message that contains whitespace between a header field name and colon.'),
        400,
      ),
    ],
  },
  {
    id: 'framing.obs-fold',
    scope: 'message',
    family: 'framing',
    sends: 'a header value folded onto a second line (obs-fold)',
    peer: 'RFC 9112 5.2',
    raw: true,
    applies: () => true,
    cases: (t) => [open('a folded X-Apicert-Probe', raw(t, (r) => r.headers.push(['X-Apicert-Probe', 'one\r\n two'])), 'RFC 9112 5.2: a server either rejects an obs-fold with 400 or replaces it with SP; both are legal')],
  },
  {
    id: 'framing.bare-lf',
    scope: 'message',
    family: 'framing',
    sends: 'the head with bare LF line endings',
    peer: 'RFC 9112 2.2',
    raw: true,
    applies: () => true,
    cases: (t) => [open('LF line endings', raw(t, (r) => (r.lineEnd = '\n')), 'RFC 9112 2.2: a recipient MAY recognize a single LF as a line terminator')],
  },
  {
    id: 'framing.http10',
    scope: 'message',
    family: 'framing',
    sends: 'the request as HTTP/1.0',
    peer: 'RFC 9112 2.3',
    raw: true,
    applies: () => true,
    cases: (t) => [open('HTTP/1.0', raw(t, (r) => (r.version = 'HTTP/1.0')), 'the descriptions do not say which HTTP versions a deployment serves')],
  },
  {
    id: 'framing.absolute-form',
    scope: 'message',
    family: 'framing',
    sends: 'the request-target in absolute form (http://host/path)',
    peer: 'RFC 9112 3.2.2',
    raw: true,
    applies: () => true,
    cases: (t) => [
      same('absolute-form target',
        raw(t, (r) => (r.target = `{origin}${r.target}`)),
        rfc('3.2.2', 'a server MUST accept the absolute-form in requests even though most HTTP/1.1 clients will only send the absolute-form to a proxy.')),
    ],
  },
  {
    id: 'framing.nul-in-header',
    scope: 'message',
    family: 'framing',
    sends: 'a NUL byte inside an undocumented header value',
    peer: 'CATS ZeroWidthCharsInValuesHeaders / control chars in headers; RFC 9110 5.5',
    raw: true,
    applies: () => true,
    cases: (t) => [open('NUL in X-Apicert-Probe', raw(t, (r) => r.headers.push(['X-Apicert-Probe', 'a\u0000b'])), 'RFC 9110 5.5: a recipient of NUL in a field value either rejects the message or replaces it with SP')],
  },
  {
    id: 'framing.duplicate-content-length',
    family: 'framing',
    sends: 'two Content-Length lines with different values',
    peer: 'CATS DuplicateHeaders (Content-Length), request smuggling; RFC 9112 6.3',
    raw: true,
    applies: hasBody,
    cases: (t) => [
      stated(
        'Content-Length twice, different',
        raw(t, (r) => {
          const n = Buffer.byteLength(String(r.body ?? ''));
          r.headers.push(['Content-Length', String(n)], ['Content-Length', String(n + 1)]);
        }),
        'refuse',
        rfc('6.3', 'If a message is received without Transfer-Encoding and with an invalid Content-Length header field, then the message framing is invalid and the recipient MUST treat it as an unrecoverable error, unless the field value can be successfully parsed as a comma-separated list'),
      ),
    ],
  },
  {
    id: 'framing.invalid-content-length',
    scope: 'message',
    family: 'framing',
    sends: 'one Content-Length line whose value is not a number (1a)',
    peer: 'CATS InvalidContentLength / DummyContentLength; RFC 9112 6.3',
    raw: true,
    applies: hasBody,
    cases: (t) => [
      stated(
        'Content-Length: 1a',
        raw(t, (r) => r.headers.push(['Content-Length', '1a'])),
        'refuse',
        rfc(
          '6.3',
          'If a message is received without Transfer-Encoding and with an invalid Content-Length header field, then the message framing is invalid and the recipient MUST treat it as an unrecoverable error … If the unrecoverable error is in a request message, the server MUST respond with a 400 (Bad Request) status code and then close the connection.',
        ),
        400,
      ),
    ],
  },
  {
    id: 'framing.chunked',
    family: 'framing',
    sends: 'the body in the chunked transfer coding, with a chunk extension and a trailer field',
    peer: 'RFC 9112 7.1, 7.1.1, 7.1.2',
    raw: true,
    applies: hasBody,
    cases: (t) => [
      same('chunked, with a chunk extension and a trailer',
        raw(t, (r) => {
          r.headers.push(['Transfer-Encoding', 'chunked']);
          r.body = chunked(String(r.body ?? ''), ';apicert=1', 'X-Apicert-Trailer: 1\r\n');
        }),
        rfc('7.1.1', 'A recipient MUST ignore unrecognized chunk extensions.')),
      same('chunked, plain', raw(t, (r) => (r.headers.push(['Transfer-Encoding', 'chunked']), (r.body = chunked(String(r.body ?? ''))))), rfc('7.1', 'A recipient MUST be able to parse the chunked transfer coding')),
    ].map((c) => ({ ...c, permits: LENGTH_REQUIRED })),
  },
  {
    id: 'framing.content-length-and-chunked',
    family: 'framing',
    sends: 'Content-Length and Transfer-Encoding: chunked together',
    peer: 'request smuggling (CL.TE); RFC 9112 6.1',
    raw: true,
    applies: hasBody,
    cases: (t) => [
      open(
        'Content-Length with chunked',
        raw(t, (r) => {
          const body = chunked(String(r.body ?? ''));
          r.headers.push(['Content-Length', String(Buffer.byteLength(body))], ['Transfer-Encoding', 'chunked']);
          r.body = body;
        }),
        'RFC 9112 6.1: a server MAY reject a request with both, or process it by Transfer-Encoding alone',
      ),
    ],
  },
  {
    id: 'framing.unknown-transfer-coding',
    family: 'framing',
    sends: 'Transfer-Encoding: x-apicert, chunked',
    peer: 'RFC 9112 6.1',
    raw: true,
    applies: hasBody,
    cases: (t) => [
      open(
        'an unknown transfer coding',
        raw(t, (r) => (r.headers.push(['Transfer-Encoding', 'x-apicert, chunked']), (r.body = chunked(String(r.body ?? ''))))),
        'RFC 9112 6.1: a server that does not understand a transfer coding SHOULD respond 501 (named, so not a server error here)',
        [501],
      ),
    ],
  },
];
