/**
 * Generated contract probes of /v1: requests derived from the contract's schemas for every endpoint
 * (src/contract/endpoints.ts), sent once per run (src/checks/generated/) and judged by one oracle per rule.
 */
import { section } from '../../../rule/index.ts';
import { generatedJudgement, provokeAnswers, provokeGenerated, responseSchemaJudgement } from '../../generated/judge.ts';

const rule = section({ surface: 'v1', document: 'v1-execution-fabric.md', section: 'Errors', needs: { credentials: ['v1:primary'] } });

export const generatedNo5xx = rule({
  id: 'v1.contract.generated.no-5xx',
  title: 'No generated request, valid or invalid, to any /v1 endpoint (or an unknown /v1 path) gets a 5xx',
  level: 'required',
  bulk: true,
  spec: { quote: 'ErrorCode values: `authentication_failed`, `authorization_failed`, `entitlement_failed`, `rate_limited`, `invalid_request`' },
  judgement: generatedJudgement('v1', 'no-5xx'),
  provoke: provokeGenerated('v1', 'no-5xx'),
});

export const generatedProblemJson = rule({
  id: 'v1.contract.generated.problem-json',
  title: 'Every refusal (4xx) of a /v1 endpoint to a generated request is application/problem+json with the closed /v1 Problem shape',
  level: 'required',
  bulk: true,
  spec: {
    section: 'Endpoints; Errors',
    quote: 'Error responses on every endpoint are `application/problem+json` (see Errors). … Errors are RFC 9457 `application/problem+json`. … No extra properties are allowed in Problem or FieldError.',
  },
  judgement: generatedJudgement('v1', 'problem-json'),
  provoke: provokeGenerated('v1', 'problem-json'),
});

export const generatedErrorStatus = rule({
  id: 'v1.contract.generated.error-status',
  title: 'A generated request that breaks a constraint the description states is refused with a 4xx (no status mapping is given: the status is recorded); unstated constraints are open',
  level: 'required',
  bulk: true,
  spec: { quote: 'ErrorCode values: `authentication_failed`, `authorization_failed`, `entitlement_failed`, `rate_limited`, `invalid_request` … Mapping of each `code` to an HTTP status: not shown.' },
  judgement: generatedJudgement('v1', 'error-status'),
  provoke: provokeGenerated('v1', 'error-status'),
});

export const generatedAcceptsValid = rule({
  id: 'v1.contract.generated.accepts-valid',
  title: "A generated request within every constraint the description states (bounds at their limits, every enum value and part type, optional fields present and absent) gets the endpoint's documented success answer",
  level: 'required',
  bulk: true,
  spec: {
    section: 'Limits',
    quote: 'Field bounds are in Resources: messages 1-512, parts 1-64, text 200000 chars, metadata 32 keys, approvals 64, capabilities 64, tool filter lists 256, `timeoutMs` 1000-120000.',
  },
  judgement: generatedJudgement('v1', 'accepts-valid'),
  provoke: provokeGenerated('v1', 'accepts-valid'),
});

export const generatedResponseSchema = rule({
  id: 'v1.contract.generated.response-schema',
  title: "Every 2xx JSON answer of a /v1 endpoint in the run, whichever rule provoked it, conforms to the endpoint's contract schema",
  level: 'required',
  judgesTheRun: true,
  spec: {
    section: 'Resources and their fields',
    quote: 'A JSON object with required `run_id` (string). Other properties are allowed. … The creation response (HTTP `201`) returns `signing_secret` exactly once, at creation.',
  },
  judgement: responseSchemaJudgement('v1'),
  provoke: (ctx) => provokeAnswers(ctx, 'v1'),
});

export const v1GeneratedRules = [generatedNo5xx, generatedProblemJson, generatedErrorStatus, generatedAcceptsValid, generatedResponseSchema];
