/** The probe catalogue: every operator, by where it acts (docs/probe-catalogue.md lists each with its source). */
import { ENCODING, JSON_TEXT } from './operators/body.ts';
import { FIELDS } from './operators/fields.ts';
import { FRAMING } from './operators/framing.ts';
import { MCP_OPERATORS } from './operators/jsonrpc.ts';
import { CREDENTIALS, HEADERS, METHODS, NEGOTIATION, PATHS, QUERY } from './operators/message.ts';
import type { HttpOperator, McpOperator } from './types.ts';

export const HTTP_OPERATORS: readonly HttpOperator[] = [...FRAMING, ...ENCODING, ...JSON_TEXT, ...FIELDS, ...HEADERS, ...METHODS, ...PATHS, ...QUERY, ...NEGOTIATION, ...CREDENTIALS];

export { MCP_OPERATORS };

/** Operators that write on a raw socket, because Node's HTTP clients cannot send their form. */
export const RAW_OPERATORS: readonly string[] = HTTP_OPERATORS.filter((o) => o.raw).map((o) => o.id);
