/** Errors: every /v8 failure is problem+json. */
import { v8Problem } from '../../../contract/v8/problem.ts';
import { section } from '../../../rule/index.ts';
import { problemStatusCase, problemTypeCase } from '../../../traffic/answer-cases.ts';
import { answerJson, hasWholeBody, issuesOf, onSurface, parsedAs } from '../../../traffic/read.ts';
import { errorBattery } from '../support/battery.ts';

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read', 'v8:primary'], fixtures: ['v8.missions.succeeds'] } });

export const problemShape = rule({
  id: 'v8.errors.problem-shape',
  title: 'Every /v8 error is application/problem+json with type, title, status (equal to the HTTP status), detail, code and a UUID requestId',
  level: 'required',
  spec: {
    section: 'Errors',
    quote:
      'Failures are `application/problem+json` (RFC 9457) with fields `type` (URI string), `title`, `status` (integer), `detail`, `code` (machine-readable string), `requestId` (UUID string).',
  },
  judgement: {
    record: 'a /v8 request answered 4xx or 5xx',
    judge(j) {
      // "Failures": every answer of the surface with an error status, whatever was asked.
      for (const ex of j.exchanges) {
        if (!onSurface(ex, 'v8') || ex.status === undefined || ex.status < 400) continue;
        const labelled = problemTypeCase(ex.status, ex.responseHeaders);
        if (!j.check(ex, labelled.ok, labelled.why)) continue;
        // An answer to HEAD carries the headers, never the content (RFC 9110 9.3.2): its shape cannot be read.
        if (ex.method === 'HEAD') continue;
        const json = answerJson(j, ex);
        if (json === undefined && !hasWholeBody(ex)) continue;
        const parsed = parsedAs(v8Problem, json);
        if (!j.check(ex, parsed.success, `the ${ex.status} problem does not have the contract's shape (${parsed.success ? '' : issuesOf(parsed.error)})`) || !parsed.success) continue;
        const status = problemStatusCase(ex.status, parsed.data.status);
        j.check(ex, status.ok, status.why);
      }
    },
  },
  async provoke(ctx) {
    await errorBattery(ctx);
  },
});
