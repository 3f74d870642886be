import type { ServerResponse } from 'node:http';
import type { FakeCaller } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import type { RouteRequest } from '../http.ts';
import { authorize } from './auth.ts';
import type { LimitBend } from './rate-limit.ts';
import { answeredNotModified, contractHeader, httpLayerRefusal, jsonContentType } from './contract.ts';
import { writeProblem } from './errors.ts';

/** Responses of the /v8 gateway: JSON or problem+json, with the contract header (contract.ts). */
export class V8Responder {
  private readonly fake: FakeContext;
  constructor(fake: FakeContext) {
    this.fake = fake;
  }

  json(res: ServerResponse, status: number, body: unknown): void {
    this.raw(res, status, JSON.stringify(body));
  }

  /** A pre-serialized JSON body, as stored for idempotent replay. */
  raw(res: ServerResponse, status: number, text: string): void {
    if (status === 200 && answeredNotModified(this.fake, res, text)) return;
    res.writeHead(status, { 'content-type': jsonContentType(this.fake), ...contractHeader(this.fake, 'success'), 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  empty(res: ServerResponse, status: number): void {
    res.writeHead(status, { ...contractHeader(this.fake, 'success'), 'content-length': 0 });
    res.end();
  }

  problem(res: ServerResponse, status: number, code: string, detail: string, headers?: Record<string, string>): void {
    if (status === 400 && httpLayerRefusal(this.fake, res)) return;
    writeProblem(this.fake, res, status, code, detail, headers);
  }

  /** See auth.ts: answers 401 or 403 itself and returns undefined when refused. */
  authorize(r: RouteRequest, scope: string | undefined, limit?: LimitBend): FakeCaller | undefined {
    return authorize(this.fake, r, scope, limit);
  }
}
