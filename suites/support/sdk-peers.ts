/**
 * MCP servers built with the official TypeScript SDK (McpServer + StreamableHTTPServerTransport),
 * wired the way the SDK's README wires them, as loopback peers: real servers written elsewhere,
 * so the /mcp rules are tried against choices that are not the fake's.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export const PEER_KINDS = ['stateful-json', 'stateful-sse', 'stateless'] as const;
export type PeerKind = (typeof PEER_KINDS)[number];

/** Where the peers mount MCP: not /mcp, so every rule must follow the configured endpoint. */
export const PEER_PATH = '/api/mcp';

export interface SdkPeer {
  kind: PeerKind;
  baseUrl: string;
  /** The MCP endpoint's full URL. */
  endpoint: string;
  close(): Promise<void>;
}

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'apicert-sdk-peer', version: '0.0.0' });
  server.registerTool('echo', { description: 'Returns its text; no side effects.', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The README's answer to a request without a usable session. */
function noSession(res: ServerResponse): void {
  res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null }));
}

export async function startSdkPeer(kind: PeerKind): Promise<SdkPeer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let port = 0;

  async function stateful(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (known) {
      await known.handleRequest(req, res);
      return;
    }
    if (sessionId !== undefined || req.method !== 'POST') return noSession(res);
    const body = await readJson(req);
    if (!isInitializeRequest(body)) return noSession(res);
    const json = kind === 'stateful-json';
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: json,
      onsessioninitialized: (id) => void transports.set(id, transport),
      // The JSON peer follows the README's advice for local servers; the SSE peer keeps the default (off).
      ...(json ? { enableDnsRebindingProtection: true, allowedHosts: [`127.0.0.1:${port}`], allowedOrigins: [`http://127.0.0.1:${port}`] } : {}),
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
    };
    await mcpServer().connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async function stateless(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = mcpServer();
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  }

  const http = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://peer').pathname;
    if (path !== PEER_PATH) {
      res.writeHead(404).end();
      return;
    }
    (kind === 'stateless' ? stateless(req, res) : stateful(req, res)).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  port = (http.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    kind,
    baseUrl,
    endpoint: `${baseUrl}${PEER_PATH}`,
    async close() {
      for (const t of transports.values()) await t.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
