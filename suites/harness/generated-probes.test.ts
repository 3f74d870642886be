import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, endpointOf } from '../../src/contract/endpoints.ts';
import { arbitraryOf, casesOf } from '../../src/contract/schema-cases.ts';
import { memoryQueryRequest } from '../../src/contract/v8/memory.ts';
import { createMissionRequest } from '../../src/contract/v8/missions.ts';
import { deterministicPlan, isRead } from '../../src/checks/generated/requests.ts';
import { certify } from '../../src/runner/certify.ts';

describe('cases derived from the contract schemas', () => {
  const memory = casesOf(memoryQueryRequest, { compartment: 'c', purpose: 'p', queryText: 'q', classes: ['note'] });
  const labelled = (label: string) => memory.cases.find((c) => c.label === label);

  it('puts every bound at its limit (valid) and one past it (invalid), with type confusion and non-integers', () => {
    expect(labelled('limit: 50')?.valid).toBe(true);
    expect(labelled('limit: 1')?.valid).toBe(true);
    expect(labelled('limit: 51')?.valid).toBe(false);
    expect(labelled('limit: 0')?.valid).toBe(false);
    expect(labelled('limit: 1.5')?.valid).toBe(false);
    expect(labelled('limit: "1" (a string)')?.valid).toBe(false);
    expect(labelled('classes: 64 items')?.valid).toBe(true);
    expect(labelled('classes: 65 items')?.valid).toBe(false);
    expect(labelled('classes: a repeated item')?.valid).toBe(false);
    expect(labelled('queryText: length 32768')?.valid).toBe(true);
    expect(labelled('queryText: length 32769')?.valid).toBe(false);
    expect(labelled('compartment: missing')?.valid).toBe(false);
    expect(labelled('compartment: emoji')?.valid).toBe(true);
  });

  it('judges each case by the schema itself, never by what the generator meant', () => {
    for (const c of memory.cases) expect(memoryQueryRequest.safeParse(c.value).success, c.label).toBe(c.valid);
  });

  it('adds an extra property only where the description closes the object', () => {
    expect(memory.constraints.some((c) => c.kind === 'closed')).toBe(false);
    const create = casesOf(createMissionRequest);
    expect(create.constraints.map((c) => c.id)).toContain('resourceBudget closed');
    expect(create.constraints.map((c) => c.id)).not.toContain('(body) closed');
    expect(create.cases.find((c) => c.label === 'resourceBudget: an extra property')?.valid).toBe(false);
  });

  it('generates only valid bodies for the random phase, for every body of every endpoint', () => {
    for (const e of ENDPOINTS) {
      for (const spec of e.bodies) {
        for (const value of fc.sample(arbitraryOf(spec.schema), { seed: 42, numRuns: 25 })) {
          expect(spec.schema.safeParse(value).success, `${e.method} ${e.path} ${spec.name}: ${JSON.stringify(value).slice(0, 200)}`).toBe(true);
        }
      }
    }
  });
});

describe('the endpoint catalogue and the plan', () => {
  it('finds the endpoint of a request path, and none for an unknown one', () => {
    expect(endpointOf('GET', '/v8/missions/0190a8f0-1c2d-7e3f-8a4b-5c6d7e8f9a0b')?.path).toBe('/v8/missions/{runId}');
    expect(endpointOf('POST', '/v1/runs/run_1/approve?x=1')?.path).toBe('/v1/runs/{id}/approve');
    expect(endpointOf('GET', '/v8/apicert-no-such-endpoint')).toBeUndefined();
  });

  it('sends only reads in a read-only run and says what it left out', () => {
    const credential = { name: 'k', token: 'service_sk_test', surfaces: ['v8'], scopes: [], principal: 'p', tenant: 't' } as never;
    const plan = deterministicPlan({ surface: 'v8', credential, fixtures: {}, existing: {}, readOnly: true });
    expect(plan.requests.length).toBeGreaterThan(50);
    for (const g of plan.requests) expect(isRead(g.request, g.endpoint), `${g.request.method} ${g.request.path}`).toBe(true);
    expect(plan.skipped.map((s) => s.endpoint)).toContain('POST /v8/missions');
  });
});

describe('a run', () => {
  const digest = async (seed: number) => {
    const { results, report } = await certify({ patterns: ['v8.contract.generated.no-5xx'], seed });
    expect(results[0]!.verdict, results[0]!.reason).toBe('pass');
    return report.observations.find((o) => o.subject === 'requests digest')?.value;
  };

  it('sends the same requests for the same --seed, and other random bodies for another', async () => {
    const [a, b, c] = await Promise.all([digest(21), digest(21), digest(22)]);
    expect(typeof a).toBe('string');
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });
});
