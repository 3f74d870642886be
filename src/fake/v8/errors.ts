import type { ServerResponse } from 'node:http';
import { PROBLEM_CONTENT_TYPE, type V8Problem } from '../../contract/v8/problem.ts';
import { uuidv4 } from '../../util/uuid.ts';
import type { FakeContext } from '../context.ts';
import { contractHeader } from './contract.ts';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

/** A /v8 problem+json answer. */
export function writeProblem(fake: FakeContext, res: ServerResponse, status: number, code: string, detail: string): void {
  const body: V8Problem = {
    type: `https://errors.apicert.invalid/v8/${code}`,
    title: TITLES[status] ?? 'Error',
    status: fake.faults.has('v8.errors.problem-shape/status-mismatch') ? 400 : status,
    detail,
    code,
    requestId: uuidv4(),
  };
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': PROBLEM_CONTENT_TYPE, 'content-length': Buffer.byteLength(text), ...contractHeader(fake, 'problem') });
  res.end(text);
}

/** 400 for an invalid body on a read surface (memory, capabilities): a problem, or plain JSON under the fault. */
export function writeInvalid(fake: FakeContext, res: ServerResponse, detail: string): void {
  if (!fake.faults.has('v8.errors.problem-shape/plain-json-on-read-surfaces')) {
    writeProblem(fake, res, 400, 'invalid_request', detail);
    return;
  }
  const text = JSON.stringify({ error: 'invalid_request', detail });
  res.writeHead(400, { 'content-type': 'application/json', ...contractHeader(fake, 'success'), 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
