/** /mcp (Streamable HTTP): JSON-RPC messages as recorded, in JSON answers and in event streams. */
import { initializeResult } from '../../contract/mcp/lifecycle.ts';
import { isResponseLike, jsonrpcResponse } from '../../contract/mcp/jsonrpc.ts';
import { SESSION_HEADER, VISIBLE_ASCII } from '../../contract/mcp/transport.ts';
import { isRecord, parseJson } from '../../util/json.ts';
import { mediaType, type TrafficExchange } from '../exchange.ts';
import { operationOf } from '../endpoints.ts';
import { type Judgement, type PassiveRule } from '../judging.ts';
import { streamIn, streamOf } from './streams.ts';

type Message = Record<string, unknown>;

/** The messages a POST carried, or undefined when its body is not JSON. */
function sentMessages(ex: TrafficExchange): Message[] | undefined {
  if (ex.requestBody === undefined || ex.requestBodyTruncated) return undefined;
  const parsed = parseJson(ex.requestBody);
  if (!parsed.ok) return undefined;
  const list = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
  return list.filter(isRecord);
}

/** The JSON-RPC responses of an answer: its JSON body, or the data of each event of its stream. */
function answeredMessages(ex: TrafficExchange): Message[] {
  if (ex.status === undefined || ex.responseBody === undefined) return [];
  const stream = streamOf(ex);
  const texts = stream ? stream.events.map((e) => e.data) : ex.responseBodyTruncated ? [] : [ex.responseBody];
  const out: Message[] = [];
  for (const text of texts) {
    const parsed = parseJson(text);
    if (!parsed.ok) continue;
    for (const m of Array.isArray(parsed.value) ? parsed.value : [parsed.value]) if (isResponseLike(m)) out.push(m);
  }
  return out;
}

function mcpPosts(j: Judgement): TrafficExchange[] {
  return j.exchanges.filter((ex) => operationOf(ex) === 'mcp' && ex.method === 'POST' && ex.status !== undefined);
}

const isRequest = (m: Message) => typeof m.method === 'string' && 'id' in m;

export const mcpRules: PassiveRule[] = [
  {
    id: 'mcp.jsonrpc.result-xor-error',
    record: 'a POST /mcp answered with a JSON-RPC response',
    judge: (j) => {
      for (const ex of mcpPosts(j)) {
        for (const m of answeredMessages(ex)) {
          const parsed = jsonrpcResponse.safeParse(m);
          j.check(ex, parsed.success, `a response is not JSON-RPC 2.0 with exactly one of result and error (${parsed.success ? '' : parsed.error.issues[0]?.message})`);
        }
      }
    },
  },
  {
    id: 'mcp.jsonrpc.id-echoed',
    record: 'a POST /mcp carrying a JSON-RPC request, answered',
    judge: (j) => {
      for (const ex of mcpPosts(j)) {
        const requests = (sentMessages(ex) ?? []).filter(isRequest);
        if (requests.length === 0) continue;
        const key = (id: unknown) => `${typeof id}:${String(id)}`;
        const sent = new Set(requests.map((r) => key(r.id)));
        for (const m of answeredMessages(ex)) {
          if (m.id === null || m.id === undefined) continue;
          j.check(ex, sent.has(key(m.id)), `a response carries id ${JSON.stringify(m.id)} (${typeof m.id}), which no request of this POST had (same value and type)`);
        }
      }
    },
  },
  {
    id: 'mcp.lifecycle.initialize-result',
    record: 'an initialize request to /mcp answered 200',
    judge: (j) => {
      for (const ex of mcpPosts(j)) {
        const init = (sentMessages(ex) ?? []).find((m) => isRequest(m) && m.method === 'initialize');
        if (!init || ex.status !== 200) continue;
        const response = answeredMessages(ex).find((m) => m.id === init.id);
        if (!response || 'error' in response) continue;
        const parsed = initializeResult.safeParse(response.result);
        j.check(ex, parsed.success, `the initialize result lacks ${parsed.success ? '' : parsed.error.issues.map((i) => i.path.join('.') || i.message).join(', ')}`);
      }
    },
  },
  {
    id: 'mcp.session.id-visible-ascii',
    record: 'an answer from /mcp carrying Mcp-Session-Id',
    judge: (j) => {
      for (const ex of j.exchanges) {
        const id = ex.responseHeaders[SESSION_HEADER];
        if (operationOf(ex) !== 'mcp' || id === undefined) continue;
        j.check(ex, VISIBLE_ASCII.test(id), 'the Mcp-Session-Id holds a character outside visible ASCII (0x21-0x7E)');
      }
    },
  },
  {
    id: 'mcp.transport.accepted-202',
    record: 'a POST /mcp carrying only notifications or responses',
    judge: (j) => {
      for (const ex of mcpPosts(j)) {
        const sent = sentMessages(ex);
        if (!sent || sent.length === 0 || sent.some(isRequest) || !sent.every((m) => typeof m.method === 'string' || isResponseLike(m))) continue;
        // Refusing such input is allowed (an HTTP error status); accepting it must be a bare 202.
        if (ex.status! >= 400) continue;
        j.check(ex, ex.status === 202 && (ex.responseBody ?? '') === '', `input of only notifications or responses was answered ${ex.status}${ex.responseBody ? ' with a body' : ''}, expected 202 with no body`);
      }
    },
  },
  {
    id: 'mcp.sse.event-ids-unique',
    record: 'event streams from /mcp whose events carry ids',
    judge: (j) => {
      const seen = new Map<string, Map<string, TrafficExchange>>();
      for (const ex of j.exchanges) {
        if (operationOf(ex) !== 'mcp' || mediaType(ex.responseHeaders) !== 'text/event-stream') continue;
        const stream = streamIn(j, ex);
        if (!stream) continue;
        const session = ex.requestHeaders[SESSION_HEADER] ?? ex.responseHeaders[SESSION_HEADER] ?? '';
        const ids = seen.get(session) ?? new Map<string, TrafficExchange>();
        seen.set(session, ids);
        for (const e of stream.events) {
          if (e.id === undefined || e.id === '') continue;
          const before = ids.get(e.id);
          j.check(ex, before === undefined, `event id ${e.id} was already used${before && before.index !== ex.index ? ` on the stream of exchange #${before.index}` : ' on this stream'} in the same session`, before ? [before] : []);
          ids.set(e.id, ex);
        }
      }
    },
  },
];
