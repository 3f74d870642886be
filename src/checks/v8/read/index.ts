/** /v8 rules outside missions, in the order a reader meets them in the spec. */
import type { Rule } from '../../../catalog/types.ts';
import { principalFromToken } from '../auth/principal.ts';
import { scopeMatrix } from '../auth/scope-matrix.ts';
import { searchOk, searchPrincipal, searchValidation } from '../capabilities/search.ts';
import { goalsCompartment, goalsPayloadForm, goalsShape } from '../context-twin/goals.ts';
import { coverageContractVersion, coverageScopeFiltered, coverageShape } from '../coverage/report.ts';
import { intentsExistence } from '../intents/intents.ts';
import { queryBounds, queryLimits, queryOk, queryOrder, queryPrincipal, queryPurpose } from '../memory/query.ts';
import { redactionCanaries } from '../redaction/redaction.ts';
import { skillOk, skillPathBounds, skillUnknown } from '../skills/get.ts';
import { traceCompletedAt, traceOk, tracePathBounds, traceResolves, traceUnknown } from '../traces/get.ts';
import { certificatesHealth, certificatesPayloadForm, certificatesShape } from '../world-model/certificates.ts';

export const v8ReadRules: Rule[] = [
  redactionCanaries,
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
  principalFromToken,
];
