/**
 * Answer shapes from the contract's zod schemas: every recorded 200 (or 201) of an operation is
 * JSON of the documented shape. Each rule judges what its active twin judges of the answer, on
 * whatever answers the recording holds.
 */
import type { z } from 'zod';
import { jsonrpcRequest } from '../../contract/mcp/jsonrpc.ts';
import { parseJson } from '../../util/json.ts';
import { mediaType, pathOnly, type TrafficExchange } from '../exchange.ts';
import { operationOf } from '../endpoints.ts';
import { hasWholeBody, recordOf, responseJson, issuesOf, type Judgement, type PassiveRule } from '../judging.ts';


function isJson(ex: TrafficExchange): boolean {
  const type = mediaType(ex.responseHeaders);
  return type === 'application/json' || type.endsWith('+json');
}

/** Every answer `status` to `method path` is JSON; a whole body has the schema's shape and passes `extra`. */
function shapeRule(id: string, method: string, path: RegExp, status: number, schema: z.ZodType, extra?: (ex: TrafficExchange, value: unknown, j: Judgement) => void): PassiveRule {
  return {
    id,
    record: `a ${method} ${path.source.replace(/\\\//g, '/').replace(/^\^|\/?\??\$$/g, '').replace('[^/]+', '{id}')} answered ${status}`,
    judge: (j) => {
      for (const ex of j.exchanges) {
        if (ex.method !== method || !path.test(pathOnly(ex)) || ex.status !== status) continue;
        if (!j.check(ex, isJson(ex), `the ${status} came as "${mediaType(ex.responseHeaders)}", expected application/json`)) continue;
        if (!hasWholeBody(ex)) continue;
        const parsed = schema.safeParse(responseJson(ex));
        if (j.check(ex, parsed.success, `the answer does not have the contract's shape (${parsed.success ? '' : issuesOf(parsed.error)})`)) extra?.(ex, parsed.data, j);
      }
    },
  };
}

/** A listing the seed shows in two forms (goals, certificates): each item of whichever form has the item's shape. */
function listingItemsRule(id: string, path: RegExp, listing: z.ZodType, key: string, item: z.ZodType): PassiveRule {
  return shapeRule(id, 'GET', path, 200, listing, (ex, value, j) => {
    const items = Array.isArray(value) ? value : ((recordOf(value)?.[key] as unknown[] | undefined) ?? []);
    for (const [i, it] of items.entries()) {
      const parsed = item.safeParse(it);
      j.check(ex, parsed.success, `${key} item #${i + 1} does not have the contract's shape (${parsed.success ? '' : issuesOf(parsed.error)})`);
    }
  });
}



/** The JSON-RPC requests a POST /mcp carried, and whether they came as a batch. */
function mcpRequests(ex: TrafficExchange): { batch: boolean; requests: number } | undefined {
  if (ex.requestBody === undefined || ex.requestBodyTruncated) return undefined;
  const parsed = parseJson(ex.requestBody);
  if (!parsed.ok) return undefined;
  const list = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
  return { batch: Array.isArray(parsed.value), requests: list.filter((m) => jsonrpcRequest.safeParse(m).success).length };
}

export const shapeRules: PassiveRule[] = [
  {
    id: 'mcp.transport.request-response',
    record: 'a POST /mcp carrying a JSON-RPC request, answered 2xx',
    judge: (j) => {
      for (const ex of j.exchanges) {
        if (operationOf(ex) !== 'mcp' || ex.method !== 'POST' || ex.status === undefined || ex.status >= 300 || !mcpRequests(ex)?.requests) continue;
        const type = mediaType(ex.responseHeaders);
        j.check(ex, type === 'application/json' || type === 'text/event-stream', `a POST carrying a request was answered content-type "${type}", expected application/json or text/event-stream`);
      }
    },
  },
  {
    id: 'mcp.batch.answer-array',
    record: 'a POST /mcp carrying a batch of requests, answered as JSON',
    judge: (j) => {
      for (const ex of j.exchanges) {
        const sent = operationOf(ex) === 'mcp' && ex.method === 'POST' ? mcpRequests(ex) : undefined;
        if (!sent?.batch || sent.requests === 0 || ex.status !== 200 || mediaType(ex.responseHeaders) !== 'application/json' || !hasWholeBody(ex)) continue;
        j.check(ex, Array.isArray(responseJson(ex)), 'a batch carrying requests was answered with a JSON body that is not an array');
      }
    },
  },
];
