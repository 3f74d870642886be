import { z } from 'zod';

/** The revision /mcp follows ("MCP 2025-03-26 Streamable HTTP"). */
export const MCP_REVISION = '2025-03-26';

const implementation = z.looseObject({ name: z.string(), version: z.string() });

export const initializeParams = z.looseObject({
  protocolVersion: z.string(),
  capabilities: z.looseObject({}),
  clientInfo: implementation,
});

/** "The server MUST respond with its own capabilities and information" */
export const initializeResult = z.looseObject({
  protocolVersion: z.string().min(1),
  capabilities: z.looseObject({}),
  serverInfo: implementation,
  instructions: z.string().optional(),
});
