import type { ServerResponse } from 'node:http';
import type { FakeContext } from '../context.ts';
import { writeEmpty, writeJson } from './respond.ts';

/** The JSON answer to a batch: one response per request in it. */
export function writeBatchAnswers(fake: FakeContext, res: ServerResponse, answers: Record<string, unknown>[]): void {
  writeJson(res, 200, fake.faults.has('mcp.batch.requests/first-only') ? answers.slice(0, 1) : answers);
}

/** A batch of only notifications and responses: 202 without a body. */
export function acceptBatchWithoutAnswers(fake: FakeContext, res: ServerResponse): void {
  if (fake.faults.has('mcp.batch.notifications-202/answered-200')) writeJson(res, 200, []);
  else writeEmpty(res, 202);
}
