/** The HTTP layer in front of /v1, where a deployment's front refuses a malformed message before any endpoint. */
import type { Server, ServerResponse } from 'node:http';
import type { FakeContext } from '../../context.ts';
import { answerClientErrorsAsFastify, refuseManyHosts } from '../../support/http-layer.ts';

/** Under `v1.contract/http-layer-400-json` a message Node's parser refuses is answered as Fastify's front answers it (answerClientErrorsAsFastify). */
export function answerClientErrors(fake: FakeContext, server: Server): void {
  if (fake.variants.has('v1.contract/http-layer-400-json')) answerClientErrorsAsFastify(server);
}

/**
 * Under `v1.contract/framework-404` a request no route takes (a path no row names, or a method no row
 * names on a row's path) is answered as Fastify's default not-found handler answers it: 404
 * `application/json; charset=utf-8`, no problem document. Returns true when it answered.
 */
export function frameworkNotFound(fake: FakeContext, res: ServerResponse, method: string, path: string): boolean {
  if (!fake.variants.has('v1.contract/framework-404')) return false;
  const text = JSON.stringify({ message: `Route ${method}:${path} not found`, error: 'Not Found', statusCode: 404 });
  res.writeHead(404, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
  return true;
}

/** Under the variants the HTTP layer refuses a message with more than one Host line as Go or Fastify does (refuseManyHosts). Returns true when it answered. */
export function httpLayerRefusal(fake: FakeContext, res: ServerResponse): boolean {
  if (fake.variants.has('v1.contract/http-layer-400-json')) return refuseManyHosts(res, {}, 'fastify');
  return fake.variants.has('v1.contract/http-layer-400-text') && refuseManyHosts(res);
}
