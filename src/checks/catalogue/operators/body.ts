/** The body: its content coding and charset (RFC 9110 8.3, 8.4), and the JSON text itself (RFC 8259, I-JSON RFC 7493). */
import { gzipSync } from 'node:zlib';
import { bodyOf, hasBody, http, MIB_OF_A, open, raw, same, stated } from '../build.ts';
import { standard, V8 } from '../../../contract/sentence.ts';
import type { HttpOperator, HttpTarget } from '../types.ts';

const rfc8259 = (section: string, sentence: string) => standard('RFC 8259', `§${section}`, sentence);
/** The one sentence that names a refusal of JSON that is not JSON; elsewhere RFC 8259 §9: "A JSON parser MAY accept non-JSON forms or extensions." */
const MALFORMED = V8('Errors', '`400` missing fields, budget out of range, malformed JSON');

function namesMalformed(t: HttpTarget): boolean {
  return t.endpoint.method === 'POST' && t.endpoint.path === '/v8/missions';
}

/**
 * The value as JSON text with whitespace around every structural character (newlines, tabs, a space
 * and a tab around each name separator), and none inside a string: replacing every ':' of the text
 * also changed the strings that hold one (a receiver URL `http://host:port` became another URL).
 */
function spaced(value: unknown, indent: string): string {
  const inner = `${indent}\t`;
  if (Array.isArray(value)) return value.length === 0 ? '[ ]' : `[\n${value.map((v) => `${inner}${spaced(v, inner)}`).join(' ,\n')}\n${indent}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value);
    return members.length === 0 ? '{ }' : `{\n${members.map(([name, v]) => `${inner}${JSON.stringify(name)} \t: ${spaced(v, inner)}`).join(' ,\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

/**
 * The body with its first member written again in front: the same name twice, whatever its value (a
 * pattern over the text repeated only a string or a number, and sent an object-led body such as a
 * mission's `goalSpec` unchanged, as if it were the duplicate).
 */
function withFirstMemberRepeated(body: string): string {
  const value = JSON.parse(body) as Record<string, unknown>;
  const name = Object.keys(value)[0]!;
  return `{${JSON.stringify(name)}:${JSON.stringify(value[name])},${body.slice(1)}`;
}

function notJson(t: HttpTarget, label: string, text: (body: string) => string) {
  const sent = http(t, (r) => (delete r.json, (r.rawBody = text(bodyOf(t.base)!))));
  return namesMalformed(t) ? stated(label, sent, 'refuse', MALFORMED, 400) : open(label, sent, 'RFC 8259 §9: "A JSON parser MAY accept non-JSON forms or extensions"');
}

/** The same JSON value with every ASCII letter of every string value written as a \u escape. */
export function escapedJson(value: unknown): string {
  if (typeof value === 'string') return `"${[...value].map((ch) => (/[A-Za-z]/.test(ch) ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}` : JSON.stringify(ch).slice(1, -1))).join('')}"`;
  if (Array.isArray(value)) return `[${value.map(escapedJson).join(',')}]`;
  if (value && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${escapedJson(v)}`).join(',')}}`;
  return JSON.stringify(value);
}

export const ENCODING: readonly HttpOperator[] = [
  {
    id: 'encoding.gzip',
    family: 'encoding',
    sends: 'the body gzip-compressed with Content-Encoding: gzip',
    peer: 'CATS (content encodings); RFC 9110 8.4',
    raw: true,
    applies: hasBody,
    cases: (t) => [open('gzip body', raw(t, (r) => (r.headers.push(['Content-Encoding', 'gzip']), (r.body = gzipSync(Buffer.from(String(r.body)))))), 'RFC 9110 8.4: an origin server MAY answer 415 for a content coding it does not accept')],
  },
  {
    id: 'encoding.unknown-coding',
    family: 'encoding',
    sends: 'Content-Encoding: x-apicert over a plain body',
    peer: 'RFC 9110 8.4',
    applies: hasBody,
    cases: (t) => [open('Content-Encoding x-apicert', http(t, (r) => (r.headers = { ...r.headers, 'content-encoding': 'x-apicert' })), 'RFC 9110 8.4: 415 is one legal answer, decoding another')],
  },
  {
    id: 'encoding.media-type-case',
    family: 'encoding',
    sends: 'Content-Type: Application/JSON',
    peer: 'RFC 9110 8.3.1',
    applies: hasBody,
    cases: (t) => [same('Application/JSON', http(t, (r) => (r.headers = { ...r.headers, 'content-type': 'Application/JSON' })), standard('RFC 9110', '§8.3.1', 'The type and subtype tokens are case-insensitive.'))],
  },
  {
    id: 'encoding.charset',
    family: 'encoding',
    sends: 'the JSON body as UTF-16 labelled charset=utf-16; then a UTF-8 body labelled iso-8859-1',
    peer: 'CATS (charsets); RFC 8259 8.1',
    raw: true,
    applies: hasBody,
    cases: (t) => [
      open('UTF-16 body', raw(t, (r) => ((r.headers = r.headers.filter(([n]) => n.toLowerCase() !== 'content-type')), r.headers.push(['Content-Type', 'application/json; charset=utf-16']), (r.body = Buffer.from(`\ufeff${String(r.body)}`, 'utf16le')))), 'RFC 8259 8.1: JSON exchanged between systems MUST be UTF-8; refusing UTF-16 and reading it are both legal'),
      open('charset=iso-8859-1', http(t, (r) => (r.headers = { ...r.headers, 'content-type': 'application/json; charset=iso-8859-1' })), 'the descriptions do not say how a charset parameter other than UTF-8 is handled'),
    ],
  },
  {
    id: 'encoding.invalid-utf8',
    family: 'encoding',
    sends: 'a body whose string value holds a byte that is not UTF-8 (0xFF)',
    peer: 'CATS (invalid byte sequences); I-JSON RFC 7493 2.1',
    raw: true,
    applies: (t) => hasBody(t) && /"[^"]*":\s*"/.test(bodyOf(t.base) ?? ''),
    cases: (t) => [
      open(
        '0xFF in a string',
        raw(t, (r) => {
          const text = String(r.body);
          const at = text.search(/":\s*"/) + 3;
          r.body = Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xff]), Buffer.from(text.slice(at))]);
        }),
        'I-JSON 2.1 forbids it; a recipient may refuse or replace it',
      ),
    ],
  },
  {
    id: 'encoding.no-content-type',
    family: 'encoding',
    sends: 'the JSON body without a Content-Type header',
    peer: 'CATS RemoveHeaders (Content-Type)',
    raw: true,
    applies: hasBody,
    cases: (t) => [open('no Content-Type', raw(t, (r) => (r.headers = r.headers.filter(([n]) => n.toLowerCase() !== 'content-type'))), 'the descriptions do not say whether a body without a media type is read')],
  },
];

