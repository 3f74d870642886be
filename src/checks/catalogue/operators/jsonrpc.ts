/** /mcp: the JSON-RPC envelope (JSON-RPC 2.0, MCP Base Protocol), each method's params, and the session header. */
import { MCP, sentenceText, standard, type Sentence } from '../../../contract/sentence.ts';
import { parseJson } from '../../../probe/body.ts';
import { isRecord } from '../../../util/json.ts';
import type { Expectation, SentRequest } from '../../generated/expectation.ts';
import { expectationText, rpcMessages, type Answer, type Finding } from '../../generated/judgement.ts';
import { MIB_OF_A } from '../build.ts';
import type { McpCase, McpOperator } from '../types.ts';
import { VALUE_WHITESPACE } from './message.ts';

const jsonrpc = (section: string, sentence: string): Sentence => standard('JSON-RPC 2.0', `§${section}`, sentence);
const INTEGER_ID = MCP('Base Protocol', 'Requests MUST include a string or integer ID.');
const SAME_ID = MCP('Base Protocol', 'Responses MUST include the same ID as the request they correspond to. Either a result or an error MUST be set. A response MUST NOT set both.');
/** What requires a ping to be served (SAME_ID allows an error as well). */
const PING_ANSWERED = MCP('Utilities > Ping > Behavior Requirements', 'The receiver MUST respond promptly with an empty response');
/** RFC 8259 §9, which the /v1 and /v8 catalogue reads the same way (json-text.not-json). */
const EXTENSIONS = 'RFC 8259 §9: "A JSON parser MAY accept non-JSON forms or extensions"; JSON-RPC\'s -32700 names the code for text the server could not parse, not that it must not';

const ping = (id: unknown, extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'ping', ...extra });
const call = (id: string, params: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });
const rejected = (label: string, json: unknown, because: Sentence): McpCase => ({ label, body: { json }, stated: { kind: 'refuse', because } });
/** Refused by a JSON-RPC error, or reported as a tool execution error (a result with `isError: true`). */
const toolRefused = (label: string, json: unknown, because: Sentence): McpCase => ({ label, body: { json }, stated: { kind: 'refuse', because, orToolError: true } });

/**
 * MCP 2025-03-26, Server Features > Tools (a page spec/ does not hold): neither list is a MUST, but
 * arguments a tool's input schema refuses are one of the two errors, never a plain success, as
 * servers "MUST: Validate all tool inputs".
 */
const TOOL_ERRORS = standard(
  'MCP 2025-03-26 Server Features > Tools',
  '§Error Handling, §Security Considerations',
  'Protocol Errors: Standard JSON-RPC errors for issues like: … Invalid arguments … Tool Execution Errors: Reported in tool results with isError: true: … Invalid input data … Servers MUST: Validate all tool inputs',
);

/**
 * The error-status finding of a case stated `orToolError`: a tool result with `isError: true`
 * carrying the request's id is a refusal as well; any other answer keeps the judgement's finding,
 * and a plain success is named for what it is not.
 */
export function toolErrorFinding(sent: SentRequest, e: Expectation, answer: Answer, finding: Finding): Finding {
  if (finding.ok || answer.malformed || answer.status >= 300) return finding;
  const request = sent.body === undefined ? undefined : parseJson(sent.body);
  const id = isRecord(request) ? request.id : undefined;
  const toolError = rpcMessages(answer).some((m) => isRecord(m) && m.id === id && isRecord(m.result) && m.result.isError === true);
  if (toolError) return { ok: true, reason: '' };
  return { ok: false, reason: `${sent.method} /mcp answered ${answer.status}, neither a JSON-RPC error nor a tool result with isError: true carrying the request's id ${JSON.stringify(id)}; expected: ${expectationText(e)}` };
}
const answered = (label: string, body: McpCase['body'], because: Sentence): McpCase => ({ label, body, stated: { kind: 'accept', because } });
const opened = (label: string, body: McpCase['body'], why: string, extra: Partial<McpCase> = {}): McpCase => ({ label, body, why, ...extra });

