/** Errors: every /v8 failure is problem+json. */
import { PROBLEM_CONTENT_TYPE, v8Problem } from '../../../contract/v8/problem.ts';
import { section } from '../../../rule/index.ts';
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
  async check(ctx) {
    for (const o of await errorBattery(ctx)) {
      if (!ctx.check(o.status >= 400, `${o.what}: answered ${o.status}, so it produced no error to judge`, o.exchange)) continue;
      ctx.check(o.contentType.startsWith(PROBLEM_CONTENT_TYPE), `${o.what}: content-type is "${o.contentType}", expected ${PROBLEM_CONTENT_TYPE}`, o.exchange);
      const problem = ctx.checkShape(v8Problem, o.json, `${o.what}: the problem body`, o.exchange);
      if (problem) ctx.check(problem.status === o.status, `${o.what}: the body says status ${problem.status}, the HTTP status is ${o.status}`, o.exchange);
    }
  },
});
