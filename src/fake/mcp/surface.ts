import type { FakeContext } from '../context.ts';
import { ResponseFactory } from './jsonrpc.ts';
import { SessionStore } from './session-store.ts';

/** What every /mcp area shares: the fake, its sessions and the response builder. */
export interface McpSurface {
  fake: FakeContext;
  sessions: SessionStore;
  responses: ResponseFactory;
}

export function mcpSurface(fake: FakeContext): McpSurface {
  return { fake, sessions: new SessionStore(), responses: new ResponseFactory(fake) };
}
