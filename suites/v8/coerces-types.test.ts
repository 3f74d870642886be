/**
 * Fastify audit s26-v8 F1: Fastify's default ajv (`coerceTypes: 'array'`) reads `"3"` as 3 for an
 * integer, 42 as "42" for a string, "x" as ["x"] for an array. The /v8 error tables name no
 * wrong-type cause among the 400s, so such a value is open (a legal choice to read or refuse); what
 * the value so read breaks (null or "0" for maximumSteps, read as 0) is refused either way, and a
 * value no coercion reads (an object for an integer) stays under its Type column. The fake's variant
 * `v8.contract/coerces-types` takes the reading: the four rules the audit saw fail pass under it.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { expectationOf } from '../../src/checks/generated/expectation.ts';
import { readAsAjv } from '../../src/contract/coercion.ts';
import { capabilitySearchRequest } from '../../src/contract/v8/capabilities.ts';
import { memoryQueryRequest } from '../../src/contract/v8/memory.ts';
import { createMissionRequest, signalRequest } from '../../src/contract/v8/missions.ts';
import { certify } from '../../src/runner/certify.ts';

const BUDGET = { maximumSteps: 3, maximumToolCalls: 1, maximumElapsedMs: 1000, maximumParallelism: 2 };
const MISSION = { goalSpec: { task: 'probe' }, resourceBudget: BUDGET };
const SEARCH = { actionFamily: 'read', purpose: 'audit', targetType: 'record' };
const QUERY = { compartment: 'ops', purpose: 'audit', queryText: 'q', classes: ['note'] };

/** ajv as Fastify configures it for route schemas, over the contract schema as JSON Schema. */
function fastifyAjv(schema: z.ZodType) {
  return new Ajv2020({ coerceTypes: 'array', useDefaults: true, allErrors: true, strict: false }).compile(z.toJSONSchema(schema, { unrepresentable: 'any' }));
}

describe('ajv coercion of /v8 request bodies (coerceTypes: array)', () => {
  // Each body breaks one field with a value of another JSON type (or one no coercion reads).
  const bodies: Array<[string, z.ZodType, Record<string, unknown>]> = [];
  for (const v of ['3', ' 4 ', '1.5', 'abc', '', null, true, false, 1.5, {}, [], ['5'], [true], [[1]]]) bodies.push(['mission', createMissionRequest, { ...MISSION, resourceBudget: { ...BUDGET, maximumSteps: v } }]);
  for (const v of [42, true, null, ['x'], [1], [], {}]) {
    bodies.push(['mission', createMissionRequest, { ...MISSION, goalSpec: { task: v } }]);
    bodies.push(['search', capabilitySearchRequest, { ...SEARCH, actionFamily: v }]);
    bodies.push(['signal', signalRequest, { signal: v, payload: {} }]);
  }
  for (const change of [{ classes: 'note' }, { classes: 7 }, { classes: null }, { classes: [7] }, { compartment: 7 }, { limit: '10' }, { limit: null }, { limit: ['2'] }, { queryEmbedding: '0.5' }, { queryEmbedding: [0.1, '0.2', 'x'] }]) {
    bodies.push(['memory', memoryQueryRequest, { ...QUERY, ...change }]);
  }

  it.each(bodies.map(([name, schema, body]) => [name, JSON.stringify(body), schema, body] as const))('%s %s: read as ajv reads it', (_name, _text, schema, body) => {
    const before = JSON.stringify(body);
    const ajvData = structuredClone(body);
    fastifyAjv(schema)(ajvData);
    const read = readAsAjv(schema, body);
    expect(read.value).toEqual(ajvData);
    expect(read.coerced.length > 0).toBe(JSON.stringify(ajvData) !== before);
    // Never changed in place: the journal's parsed body is shared read-only.
    expect(JSON.stringify(body)).toBe(before);
  });
});

describe('the /v8 generated expectation of a value of another JSON type', () => {
  const sent = (path: string, json: unknown) => expectationOf({ method: 'POST', path, headers: { 'content-type': 'application/json', 'idempotency-key': 'apicert-key-0123456789' }, body: JSON.stringify(json), json, credential: 'alice' });

  it('is open where the value so read is valid', () => {
    for (const v of ['3', true, ['4']]) expect(sent('/v8/missions', { ...MISSION, resourceBudget: { ...BUDGET, maximumSteps: v } }).kind).toBe('open');
    // null read as 0: in range for maximumToolCalls ("at least 0").
    expect(sent('/v8/missions', { ...MISSION, resourceBudget: { ...BUDGET, maximumToolCalls: null } }).kind).toBe('open');
    expect(sent('/v8/capabilities/search', { ...SEARCH, actionFamily: 42 }).kind).toBe('open');
    expect(sent('/v8/memory/query', { ...QUERY, classes: 'note' }).kind).toBe('open');
  });

  it('refuses what the value so read breaks, a value no coercion reads, and the stated causes', () => {
    // null or "0" for maximumSteps: "missing fields" or 0, "budget out of range", either way.
    for (const v of [null, '0', false, {}, 'abc', 1.5]) expect(sent('/v8/missions', { ...MISSION, resourceBudget: { ...BUDGET, maximumSteps: v } }).kind).toBe('refuse');
    expect(sent('/v8/missions', { ...MISSION, resourceBudget: { ...BUDGET, maximumParallelism: 65 } })).toMatchObject({ kind: 'refuse', status: 400 });
    // "`400`" on the search: null read as "" is one character short, as missing it is a missing field.
    expect(sent('/v8/capabilities/search', { ...SEARCH, actionFamily: null })).toMatchObject({ kind: 'refuse', status: 400 });
    expect(sent('/v8/memory/query', { ...QUERY, queryText: null }).kind).toBe('refuse');
    expect(sent('/v8/memory/query', { ...QUERY, classes: [] })).toMatchObject({ kind: 'refuse', status: 400 });
  });
});

describe('the fake under v8.contract/coerces-types', () => {
  it('passes the four rules the Fastify audit saw fail, having coerced', async () => {
    const rules = ['v8.missions.create.budget-bounds', 'v8.memory.query.bounds', 'v8.capabilities.search.validation', 'v8.contract.generated.error-status'];
    const { results, variantsTaken } = await certify({ variants: ['v8.contract/coerces-types'], surfaces: ['v8'], patterns: rules, seed: 11 });
    expect(variantsTaken).toEqual(['v8.contract/coerces-types']);
    expect(results.map((r) => [r.rule.id, r.verdict, r.reason?.split('\n')[0] ?? '']).sort()).toEqual(rules.map((id) => [id, 'pass', '']).sort());
    // The boundary cases sent a value of another JSON type the fake read: the search and memory rules recorded its answers.
    for (const id of ['v8.memory.query.bounds', 'v8.capabilities.search.validation']) {
      const seen = results.find((r) => r.rule.id === id)?.observations?.find((o) => /another JSON type/.test(o.subject));
      expect(seen?.value, id).toContain(200);
    }
  }, 120_000);
});
