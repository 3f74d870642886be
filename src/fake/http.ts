import type { IncomingMessage, ServerResponse } from 'node:http';

export const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

export interface RouteRequest {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  query: URLSearchParams;
  params: string[];
  /** Lower-cased request header, or undefined. */
  header(name: string): string | undefined;
  /** The raw request body; read once, bounded by MAX_REQUEST_BYTES. */
  body(): Promise<string>;
}

export type RouteHandler = (r: RouteRequest) => void | Promise<void>;

export interface Route {
  method: string;
  /** Matched against the path; capture groups become `params`. */
  pattern: RegExp;
  handler: RouteHandler;
}

export class BodyTooLarge extends Error {}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        reject(new BodyTooLarge());
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Routes are grouped by their first path segment so a lookup scans a handful of patterns. */
export class Router {
  private readonly byPrefix = new Map<string, Route[]>();

  add(routes: Route[]): void {
    for (const route of routes) {
      const prefix = /^\^\\?\/([a-z0-9-]+)/.exec(route.pattern.source)?.[1] ?? '';
      const list = this.byPrefix.get(prefix) ?? [];
      list.push(route);
      this.byPrefix.set(prefix, list);
    }
  }

  /** Returns the matching route, `'method'` when the path exists for another method, or undefined. */
  match(method: string, path: string): { route: Route; params: string[] } | 'method' | undefined {
    const prefix = path.split('/', 2)[1] ?? '';
    let pathMatched = false;
    for (const route of this.byPrefix.get(prefix) ?? []) {
      const m = route.pattern.exec(path);
      if (!m) continue;
      if (route.method !== method) {
        pathMatched = true;
        continue;
      }
      return { route, params: m.slice(1).map((p) => decodeURIComponent(p)) };
    }
    return pathMatched ? 'method' : undefined;
  }

  /** The methods the routes of `path` serve: a 405's Allow. */
  methodsOf(path: string): string[] {
    const prefix = path.split('/', 2)[1] ?? '';
    const methods = new Set<string>();
    for (const route of this.byPrefix.get(prefix) ?? []) if (route.pattern.test(path)) methods.add(route.method);
    return [...methods];
  }
}