export const MCP_OPERATORS: readonly McpOperator[] = [
  {
    id: 'jsonrpc.id-forms',
    family: 'jsonrpc',
    sends: 'ping with a fractional id; deep: a null id, a 10,000-character id, a negative id',
    peer: 'CATS (id fuzzing); JSON-RPC 2.0 4',
    cases: () => [
      // "Requests MUST include a string or integer ID" binds the requester: JSON-RPC 2.0 §4 allows a Number or Null id, which a server may serve.
      opened('id 1.5', { json: ping(1.5) }, `JSON-RPC 2.0 §4 allows a fractional id; MCP binds only the client (${sentenceText(INTEGER_ID)})`),
      opened('id null', { json: ping(null) }, `JSON-RPC 2.0 §4 allows a null id; MCP binds only the client (${sentenceText(INTEGER_ID)})`),
      // An error echoing the id is as legal an answer as the result: mcp.jsonrpc.id-echoed judges the echo.
      opened('a 10,000-character id', { json: ping(`apicert-${'i'.repeat(10_000)}`) }, `no sentence bounds an id's length, and none forbids a server to limit it (${sentenceText(SAME_ID)})`),
      answered('a negative id', { json: ping(-7) }, PING_ANSWERED),
    ],
  },
  {
    id: 'jsonrpc.method-name',
    family: 'jsonrpc',
    sends: 'an unknown method; deep: PING in upper case, rpc.discover',
    peer: 'CATS (unknown operations); JSON-RPC 2.0 5.1 (-32601)',
    cases: () => [
      rejected('unknown method', { jsonrpc: '2.0', id: 'apicert-unknown-method', method: 'apicert/unknown' }, jsonrpc('5.1', '-32601 Method not found: The method does not exist / is not available.')),
      opened('PING', { json: { jsonrpc: '2.0', id: 'apicert-upper', method: 'PING' } }, 'JSON-RPC does not say whether method names are case-sensitive'),
      opened('rpc.discover', { json: { jsonrpc: '2.0', id: 'apicert-rpc', method: 'rpc.discover' } }, 'JSON-RPC 2.0 4: rpc.* names are reserved; what a server answers is not stated'),
    ],
  },
  {
    id: 'jsonrpc.envelope-extra',
    family: 'jsonrpc',
    sends: 'ping with an unknown envelope member; deep: a request that also carries result',
    peer: 'CATS NewFields; Schemathesis (additional properties)',
    cases: () => [
      opened('unknown member', { json: ping('apicert-extra', { apicert: 1 }) }, 'JSON-RPC 2.0 does not say whether unknown members are refused'),
      opened('request with result', { json: ping('apicert-result', { result: {} }) }, 'neither a request nor a response: JSON-RPC leaves the answer to the server'),
    ],
  },
  {
    id: 'jsonrpc.json-text',
    family: 'jsonrpc',
    sends: 'ping written with insignificant whitespace and \\u escapes; deep: a trailing comma, a duplicate id member',
    peer: 'RFC 8259 2, 7; JSON-RPC 2.0 5.1 (-32700)',
    cases: () => [
      answered('whitespace and \\u escapes', { rawBody: '\n{ "jsonrpc" : "2.0" ,\t"id" : "apicert-\\u0065scaped" , "method" : "\\u0070ing" }\n' }, PING_ANSWERED),
      opened('a trailing comma', { rawBody: '{"jsonrpc":"2.0","id":"apicert-comma","method":"ping",}' }, EXTENSIONS),
      opened('a duplicate id member', { rawBody: '{"jsonrpc":"2.0","id":"apicert-a","id":"apicert-b","method":"ping"}' }, 'RFC 8259 4: duplicate names are not forbidden; which one a server reads is not stated'),
    ],
  },
  {
    id: 'jsonrpc.batch',
    family: 'jsonrpc',
    sends: 'a batch of a number; deep: a batch of two pings sharing an id (the empty batch is mcp.batch.empty\'s)',
    peer: 'JSON-RPC 2.0 6',
    cases: () => [
      // The empty batch is mcp.batch.empty's: its sentence is judged there once.
      rejected('a batch of a number', [1], jsonrpc('6', 'rpc call with an invalid Batch (but not empty): an Invalid Request error for each element')),
      opened('two pings sharing an id', { json: [ping('apicert-twice'), ping('apicert-twice')] }, 'MCP forbids reusing an id; what a server answers to it is not stated'),
    ],
  },
  {
    id: 'jsonrpc.notification',
    family: 'jsonrpc',
    sends: 'an unknown notification; deep: a response to a request never sent',
    peer: 'MCP Streamable HTTP (202)',
    cases: () => [
      opened('unknown notification', { json: { jsonrpc: '2.0', method: 'notifications/apicert' } }, 'MCP: 202 when accepted, an HTTP error when not; both are legal'),
      opened('a stray response', { json: { jsonrpc: '2.0', id: 'apicert-never-sent', result: {} } }, 'MCP: 202 when accepted, an HTTP error when not; both are legal', {
        allowedBy: MCP('Transports > Streamable HTTP > Sending Messages to the Server', 'A single JSON-RPC request, notification, or response'),
      }),
    ],
  },
  {
    id: 'mcp-params.tools-call',
    family: 'mcp-params',
    sends: 'tools/call with arguments as a string; deep: an array, null, a number, no name, an unknown tool, 1 MiB of arguments',
    peer: 'CATS (field type fuzzers) on params; Schemathesis negative types; JSON-RPC 2.0 5.1 (-32602)',
    cases: (tool) => {
      const name = tool?.name ?? 'apicert-no-such-tool';
      const invalid = jsonrpc('5.1', '-32602 Invalid params: Invalid method parameter(s).');
      return [
        // Arguments the tool cannot take: "Invalid arguments" (a protocol error) or "Invalid input data" (a tool execution error).
        toolRefused('arguments a string', call('apicert-args-string', { name, arguments: 'apicert' }), TOOL_ERRORS),
        toolRefused('arguments an array', call('apicert-args-array', { name, arguments: [] }), TOOL_ERRORS),
        toolRefused('arguments null', call('apicert-args-null', { name, arguments: null }), TOOL_ERRORS),
        toolRefused('arguments a number', call('apicert-args-number', { name, arguments: 1 }), TOOL_ERRORS),
        // No tool to run, so no tool result: the params themselves are invalid.
        rejected('no tool name', call('apicert-no-name', { arguments: {} }), invalid),
        opened('an unknown tool', { json: call('apicert-unknown-tool', { name: 'apicert-no-such-tool', arguments: {} }) }, 'MCP answers an unknown tool with an error; the revision under test does not state its form'),
        opened('1 MiB of arguments', { json: call('apicert-huge', { name, arguments: { apicert: MIB_OF_A } }) }, 'a server may limit message size'),
      ];
    },
  },
  {
    id: 'mcp-params.wrong-types',
    family: 'mcp-params',
    sends: 'tools/list with a cursor that was never issued; deep: ping with params, initialize inside a session with a numeric protocolVersion',
    peer: 'Schemathesis negative types; MCP pagination',
    cases: () => [
      opened('an unknown cursor', { json: { jsonrpc: '2.0', id: 'apicert-cursor', method: 'tools/list', params: { cursor: 'apicert-not-a-cursor' } } }, 'MCP: invalid cursors SHOULD get -32602 (a SHOULD, so open)'),
      opened('ping with params', { json: ping('apicert-ping-params', { params: { apicert: 1 } }) }, 'ping takes no params; extra ones are not said to be refused'),
      opened('initialize again, protocolVersion 123', { json: { jsonrpc: '2.0', id: 'apicert-reinit', method: 'initialize', params: { protocolVersion: 123, capabilities: {}, clientInfo: { name: 'apicert', version: '0' } } } }, 'a second initialize in a session is not described'),
    ],
  },
  {
    id: 'mcp-params.session-header',
    family: 'mcp-params',
    sends: 'ping with an Mcp-Session-Id that was never issued; deep: none, one with a space',
    peer: 'MCP Streamable HTTP, Session Management',
    cases: () => [
      opened('an unknown session id', { json: ping('apicert-unknown-session') }, 'MCP: 404 is owed for a terminated session; an id never issued may get 400 or 404', { session: 'apicert-never-issued-session' }),
      opened('no session id', { json: ping('apicert-no-session') }, 'MCP: servers that require a session SHOULD answer 400 (a SHOULD, so open)', { session: null }),
      opened('a session id with a space', { json: ping('apicert-bad-session') }, 'MCP: session ids are visible ASCII; how a server reads another is not stated', { session: 'apicert bad session' }),
    ],
  },
  {
    id: 'mcp-params.value-whitespace',
    family: 'mcp-params',
    sends: 'ping with spaces and tabs around the Accept and Content-Type values',
    peer: 'CATS (leading and trailing spaces in header values); RFC 9110 5.5',
    cases: () => [
      {
        label: 'SP and HTAB around Accept and Content-Type',
        body: { json: ping('apicert-padded-values') },
        headers: { accept: ' \tapplication/json, text/event-stream \t', 'content-type': ' \tapplication/json \t' },
        same: VALUE_WHITESPACE,
      },
    ],
  },
  {
    id: 'mcp-params.media-types',
    family: 'mcp-params',
    sends: 'ping with Accept: application/json only; deep: Content-Type text/plain',
    peer: 'CATS (Accept / Content-Type fuzzers)',
    cases: () => [
      opened('Accept: application/json only', { json: ping('apicert-accept-json') }, 'MCP asks the client for both types; what a server does without one is not stated', { headers: { accept: 'application/json' } }),
      opened('Content-Type text/plain', { json: ping('apicert-text-plain') }, 'the transport does not say how another media type is read', { headers: { 'content-type': 'text/plain' } }),
    ],
  },
];
