/** Endpoints: GET /v8/coverage; Resources: coverage report; Authentication: coverage depends on scopes. */
import { z } from 'zod';
import { type CheckContext, section } from '../../../rule/index.ts';
import { CONTRACT_HEADER } from '../../../contract/v8/common.ts';
import { COVERAGE_KINDS, coverageReport } from '../../../contract/v8/coverage.ts';
import { V8_SCOPES, type Credential } from '../../../profile/schema.ts';
import { admitted } from '../support/limiter.ts';
import { holder, PATHS } from '../support/read.ts';
import { answerJson, hasWholeBody, operation, parsedAs } from '../../../traffic/read.ts';
import { judgeReadAnswers, withCallersOn } from '../support/traffic.ts';

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:coverage:read'] } });

function readCoverage(ctx: CheckContext, credential: Credential, label = 'read the coverage report') {
  // A 429 of a per-principal limit is waited out once (its numbers are not shown), so the rule judges an answer of the API.
  return admitted(ctx, () => ctx.http.send({ method: 'GET', path: PATHS.coverage, credential, label }));
}

export const coverageShape = rule({
  id: 'v8.coverage.shape',
  title: 'The coverage report answers 200 with its documented fields, scores in 0-1, a UTC generatedAt and capabilityKinds keyed by documented kinds',
  level: 'required',
  spec: {
    section: 'Resources > Coverage report',
    quote:
      'generatedAt | string, ISO 8601 UTC … endpoints | array of {operationId string, method string, path string, scope string, available boolean, evidenceScore number 0.0-1.0} … capabilityKinds | object keyed by kind (`api`, `mcp`, `skill`, `browser`, `a2a_agent`, `human`, `device`), each {count integer, healthyCount integer} … overallEvidenceScore | number 0.0-1.0',
  },
  judgement: {
    record: 'a GET /v8/coverage from a caller holding coverage:read',
    judge(j) {
      judgeReadAnswers(j, {
        op: 'v8.coverage.get',
        scope: 'coverage:read',
        name: 'the coverage report',
        schema: coverageReport,
        expect200: () => true,
        extra(_ex, value) {
          const report = value as z.infer<typeof coverageReport>;
          const kinds = Object.keys(report.capabilityKinds);
          j.observe('capability kinds reported', kinds, `absent: ${COVERAGE_KINDS.filter((k) => !kinds.includes(k)).join(', ') || 'none'}`);
          const odd = Object.entries(report.capabilityKinds).filter(([, v]) => v !== undefined && v.healthyCount > v.count);
          if (odd.length > 0) j.observe('kinds with healthyCount above count', Object.fromEntries(odd), 'the seed does not relate the two counts');
        },
      });
    },
  },
  async provoke(ctx: CheckContext) {
    await readCoverage(ctx, holder(ctx, 'coverage:read'));
  },
});

const versionOnly = z.looseObject({ contractVersion: z.unknown().optional() });

export const coverageContractVersion = rule({
  id: 'v8.coverage.contract-version',
  title: 'The coverage report contractVersion carries the contract identifier sent in x-service-contract-version',
  level: 'required',
  spec: {
    section: 'Versioning',
    quote: 'Every response carries header `x-service-contract-version` with the value `service-integration-gateway-v8.1`. … The coverage report field `contractVersion` carries the contract identifier.',
  },
  judgement: {
    record: 'a GET /v8/coverage from a caller holding coverage:read',
    judge(j) {
      withCallersOn(j, 'v8.coverage.get', (ex, callers) => {
        // A report is read only from a 200: another status carries no report (the shape rule judges the status).
        if (operation(ex) !== 'v8.coverage.get' || ex.status !== 200 || !callers.holds(ex, 'coverage:read')) return;
        const json = answerJson(j, ex);
        if (json === undefined && !hasWholeBody(ex)) return;
        const parsed = parsedAs(versionOnly, json);
        const value = parsed.success ? parsed.data.contractVersion : undefined;
        // Judged against the documented identifier, not the header, so a missing header stays the header rule's failure.
        j.check(ex, value === 'service-integration-gateway-v8.1', `contractVersion is ${JSON.stringify(value)}, expected "service-integration-gateway-v8.1"`);
        j.observe('contract header on the same response', ex.responseHeaders[CONTRACT_HEADER] ?? null);
      });
    },
  },
  async provoke(ctx: CheckContext) {
    await readCoverage(ctx, holder(ctx, 'coverage:read'));
  },
});

