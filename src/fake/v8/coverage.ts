import { capabilityManifests } from '../../../scenarios/v8/capabilities.ts';
import { CONTRACT_VERSION } from '../../contract/v8/common.ts';
import { COVERAGE_KINDS } from '../../contract/v8/coverage.ts';
import type { FakeContext } from '../context.ts';
import type { Route, RouteRequest } from '../http.ts';
import { withExtraProperties } from '../support/extra-properties.ts';
import type { ReadSurface } from './read-surface.ts';

/** The gateway's operations as the coverage report lists them; cancel's scope is the fake's choice. */
const OPERATIONS = [
  { operationId: 'createMission', method: 'POST', path: '/v8/missions', scope: 'missions:write', evidenceScore: 0.9 },
  { operationId: 'getMission', method: 'GET', path: '/v8/missions/{runId}', scope: 'missions:read', evidenceScore: 0.95 },
  { operationId: 'streamMissionEvents', method: 'GET', path: '/v8/missions/{runId}/events', scope: 'missions:read', evidenceScore: 0.8 },
  { operationId: 'signalMission', method: 'POST', path: '/v8/missions/{runId}/signals', scope: 'missions:write', evidenceScore: 0.7 },
  { operationId: 'cancelMission', method: 'POST', path: '/v8/missions/{runId}/cancel', scope: 'missions:write', evidenceScore: 0.7 },
  { operationId: 'searchCapabilities', method: 'POST', path: '/v8/capabilities/search', scope: 'capabilities:read', evidenceScore: 0.85 },
  { operationId: 'queryMemory', method: 'POST', path: '/v8/memory/query', scope: 'memory:read', evidenceScore: 0.75 },
  { operationId: 'getSkill', method: 'GET', path: '/v8/skills/{skillId}', scope: 'skills:read', evidenceScore: 0.6 },
  { operationId: 'getTrace', method: 'GET', path: '/v8/traces/{traceId}', scope: 'traces:read', evidenceScore: 0.65 },
  { operationId: 'listContextGoals', method: 'GET', path: '/v8/context-twin/goals', scope: 'context:read', evidenceScore: 0.5 },
  { operationId: 'listWorldCertificates', method: 'GET', path: '/v8/world-model/certificates', scope: 'world:read', evidenceScore: 0.55 },
  { operationId: 'getCoverage', method: 'GET', path: '/v8/coverage', scope: 'coverage:read', evidenceScore: 1 },
] as const;

/** Under the variant, an operation the gateway lists but does not serve: named, unavailable, without evidence. */
const UNAVAILABLE = { operationId: 'submitIntent', method: 'POST', path: '/v8/intents', scope: 'missions:write', evidenceScore: 0, available: false } as const;

/** The report as served: unknown properties on it, on each endpoint and each kind's counts, never as a kind key. */
function served(fake: FakeContext, report: Record<string, unknown> & { capabilityKinds: Record<string, object> }): Record<string, unknown> {
  if (!fake.variants.has('v8.coverage/extra-properties')) return report;
  const capabilityKinds = Object.fromEntries(Object.entries(report.capabilityKinds).map(([kind, counts]) => [kind, withExtraProperties(counts)]));
  return { ...withExtraProperties(report, { keep: ['capabilityKinds'] }), capabilityKinds };
}

/** GET /v8/coverage: endpoints and capability kinds filtered by the caller's scopes. */
export function coverageRoutes(surface: ReadSurface): Route[] {
  const faults = surface.fake.faults;

  function coverage(r: RouteRequest): void {
    const caller = surface.authorize(r, 'coverage', 'coverage:read');
    if (!caller) return;
    const everything = faults.has('v8.coverage.scope-filtered/ignores-scopes');
    const unavailable = surface.fake.variants.has('v8.coverage/unavailable-endpoints');
    const operations = unavailable ? [...OPERATIONS.map((op) => ({ ...op, available: true })), UNAVAILABLE] : OPERATIONS.map((op) => ({ ...op, available: true }));
    const endpoints = operations.filter((op) => everything || caller.scopes.has(op.scope));
    const capabilityKinds: Record<string, { count: number; healthyCount: number }> = {};
    if (everything || caller.scopes.has('capabilities:read')) {
      for (const kind of COVERAGE_KINDS) {
        const ofKind = capabilityManifests.filter((m) => m.kind === kind);
        capabilityKinds[kind] = { count: ofKind.length, healthyCount: ofKind.filter((m) => m.healthState === 'healthy').length };
      }
    }
    if (faults.has('v8.coverage.shape/unknown-kind-key')) capabilityKinds.plugin = { count: 1, healthyCount: 1 };
    const mean = endpoints.length === 0 ? 0 : endpoints.reduce((sum, e) => sum + e.evidenceScore, 0) / endpoints.length;
    surface.listing(r, served(surface.fake, {
      gatewayVersion: unavailable ? '8.1.0+build.2026.11.15' : '8.1.0',
      contractVersion: faults.has('v8.coverage.contract-version/semver') ? '8.1.0' : CONTRACT_VERSION,
      generatedAt: new Date().toISOString(),
      endpoints,
      capabilityKinds,
      overallEvidenceScore: faults.has('v8.coverage.shape/score-above-1') ? 87 : Math.round(mean * 1000) / 1000,
    }));
  }

  return [{ method: 'GET', pattern: /^\/v8\/coverage$/, handler: coverage }];
}
