/** Endpoints: POST /v8/capabilities/search; Resources: capability search request and manifest. */
import { type CheckContext, judgedRun, type Judgement, section } from '../../../rule/index.ts';
import type { z } from 'zod';
import { capabilitySearchRequest, capabilitySearchResponse } from '../../../contract/v8/capabilities.ts';
import { issuesOf, operation, parsedAs, requestBodyMissing, requestJson } from '../../../traffic/read.ts';
import { parsedAsAjvReads } from '../../../contract/coercion.ts';
import { isRecord } from '../../../util/json.ts';
import { judgePrincipalInBody, judgeReadAnswers, mayBeRefused, withCallersOn } from '../support/traffic.ts';
import { capabilitySearchBody, searchCapabilities } from '../support/read.ts';
import { boundarySearches, generatedSearches } from './cases.ts';

function validSearch(body: unknown): boolean {
  return parsedAs(capabilitySearchRequest, body).success && isRecord(body) && !('principalId' in body);
}

/** "stable unique id": the ids one answer names more than once (two manifests under one id), each once. */
function namedTwice(ids: readonly string[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) twice.add(id);
    seen.add(id);
  }
  return [...twice];
}

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:capabilities:read'] } });

export const searchOk = rule({
  id: 'v8.capabilities.search.ok',
  title: 'Capability search answers 200 with a JSON array of at most 256 manifests, each with a documented kind, healthState and a lowercase SHA-256 contractHash, no capabilityId named twice',
  level: 'required',
  spec: {
    section: 'Resources > Capability search request and manifest',
    quote:
      'Response: a JSON array of manifests, at most 256, ordered by policy-weighted relevance. … capabilityId | string | stable unique id … `api`, `mcp`, `a2a_agent`, `browser`, `device`, `skill`, `human` … 64 lowercase hex chars (SHA-256 of the contract) … `healthy`, `degraded`, `unavailable`, `quarantined`',
  },
  judgement: {
    record: 'a POST /v8/capabilities/search from a caller holding capabilities:read',
    judge(j) {
      judgeReadAnswers(j, {
        op: 'v8.capabilities.search',
        scope: 'capabilities:read',
        name: 'capability search',
        schema: capabilitySearchResponse,
        // A valid request that names no principal must be served.
        expect200: (ex) => validSearch(requestJson(ex)) && !mayBeRefused(ex, requestJson(ex)),
        extra(ex, value) {
          const manifests = value as z.infer<typeof capabilitySearchResponse>;
          const twice = namedTwice(manifests.map((m) => m.capabilityId));
          j.check(ex, twice.length === 0, `the answer names capabilityId ${twice.map((id) => JSON.stringify(id)).join(', ')} more than once: "stable unique id"`);
          j.observe('manifests returned', manifests.length);
          j.observe('kinds and health states returned', [...new Set(manifests.map((m) => `${m.kind}/${m.healthState}`))].sort(), 'quarantined capabilities cannot be invoked and unavailable ones are not to be put in goal specifications');
        },
      });
    },
  },
  async provoke(ctx: CheckContext) {
    await searchCapabilities(ctx, capabilitySearchBody(ctx), 'capability search');
  },
});

const validationJudgement: Judgement = {
  record: 'a POST /v8/capabilities/search with a JSON object body naming no principalId, from a caller holding capabilities:read',
  judge(j) {
    const leniently: number[] = [];
    withCallersOn(j, 'v8.capabilities.search', (ex, callers) => {
      if (operation(ex) !== 'v8.capabilities.search' || ex.status === undefined || ex.status === 429 || !callers.holds(ex, 'capabilities:read')) return;
      const missing = requestBodyMissing(ex);
      if (missing !== undefined) return j.lacks(ex, `the search's body: ${missing}`);
      const body = requestJson(ex);
      // A body naming principalId is refused with 403 (the principal-403 rule's), whatever else it holds.
      if (!isRecord(body) || 'principalId' in body) return;
      // "`400`" names no wrong-type cause: a search valid once ajv's coercion (Fastify's default) reads 42 as "42" is open;
      // one still past a bound so read (null, read as "") is refused either way.
      const { parsed, open } = parsedAsAjvReads(capabilitySearchRequest, body, (value) => parsedAs(capabilitySearchRequest, value));
      if (open) return void leniently.push(ex.status!);
      // A body inside every bound that a legal deployment may still refuse (a NUL, a lone surrogate) is held to no answer.
      if (parsed.success) {
        if (!mayBeRefused(ex, body)) j.check(ex, ex.status === 200, `a search inside every bound answered ${ex.status}, expected 200`);
      } else j.check(ex, ex.status === 400, `a search outside a bound (${issuesOf(parsed.error)}) answered ${ex.status}, expected 400`);
    });
    if (leniently.length > 0) j.observe('statuses for searches valid once values of another JSON type are coerced', leniently, 'open: reading 42 as "42" (ajv\'s coerceTypes, Fastify\'s default) and refusing it are both legal');
  },
};

export const searchValidation = rule({
  id: 'v8.capabilities.search.validation',
  title: 'Capability search accepts each field at 1 and at its maximum length and answers 400 when one is missing, empty, of a type no coercion reads or one character too long',
  level: 'required',
  spec: {
    section: 'Resources > Capability search request and manifest; Limits; Errors',
    quote: 'Request fields, all required strings: `actionFamily` (1-128 chars), `purpose` (1-256 chars), `targetType` (1-128 chars). … `POST /v8/capabilities/search` | `400`',
  },
  judgement: validationJudgement,
  async provoke(ctx: CheckContext) {
    const { actionFamily, purpose, targetType } = capabilitySearchBody(ctx);
    const base = { actionFamily, purpose, targetType };
    const examples = boundarySearches(base);
    await ctx.property(
      generatedSearches(base),
      // Each run is judged as it ends, so fast-check shrinks a failing search to a minimal one.
      ({ body, why }) => judgedRun(ctx, validationJudgement, async () => void (await searchCapabilities(ctx, body, `search with ${why}`))),
      // fast-check counts the examples in numRuns (and drops those past it): every boundary case, then 20 drawn.
      { numRuns: examples.length + 20, examples },
    );
  },
});

export const searchPrincipal = rule({
  id: 'v8.capabilities.search.principal-403',
  title: 'A capability search body containing principalId answers 403, whichever principal it names',
  level: 'required',
  needs: { credentials: ['v8:primary'] },
  spec: {
    section: 'Endpoints > Rules 1',
    quote: 'A body containing `principalId` is rejected with `403` on memory query and capability search. The gateway takes the principal from the token.',
  },
  judgement: {
    record: 'a POST /v8/capabilities/search whose body contains principalId, from a caller holding capabilities:read',
    judge: (j) => judgePrincipalInBody(j, 'v8.capabilities.search', 'capabilities:read', 'a search body'),
  },
  async provoke(ctx: CheckContext) {
    const base = capabilitySearchBody(ctx);
    for (const principalId of [ctx.primary('v8').principal, `apicert-someone-else`]) await searchCapabilities(ctx, { ...base, principalId }, `search naming principalId "${principalId}"`);
  },
});
