/**
 * Generated contract probes of /v8: requests derived from the contract's schemas for every endpoint
 * (src/contract/endpoints.ts), sent once per run (src/checks/generated/) and judged by one oracle per rule.
 */
import { section } from '../../../rule/index.ts';
import { generatedJudgement, provokeAnswers, provokeGenerated, responseSchemaJudgement } from '../../generated/judge.ts';

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md', section: 'Errors', needs: { credentials: ['v8:primary'] } });

export const generatedNo5xx = rule({
  id: 'v8.contract.generated.no-5xx',
  title: 'No generated request, valid or invalid, to any /v8 endpoint (or an unknown /v8 path) gets a 5xx',
  level: 'required',
  bulk: true,
  spec: { quote: 'Error statuses are in Errors. … `400` missing fields, budget out of range, malformed JSON' },
  judgement: generatedJudgement('v8', 'no-5xx'),
  provoke: provokeGenerated('v8', 'no-5xx'),
});

export const generatedProblemJson = rule({
  id: 'v8.contract.generated.problem-json',
  title: 'Every refusal (4xx) of a /v8 endpoint to a generated request is application/problem+json with the /v8 problem shape',
  level: 'required',
  bulk: true,
  spec: { quote: 'Failures are `application/problem+json` (RFC 9457) with fields `type` (URI string), `title`, `status` (integer), `detail`, `code` (machine-readable string), `requestId` (UUID string).' },
  judgement: generatedJudgement('v8', 'problem-json'),
  provoke: provokeGenerated('v8', 'problem-json'),
});

export const generatedErrorStatus = rule({
  id: 'v8.contract.generated.error-status',
  title: 'A generated request that breaks a constraint the description states is refused, with the status the error table names for its cause, else with a 4xx (recorded); unstated constraints are open',
  level: 'required',
  bulk: true,
  spec: {
    quote:
      '`400` missing fields, budget out of range, malformed JSON … `400` missing fields or `signal` over 256 chars … `400` missing fields, empty `classes` or bounds exceeded … A missing or expired token gives `401`.',
  },
  judgement: generatedJudgement('v8', 'error-status'),
  provoke: provokeGenerated('v8', 'error-status'),
});

export const generatedAcceptsValid = rule({
  id: 'v8.contract.generated.accepts-valid',
  title: "A generated request within every constraint the description states (bounds at their limits, every enum value, optional fields present and absent) gets the endpoint's documented success answer",
  level: 'required',
  bulk: true,
  spec: {
    section: 'Limits; Resources and their fields',
    quote:
      'Mutating operations require `Idempotency-Key`: 16-128 characters, only alphanumerics and `.`, `_`, `:`, `-`. … Request fields, all required strings: `actionFamily` (1-128 chars), `purpose` (1-256 chars), `targetType` (1-128 chars).',
  },
  judgement: generatedJudgement('v8', 'accepts-valid'),
  provoke: provokeGenerated('v8', 'accepts-valid'),
});

export const generatedResponseSchema = rule({
  id: 'v8.contract.generated.response-schema',
  title: "Every 2xx JSON answer of a /v8 endpoint in the run, whichever rule provoked it, conforms to the endpoint's contract schema",
  level: 'required',
  judgesTheRun: true,
  spec: { section: 'Endpoints', quote: 'Mission events stream text/event-stream and everything else returns JSON.' },
  judgement: responseSchemaJudgement('v8'),
  provoke: (ctx) => provokeAnswers(ctx, 'v8'),
});

export const v8GeneratedRules = [generatedNo5xx, generatedProblemJson, generatedErrorStatus, generatedAcceptsValid, generatedResponseSchema];
