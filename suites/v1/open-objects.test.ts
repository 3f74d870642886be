import { describe, expect, it } from 'vitest';
import { v1Problem } from '../../src/contract/v1/problem.ts';
import { acceptedData, openObject } from '../../src/contract/v1/runs.ts';
import { taskResponse } from '../../src/contract/v1/task.ts';
import { usageResponse } from '../../src/contract/v1/usage.ts';
import { webhookCreated, webhookDeliveryBody } from '../../src/contract/v1/webhooks.ts';
import { withExtraProperties } from '../../src/fake/support/extra-properties.ts';

describe('the extra-properties helper of the fake', () => {
  it('adds unknown properties to every object, nested and in arrays, and keeps what is there', () => {
    const out = withExtraProperties({ run_id: 'r1', nested: { a: 1 }, list: [{ b: 2 }, 3], none: null });
    const added = Object.keys(out).filter((k) => !['run_id', 'nested', 'list', 'none'].includes(k));
    expect(added.length).toBeGreaterThan(3);
    expect(added).toContain('');
    expect(out.run_id).toBe('r1');
    expect(out.nested.a).toBe(1);
    expect(Object.keys(out.nested)).toEqual(expect.arrayContaining(added));
    expect(Object.keys(out.list[0] as object)).toEqual(expect.arrayContaining(['b', ...added]));
    expect(out.list[1]).toBe(3);
    expect(out.none).toBeNull();
  });

  it('is the same on every call and applying it twice changes nothing (replays stay byte-identical)', () => {
    const once = withExtraProperties({ x: { y: [] } });
    expect(JSON.stringify(withExtraProperties({ x: { y: [] } }))).toBe(JSON.stringify(once));
    expect(JSON.stringify(withExtraProperties(once))).toBe(JSON.stringify(once));
  });

  it('never replaces a property the object has, nor adds names that carry meaning or a timestamp', () => {
    const out = withExtraProperties({ _links: 'mine' });
    expect(out._links).toBe('mine');
    for (const key of Object.keys(out)) expect(key).not.toMatch(/^(id|type|kind|event|sequence|state|status)$|_id$/);
    expect(JSON.stringify(out)).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
  });
});

describe('the /v1 contract keeps open objects open and closed ones closed', () => {
  it.each([
    ['task response', taskResponse, { run_id: 'r1' }],
    ['run resource, approve and cancel answers', openObject, {}],
    ['request.accepted data', acceptedData, { replayed: false }],
    ['usage readback', usageResponse, {}],
    ['webhook creation response', webhookCreated, { signing_secret: 's' }],
    ['webhook delivery body', webhookDeliveryBody, { apiVersion: 'v1', event_id: 'e', run_id: 'r', sequence: 1 }],
  ] as const)('%s accepts unknown properties', (_name, schema, base) => {
    expect(schema.safeParse(withExtraProperties(base)).success).toBe(true);
  });

  it('a v1 Problem with an extra member is refused ("No extra properties are allowed in Problem or FieldError")', () => {
    const problem = { type: 'https://errors.example/x', title: 'Invalid', status: 400, code: 'invalid_request', retryable: false };
    expect(v1Problem.safeParse(problem).success).toBe(true);
    expect(v1Problem.safeParse({ ...problem, extra: 1 }).success).toBe(false);
    expect(v1Problem.safeParse({ ...problem, fieldErrors: [{ path: 'a', code: 'b', message: 'c', extra: 1 }] }).success).toBe(false);
  });
});
