/** The HTTP layer in front of /v1, where a deployment's front refuses a malformed message before any endpoint. */
import type { ServerResponse } from 'node:http';
import type { FakeContext } from '../../context.ts';
import { refuseManyHosts } from '../../support/http-layer.ts';

/** Under the variants the HTTP layer refuses a message with more than one Host line as Go or Fastify does (refuseManyHosts). Returns true when it answered. */
export function httpLayerRefusal(fake: FakeContext, res: ServerResponse): boolean {
  if (fake.variants.has('v1.contract/http-layer-400-json')) return refuseManyHosts(res, {}, 'fastify');
  return fake.variants.has('v1.contract/http-layer-400-text') && refuseManyHosts(res);
}
