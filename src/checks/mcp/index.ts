import type { Rule } from '../../rule/index.ts';
import { tokenObservation } from './auth/tokens.ts';
import { batchNotifications202, batchRequests } from './batch/batching.ts';
import { idEchoed, invalidParams, invalidRequest, methodNotFound, parseError, resultXorError } from './jsonrpc/messages.ts';
import { initializeResultRule, versionEcho, versionUnknown } from './lifecycle/initialization.ts';
import { batchingLater, protocolVersionHeader } from './revisions/later.ts';
import { deleteTerminates, idVisibleAscii, missing400, unknown404 } from './session/management.ts';
import { closesAfterResponse, eventIdsUnique } from './sse/streams.ts';
import { get405 } from './transport/get.ts';
import { originObservation } from './transport/origin.ts';
import { accepted202, requestResponse } from './transport/sending.ts';

/** /mcp: MCP 2025-03-26 Streamable HTTP transport and lifecycle, in the order of the specification. */
export const mcpRules: Rule[] = [
  initializeResultRule,
  versionEcho,
  versionUnknown,
  accepted202,
  requestResponse,
  get405,
  idVisibleAscii,
  missing400,
  unknown404,
  deleteTerminates,
  parseError,
  invalidRequest,
  methodNotFound,
  invalidParams,
  resultXorError,
  idEchoed,
  batchRequests,
  batchNotifications202,
  eventIdsUnique,
  closesAfterResponse,
  tokenObservation,
  originObservation,
  protocolVersionHeader,
  batchingLater,
];
