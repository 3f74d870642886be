/**
 * The MCP endpoint's exchanges as a judgement reads them (src/rule/judgement.ts): which exchanges
 * are POSTs to the endpoint, the JSON-RPC messages a POST carried and those its answer carried (a
 * JSON body, or the data of each event of its stream).
 */
import { isResponseLike } from '../../../contract/mcp/jsonrpc.ts';
import type { Exchange, Judge } from '../../../rule/index.ts';
import { pathOnly } from '../../../rule/index.ts';
import { bodyMissing, eventsOf, isEventStream, requestBodyMissing } from '../../../traffic/read.ts';
import { isRecord, parseJson } from '../../../util/json.ts';
import { DEFAULT_MCP_PATH } from './session.ts';

export type Message = Record<string, unknown>;

/** Where the MCP endpoint is mounted for the judgement: the profile's, as `mcpPath` reads it, else `/mcp`. */
export function mcpEndpoint(j: Pick<Judge, 'profile'>): string {
  const profile = j.profile;
  if (!profile) return DEFAULT_MCP_PATH;
  const configured = profile.fixtures.mcp.endpoint;
  if (configured) return configured;
  const { pathname } = new URL(profile.target);
  return pathname !== '/' && pathname !== '' ? pathname : DEFAULT_MCP_PATH;
}

/** Every POST to the MCP endpoint that was answered, in order. */
export function mcpPosts(j: Judge): Exchange[] {
  const endpoint = mcpEndpoint(j);
  return j.exchanges.filter((ex) => ex.method === 'POST' && pathOnly(ex) === endpoint);
}

/** The messages a POST carried (a batch is its members), or undefined when its body is not JSON or was not kept. */
export function sentMessages(ex: Exchange): Message[] | undefined {
  if (ex.requestBody === undefined || requestBodyMissing(ex) !== undefined) return undefined;
  const parsed = parseJson(ex.requestBody);
  if (!parsed.ok) return undefined;
  const list = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
  return list.filter(isRecord);
}

/**
 * The JSON-RPC responses an answer carried: its JSON body, or the data of each event of its
 * stream (every event read, whole). Undefined, after telling `j`, when the answer is not there.
 */
export function answeredResponses(j: Judge, ex: Exchange): Message[] | undefined {
  const missing = isEventStream(ex) && ex.events !== undefined && ex.streamEnd !== 'aborted' ? undefined : bodyMissing(ex);
  if (missing !== undefined) {
    j.lacks(ex, `the answer's JSON-RPC messages: ${missing}`);
    return undefined;
  }
  const texts = isEventStream(ex) ? (eventsOf(ex) ?? []).map((e) => e.data) : [ex.responseBody ?? ''];
  const out: Message[] = [];
  for (const text of texts) {
    const parsed = parseJson(text);
    if (!parsed.ok) continue;
    for (const m of Array.isArray(parsed.value) ? parsed.value : [parsed.value]) if (isResponseLike(m)) out.push(m);
  }
  return out;
}