export const JSON_TEXT: readonly HttpOperator[] = [
  {
    id: 'json-text.whitespace',
    family: 'json-text',
    sends: 'the body with tabs, newlines and spaces around every structural character',
    peer: 'RFC 8259 2',
    applies: hasBody,
    cases: (t) => [same('insignificant whitespace', http(t, (r) => (delete r.json, (r.rawBody = `\n\t ${spaced(t.base.json ?? JSON.parse(bodyOf(t.base)!), '')} \r\n`))), rfc8259('2', 'Insignificant whitespace is allowed before or after any of the six structural characters.')),],
  },
  {
    id: 'json-text.unicode-escapes',
    family: 'json-text',
    sends: 'every ASCII letter of every string value as a \\u escape (the same value)',
    peer: 'CATS (unicode escapes); RFC 8259 7',
    applies: hasBody,
    cases: (t) => [same('\\u-escaped letters', http(t, (r) => (delete r.json, (r.rawBody = escapedJson(t.base.json ?? JSON.parse(bodyOf(t.base)!))))), rfc8259('7', 'Any character may be escaped.')),],
  },
  {
    id: 'json-text.bom',
    family: 'json-text',
    sends: 'a UTF-8 byte order mark before the JSON text',
    peer: 'RFC 8259 8.1',
    applies: hasBody,
    cases: (t) => [open('UTF-8 BOM', http(t, (r) => (delete r.json, (r.rawBody = `\ufeff${bodyOf(t.base)!}`))), 'RFC 8259 8.1: a parser MAY ignore a byte order mark rather than treating it as an error')],
  },
  {
    id: 'json-text.duplicate-key',
    family: 'json-text',
    sends: 'the first member of the body repeated',
    peer: 'CATS (duplicate keys); RFC 8259 4, I-JSON 2.3',
    applies: (t) => hasBody(t) && /^\{"/.test(bodyOf(t.base)!),
    cases: (t) => [open('a repeated member', http(t, (r) => (delete r.json, (r.rawBody = withFirstMemberRepeated(bodyOf(t.base)!)))), 'RFC 8259 4: names SHOULD be unique; I-JSON refuses them: both readings are legal')],
  },
  {
    id: 'json-text.not-json',
    family: 'json-text',
    sends: 'near-JSON: a trailing comma; deep: a comment, single quotes, NaN, trailing garbage, two texts',
    peer: 'CATS MalformedJson / Schemathesis (malformed bodies); RFC 8259 2',
    applies: hasBody,
    cases: (t) => [
      notJson(t, 'a trailing comma', (b) => b.replace(/\}$/, ',}')),
      notJson(t, 'a comment', (b) => `/* apicert */${b}`),
      notJson(t, 'single quotes', (b) => b.replace(/"/g, "'")),
      notJson(t, 'NaN', (b) => b.replace(/\}$/, ',"apicert":NaN}')),
      notJson(t, 'trailing garbage', (b) => `${b}x`),
      notJson(t, 'two JSON texts', (b) => `${b}${b}`),
    ],
  },
  {
    id: 'json-text.deep-nesting',
    family: 'json-text',
    sends: 'an extra member holding arrays nested 2,000 deep',
    peer: 'CATS (very large / nested payloads); RFC 8259 9',
    applies: (t) => hasBody(t) && /^\{/.test(bodyOf(t.base)!),
    cases: (t) => [open('2,000 nested arrays', http(t, (r) => (delete r.json, (r.rawBody = bodyOf(t.base)!.replace(/^\{/, `{"apicert":${'['.repeat(2000)}${']'.repeat(2000)}${bodyOf(t.base) === '{}' ? '' : ','}`)))), 'RFC 8259 9: an implementation may limit the depth of nesting')],
  },
  {
    id: 'json-text.large-body',
    family: 'json-text',
    sends: 'an extra member holding a 1 MiB string',
    peer: 'CATS VeryLargeStrings / LargeValues; RFC 8259 9',
    applies: (t) => hasBody(t) && /^\{/.test(bodyOf(t.base)!),
    cases: (t) => {
      const body = bodyOf(t.base)!;
      // Joined, not `replace`d in: a replacement is read whole for `$` patterns and the result copied, a MiB each time.
      return [open('a 1 MiB member', http(t, (r) => (delete r.json, (r.rawBody = `{"apicert":"${MIB_OF_A}"${body === '{}' ? '' : ','}${body.slice(1)}`))), 'RFC 8259 9: an implementation may limit the size of texts it accepts (413 or 400)')];
    },
  },
];
