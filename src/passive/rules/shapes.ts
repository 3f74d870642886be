/**
 * Answer shapes from the contract's zod schemas: every recorded 200 (or 201) of an operation is
 * JSON of the documented shape. Each rule judges what its active twin judges of the answer, on
 * whatever answers the recording holds.
 */
import type { z } from 'zod';
import { jsonrpcRequest } from '../../contract/mcp/jsonrpc.ts';
import { taskResponse } from '../../contract/v1/task.ts';
import { webhookCreated } from '../../contract/v1/webhooks.ts';
import { dateTimes } from '../../checks/v1/runs/get.ts';
import { parseJson } from '../../util/json.ts';
import { mediaType, pathOnly, type TrafficExchange } from '../exchange.ts';
import { operationOf } from '../endpoints.ts';
import { hasWholeBody, recordOf, requestJson, responseJson, issuesOf, type Judgement, type PassiveRule } from '../judging.ts';


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



function isTaskRequest(ex: TrafficExchange): boolean {
  return recordOf(requestJson(ex))?.mode === 'task';
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
  shapeRule('v1.webhooks.register.created', 'POST', /^\/v1\/webhooks\/?$/, 201, webhookCreated),
  {
    id: 'v1.execute.task.run-id',
    record: 'a POST /v1/execute with mode task answered 200',
    judge: (j) => {
      for (const ex of j.exchanges) {
        if (operationOf(ex) !== 'v1.execute' || ex.status !== 200 || !isTaskRequest(ex)) continue;
        if (!j.check(ex, isJson(ex), `the task answer came as "${mediaType(ex.responseHeaders)}", expected application/json`) || !hasWholeBody(ex)) continue;
        const parsed = taskResponse.safeParse(responseJson(ex));
        j.check(ex, parsed.success, `the task answer carries no string run_id (${parsed.success ? '' : issuesOf(parsed.error)})`);
      }
    },
  },
  {
    id: 'v1.runs.timestamp-offset',
    record: 'a GET /v1/runs/{id} or GET /v1/usage answered 200 with timestamps',
    judge: (j) => {
      for (const ex of j.exchanges) {
        const usage = ex.method === 'GET' && /^\/v1\/usage\/?$/.test(pathOnly(ex));
        if ((operationOf(ex) !== 'v1.runs.get' && !usage) || ex.status !== 200 || !hasWholeBody(ex)) continue;
        for (const [path, value] of dateTimes(responseJson(ex))) j.check(ex, /[+-]\d{2}:\d{2}$/.test(value), `${path} is "${value}": a Timestamp needs a numeric offset such as +00:00, not only Z (or none)`);
      }
    },
  },
];
