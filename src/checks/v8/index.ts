/** Every /v8 rule: missions first, then the read surfaces, then the contract header and the error shape. */
import type { Rule } from '../../rule/index.ts';
import { v8CatalogueRules } from './catalogue/probes.ts';
import { allowOn405 } from './contract/allow.ts';
import { httpOrigin } from './contract/https.ts';
import { v8GeneratedRules } from './contract/generated.ts';
import { versionHeader } from './contract/version-header.ts';
import { problemShape } from './errors/problem.ts';
import { v8MissionRules } from './missions/index.ts';
import { principalFromToken } from './principal/from-token.ts';
import { challenge } from './auth/challenge.ts';
import { scopeMatrix } from './auth/scope-matrix.ts';
import { searchOk, searchPrincipal, searchValidation } from './capabilities/search.ts';
import { goalsCompartment, goalsPayloadForm, goalsShape } from './goals/goals.ts';
import { coverageContractVersion, coverageScopeFiltered, coverageShape } from './coverage/report.ts';
import { intentsExistence } from './intents/intents.ts';
import { queryBounds, queryLimits, queryOk, queryOrder, queryPrincipal, queryPurpose } from './memory/query.ts';
import { redactionCanaries } from './redaction/redaction.ts';
import { runSecrets } from './redaction/run-secrets.ts';
import { skillOk, skillPathBounds, skillUnknown } from './skills/get.ts';
import { traceCompletedAt, traceOk, tracePathBounds, traceResolves, traceUnknown } from './traces/get.ts';
import { certificatesHealth, certificatesPayloadForm, certificatesShape } from './certificates/certificates.ts';

export const v8Rules: Rule[] = [
  ...v8MissionRules,
  redactionCanaries,
  runSecrets,
  queryOk,
  queryBounds,
  queryPrincipal,
  queryPurpose,
  queryOrder,
  queryLimits,
  searchOk,
  searchValidation,
  searchPrincipal,
  traceOk,
  traceResolves,
  traceCompletedAt,
  traceUnknown,
  tracePathBounds,
  skillOk,
  skillUnknown,
  skillPathBounds,
  goalsShape,
  goalsPayloadForm,
  goalsCompartment,
  certificatesShape,
  certificatesPayloadForm,
  certificatesHealth,
  coverageShape,
  coverageContractVersion,
  coverageScopeFiltered,
  intentsExistence,
  scopeMatrix,
  challenge,
  principalFromToken,
  versionHeader,
  httpOrigin,
  allowOn405,
  problemShape,
  ...v8GeneratedRules,  ...v8CatalogueRules,
];
