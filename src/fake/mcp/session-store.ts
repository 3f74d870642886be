import { randomUUID } from 'node:crypto';
import { MCP_REVISION } from '../../contract/mcp/lifecycle.ts';

export interface McpSession {
  id: string;
  principal: string;
  protocolVersion: string;
  /** Set by `notifications/initialized`. */
  initialized: boolean;
  /** SSE event ids are unique across every stream of a session; this is the last one used. */
  lastEventId: number;
  /** Requests served in the session so far (a variant ends it after a number of them). */
  requests: number;
}

/** Sessions kept in memory; both maps are bounded so a long-running fake cannot grow without limit. */
export class SessionStore {
  static readonly MAX_LIVE = 5_000;
  static readonly MAX_ENDED = 20_000;
  private readonly live = new Map<string, McpSession>();
  private readonly ended = new Set<string>();

  create(principal: string, protocolVersion: string, id: string = randomUUID()): McpSession {
    const session: McpSession = { id, principal, protocolVersion, initialized: false, lastEventId: 0, requests: 0 };
    this.live.set(id, session);
    if (this.live.size > SessionStore.MAX_LIVE) this.end(this.live.keys().next().value!);
    return session;
  }

  /** A session that is not stored: for requests served without a session id (a fault). */
  ephemeral(principal: string): McpSession {
    return { id: '', principal, protocolVersion: MCP_REVISION, initialized: true, lastEventId: 0, requests: 0 };
  }

  get(id: string): McpSession | undefined {
    return this.live.get(id);
  }

  wasIssued(id: string): boolean {
    return this.live.has(id) || this.ended.has(id);
  }

  end(id: string): void {
    if (!this.live.delete(id)) return;
    this.ended.add(id);
    if (this.ended.size > SessionStore.MAX_ENDED) this.ended.delete(this.ended.values().next().value!);
  }
}
