/**
 * A request carrying a form a deployment may refuse for itself is held to no answer by the rules of
 * its operation (`openRequestForm`): a query (no endpoint defines one; the fake's
 * `v8.contract/unknown-query-400` refuses it) or an Accept that admits no answer of its endpoint
 * (RFC 9110 §12.5.1; `v1.contract/not-acceptable-406`). Once certify judged each rule over the whole
 * run, the generated probes' `?apicert=1` creates failed `v8.missions.create.accepted` under that variant.
 */
import { describe, expect, it } from 'vitest';
import { acceptAdmits } from '../../src/traffic/http-fields.ts';
import { openRequestForm } from '../../src/traffic/read.ts';

const request = (method: string, path: string, accept?: string) => ({ method, path, requestHeaders: (accept === undefined ? {} : { accept }) as Record<string, string> });

describe('acceptAdmits (RFC 9110 §12.5.1)', () => {
  it.each([
    [undefined, 'application/json', true],
    ['application/json', 'application/json', true],
    ['application/*', 'application/json', true],
    ['*/*;q=0.1', 'application/json', true],
    ['text/html, application/json;q=0', 'application/json', false],
    ['image/png', 'application/json', false],
    ['application/problem+json', 'application/json', false],
    ['text/event-stream', 'text/event-stream', true],
    ['not a media range', 'application/json', false],
  ] as const)('Accept %s admits %s: %s', (accept, type, admits) => {
    expect(acceptAdmits(accept, type)).toBe(admits);
  });
});

describe('openRequestForm', () => {
  it('names a query and an Accept no answer of the endpoint meets', () => {
    expect(openRequestForm(request('POST', '/v8/missions?apicert=1'))).toMatch(/query/);
    expect(openRequestForm(request('GET', '/v1/usage', 'image/png'))).toBe('Accept: image/png');
    expect(openRequestForm(request('GET', '/v1/usage', 'text/event-stream'))).toBe('Accept: text/event-stream');
  });

  it('leaves ordinary requests and a stream asked of a streaming endpoint alone', () => {
    expect(openRequestForm(request('POST', '/v8/missions'))).toBeUndefined();
    expect(openRequestForm(request('GET', '/v8/coverage', 'application/json'))).toBeUndefined();
    expect(openRequestForm(request('GET', '/v8/missions/0190a7b2-0000-7000-8000-000000000000/events', 'text/event-stream'))).toBeUndefined();
    expect(openRequestForm(request('POST', '/v1/execute', 'text/event-stream'))).toBeUndefined();
  });
});
