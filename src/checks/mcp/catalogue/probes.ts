/**
 * The probe catalogue on /mcp (src/checks/catalogue/operators/jsonrpc.ts): the JSON-RPC envelope,
 * each method's params and the session header, inside one session, judged by the one judgement.
 */
import { section } from '../../../rule/index.ts';
import { provokeCatalogue } from '../../catalogue/judge.ts';
import { catalogueJudgement } from '../../catalogue/traffic.ts';
import { SPEC_URL } from '../support/session.ts';

const rule = section({ surface: 'mcp', document: 'mcp-2025-03-26', needs: { credentials: ['mcp:primary'] } });

export const catalogueNo5xx = rule({
  id: 'mcp.catalogue.no-5xx',
  title: 'No catalogue message (odd ids, unknown methods, batches, JSON text forms, wrong params, session headers) gets an HTTP 5xx from /mcp',
  level: 'required',
  bulk: true,
  spec: { section: 'Base Protocol > Messages (JSON-RPC 2.0)', quote: 'All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.', url: SPEC_URL.base },
  judgement: catalogueJudgement('mcp', 'no-5xx'),
  provoke: provokeCatalogue('mcp', 'no-5xx'),
});

export const catalogueProblemJson = rule({
  id: 'mcp.catalogue.problem-json',
  title: 'Every refusal of a catalogue message by /mcp is a JSON-RPC error with an integer code and a message, or a bodiless HTTP error',
  level: 'required',
  bulk: true,
  spec: { section: 'Base Protocol > Messages (JSON-RPC 2.0)', quote: 'Error codes MUST be integers. … errors MUST include an error code and message at minimum.', url: SPEC_URL.base },
  judgement: catalogueJudgement('mcp', 'problem-json'),
  provoke: provokeCatalogue('mcp', 'problem-json'),
});

export const catalogueErrorStatus = rule({
  id: 'mcp.catalogue.error-status',
  title: 'A catalogue message JSON-RPC or MCP says must fail (an unknown method, a batch of a number, tools/call without a tool name) gets an error; tools/call arguments that are not an object get an error or a tool result with isError: true',
  level: 'required',
  bulk: true,
  spec: { section: 'Base Protocol > Messages (JSON-RPC 2.0)', quote: 'All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.', url: SPEC_URL.base },
  judgement: catalogueJudgement('mcp', 'error-status'),
  provoke: provokeCatalogue('mcp', 'error-status'),
});

export const catalogueAcceptsValid = rule({
  id: 'mcp.catalogue.accepts-valid',
  title: 'A legal catalogue message (a long or negative id, escaped JSON text) gets a result carrying its own id',
  level: 'required',
  bulk: true,
  spec: { section: 'Base Protocol > Messages (JSON-RPC 2.0)', quote: 'Responses MUST include the same ID as the request they correspond to.', url: SPEC_URL.base },
  judgement: catalogueJudgement('mcp', 'accepts-valid'),
  provoke: provokeCatalogue('mcp', 'accepts-valid'),
});

export const mcpCatalogueRules = [catalogueNo5xx, catalogueProblemJson, catalogueErrorStatus, catalogueAcceptsValid];
