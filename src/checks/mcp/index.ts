import type { Rule } from '../../rule/index.ts';
import { mcpCatalogueRules } from './catalogue/probes.ts';
import { challenge } from './auth/challenge.ts';
import { expired401 } from './auth/expired.ts';
import { tokenObservation } from './auth/tokens.ts';
import { answerArray, batchNotifications202, batchRequests, emptyBatch } from './batch/batching.ts';
import { generatedErrors } from './jsonrpc/generated.ts';
import { idEchoed, invalidParams, invalidRequest, methodNotFound, parseError, resultXorError } from './jsonrpc/messages.ts';
import { initializeResultRule, requestsBeforeInitialized, versionEcho, versionLatest, versionUnknown } from './lifecycle/initialization.ts';
import { mcpRunSecrets } from './redaction/run-secrets.ts';
import { batchingLater, protocolVersionHeader } from './revisions/later.ts';
import { deleteTerminates, endedStays404, idUnique, idVisibleAscii, missing400, neverIssued } from './session/management.ts';
import { closesAfterResponse, eventIdsUnique, noBroadcast } from './sse/streams.ts';
import { allowOn405 } from './transport/allow.ts';
import { get405, getStreamOr405 } from './transport/get.ts';
import { hostObservation, originRefused } from './transport/origin.ts';
import { accepted202, requestResponse } from './transport/sending.ts';

/** /mcp: MCP 2025-03-26 Streamable HTTP transport and lifecycle, in the order of the specification. */
export const mcpRules: Rule[] = [
  initializeResultRule,
  versionEcho,
  versionUnknown,
  versionLatest,
  requestsBeforeInitialized,
  accepted202,
  requestResponse,
  get405,
  getStreamOr405,
  allowOn405,
  idVisibleAscii,
  idUnique,
  missing400,
  neverIssued,
  deleteTerminates,
  endedStays404,
  parseError,
  invalidRequest,
  methodNotFound,
  invalidParams,
  resultXorError,
  idEchoed,
  generatedErrors,
  batchRequests,
  batchNotifications202,
  answerArray,
  emptyBatch,
  eventIdsUnique,
  closesAfterResponse,
  noBroadcast,
  tokenObservation,
  expired401,
  challenge,
  mcpRunSecrets,
  originRefused,
  hostObservation,
  protocolVersionHeader,
  batchingLater,  ...mcpCatalogueRules,
];