const endpointScopes = z.looseObject({ endpoints: z.array(z.looseObject({ path: z.unknown().optional(), method: z.unknown().optional(), scope: z.unknown().optional(), available: z.unknown().optional() })) });

/** Credentials of any principal that can read coverage but hold fewer /v8 scopes than the primary one. */
function narrowerReaders(ctx: CheckContext, primary: Credential): Credential[] {
  return ctx.profile.credentials.filter(
    (c) => c.surfaces.includes('v8') && !c.expired && c.scopes.includes('coverage:read') && V8_SCOPES.some((s) => primary.scopes.includes(s) && !c.scopes.includes(s)),
  );
}

export const coverageScopeFiltered = rule({
  id: 'v8.coverage.scope-filtered',
  title: "A token with fewer scopes sees no endpoint in the coverage report offered as available under a scope it lacks",
  level: 'required',
  spec: {
    section: 'Resources > Coverage report; Authentication',
    quote: "The report shows only what the caller's scopes permit. … Coverage results depend on the token's scopes.",
  },
  judgement: {
    record: 'a GET /v8/coverage from a credential of the profile holding coverage:read',
    judge(j) {
      const sizes: Record<string, number> = {};
      const hidden: Record<string, number> = {};
      withCallersOn(j, 'v8.coverage.get', (ex, callers) => {
        if (operation(ex) !== 'v8.coverage.get' || ex.status === undefined || ex.status === 429 || !callers.holds(ex, 'coverage:read')) return;
        // Which scopes the token holds is not in the traffic: the profile's credential says.
        const credential = j.credentialOf(ex);
        if (!credential) return;
        const json = ex.status === 200 ? answerJson(j, ex) : undefined;
        if (ex.status === 200 && json === undefined && !hasWholeBody(ex)) return;
        const report = parsedAs(endpointScopes, json);
        if (!j.check(ex, ex.status === 200 && report.success, `the coverage report as ${credential.name} (holding coverage:read) answered ${ex.status} without an endpoints list`) || !report.success) return;
        sizes[credential.name] = report.data.endpoints.length;
        const lacking = report.data.endpoints.filter((e) => typeof e.scope === 'string' && (V8_SCOPES as readonly string[]).includes(e.scope) && !credential.scopes.includes(e.scope));
        hidden[credential.name] = lacking.filter((e) => e.available === false).length;
        const seen = lacking.filter((e) => e.available !== false).map((e) => `${String(e.method)} ${String(e.path)} (scope ${String(e.scope)})`);
        j.check(ex, seen.length === 0, `the coverage report as ${credential.name} shows endpoints its scopes do not permit: ${seen.slice(0, 12).join('; ')}${seen.length > 12 ? ` (+${seen.length - 12} more)` : ''}`);
      });
      if (Object.keys(sizes).length > 0) j.observe('endpoints per credential', sizes);
      if (Object.values(hidden).some((n) => n > 0)) j.observe('endpoints listed as unavailable under a missing scope', hidden);
    },
  },
  async provoke(ctx: CheckContext) {
    const primary = holder(ctx, 'coverage:read');
    const narrower = narrowerReaders(ctx, primary);
    // A report read with every scope shows nothing a scope hides: only a narrower token can.
    if (narrower.length === 0) ctx.untestable({ need: 'credential', role: 'v8 credential holding coverage:read but fewer scopes than the primary one', remedy: 'add one (e.g. every scope but memory:read)' });
    await readCoverage(ctx, primary, 'coverage report with every scope');
    for (const credential of narrower) await readCoverage(ctx, credential, `coverage report as ${credential.name}`);
  },
});
