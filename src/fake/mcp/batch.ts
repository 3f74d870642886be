import type { ServerResponse } from 'node:http';
import type { FakeContext } from '../context.ts';
import { INVALID_REQUEST } from '../../contract/mcp/jsonrpc.ts';
import { malformedStatus, unattributedError } from './jsonrpc.ts';
import { writeEmpty, writeJson } from './respond.ts';

/** The JSON answer to a batch: an array with one response per request in it, even for one. */
export function writeBatchAnswers(fake: FakeContext, res: ServerResponse, answers: Record<string, unknown>[]): void {
  if (answers.length === 1 && fake.faults.has('mcp.batch.answer-array/single-as-object')) {
    writeJson(res, 200, answers[0]);
    return;
  }
  const sent = fake.faults.has('mcp.batch.requests/first-only') ? answers.slice(0, 1) : answers;
  // JSON-RPC 2.0: "The Response objects being returned from a batch call MAY be returned in any order".
  writeJson(res, 200, fake.variants.has('mcp.batch/answers-reversed') ? [...sent].reverse() : sent);
}

/**
 * JSON-RPC 2.0: "an Array with at least one value" or else "a single Response object". MCP's
 * "solely of (any number of) … notifications" covers [] too, so the variant accepts it: 202 with no
 * body, as the TypeScript SDK answers.
 */
export function refuseEmptyBatch(fake: FakeContext, res: ServerResponse): void {
  // 202 is legal; with a body it is not ("202 Accepted with no body").
  if (fake.faults.has('mcp.batch.empty/answered-202')) writeJson(res, 202, []);
  else if (fake.variants.has('mcp.batch/empty-accepted')) writeEmpty(res, 202);
  else writeJson(res, malformedStatus(fake), unattributedError(fake, INVALID_REQUEST, 'Invalid Request: an empty batch.'));
}

/** A batch of only notifications and responses: 202 without a body. */
export function acceptBatchWithoutAnswers(fake: FakeContext, res: ServerResponse): void {
  if (fake.faults.has('mcp.batch.notifications-202/answered-200')) writeJson(res, 200, []);
  else writeEmpty(res, 202);
}
