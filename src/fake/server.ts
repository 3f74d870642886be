import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFakeContext, type FakeBehaviour, type FakeContext } from './context.ts';
import { BodyTooLarge, readBody, Router, type RouteRequest } from './http.ts';
import { mcpRoutes } from './mcp/index.ts';
import { allowHeaders as allowHeadersMcp } from './mcp/transport.ts';
import { allowHeaders as allowHeadersV1, answersUnimplemented as answersUnimplementedV1 } from './v1/contract.ts';
import { V1Responder } from './v1/respond.ts';
import { v1Routes } from './v1/index.ts';
import { v8Routes } from './v8/index.ts';
import { MissionEngine } from './v8/missions/engine.ts';
import { watchPaddedValues } from './v8/catalogue.ts';
import { answerClientErrors, frameworkNotFound } from './v1/contract/http-layer.ts';
import { allowHeaders as allowHeadersV8, answersUnimplemented as answersUnimplementedV8 } from './v8/contract.ts';
import { V8Responder } from './v8/respond.ts';

export interface FakeOptions extends FakeBehaviour {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Loopback only: the fake is a test double, never a service. */
  host?: '127.0.0.1' | '::1' | 'localhost';
}

export interface RunningFake {
  baseUrl: string;
  context: FakeContext;
  missions: MissionEngine;
  close(): Promise<void>;
}

/** 404 or 405 in the error flavour of the surface the path belongs to; 501 for a method the surface uses nowhere, where a variant says so. */
function notFound(fake: FakeContext, res: ServerResponse, path: string, method: string, allowed: readonly string[] | undefined): void {
  const methodOnly = allowed !== undefined;
  const v1 = path.startsWith('/v1/');
  if (v1 ? answersUnimplementedV1(fake, method) : path.startsWith('/v8/') && answersUnimplementedV8(fake, method)) {
    const detail = `This server implements ${method} for no resource.`;
    if (v1) new V1Responder(fake).problem(res, 501, 'invalid_request', { detail, retryable: false });
    else new V8Responder(fake).problem(res, 501, 'not_implemented', detail);
    return;
  }
  if (v1 && frameworkNotFound(fake, res, method, path)) return;
  const status = methodOnly ? 405 : 404;
  const detail = methodOnly ? 'This path does not accept this method.' : `No route for ${path}.`;
  const headers = allowed === undefined ? {} : v1 ? allowHeadersV1(fake, allowed) : path.startsWith('/v8/') ? allowHeadersV8(fake, allowed) : allowHeadersMcp(fake, allowed.join(', '));
  if (v1) new V1Responder(fake).problem(res, status, 'invalid_request', { detail, retryable: false, headers });
  else new V8Responder(fake).problem(res, status, methodOnly ? 'method_not_allowed' : 'not_found', detail, headers);
}

/** RFC 9112 3.2: "more than one Host header field line" is answered 400, in the flavour of the surface the path belongs to. */
function refuseHosts(fake: FakeContext, req: IncomingMessage, res: ServerResponse, path: string): boolean {
  const hosts = req.rawHeaders.filter((_, i) => i % 2 === 0 && req.rawHeaders[i]!.toLowerCase() === 'host').length;
  if (hosts <= 1) return false;
  const detail = 'A request carries exactly one Host header.';
  if (path.startsWith('/v1/')) new V1Responder(fake).problem(res, 400, 'invalid_request', { detail, retryable: false, exactStatus: true });
  else if (path.startsWith('/v8/')) new V8Responder(fake).problem(res, 400, 'bad_request', detail);
  else {
    res.writeHead(400);
    res.end();
  }
  return true;
}

/** RFC 9112 3.2.2: "a server MUST accept the absolute-form in requests"; routing reads the path and query. */
function originForm(url: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return url;
  const after = url.indexOf('/', url.indexOf('//') + 2);
  return after === -1 ? '/' : url.slice(after);
}

/** Every surface's routes: /v8 (with its mission engine, which the traces read), /v1 with its webhooks, /mcp. */
function routerOf(context: FakeContext, missions: MissionEngine): Router {
  const router = new Router();
  router.add(v8Routes(context, missions));
  router.add(v1Routes(context));
  router.add(mcpRoutes(context));
  return router;
}

function handlerOf(context: FakeContext, router: Router): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const rawUrl = originForm(req.url ?? '/');
    const q = rawUrl.indexOf('?');
    const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
    if (refuseHosts(context, req, res, path)) return;
    const found = router.match(req.method ?? 'GET', path);
    if (found === undefined || found === 'method') {
      notFound(context, res, path, req.method ?? 'GET', found === 'method' ? router.methodsOf(path) : undefined);
      return;
    }
    let bodyPromise: Promise<string> | undefined;
    const r: RouteRequest = {
      req,
      res,
      path,
      query: new URLSearchParams(q === -1 ? '' : rawUrl.slice(q + 1)),
      params: found.params,
      header: (name) => {
        const value = req.headers[name];
        return Array.isArray(value) ? value.join(', ') : value;
      },
      body: () => (bodyPromise ??= readBody(req)),
    };
    await found.route.handler(r);
  };
}

/** The largest request head the fake's listener reads: above every head apicert sends. */
const FAKE_MAX_HEADER_BYTES = 64 * 1024;

/** Starts the reference fake of the /v8 gateway, the /v1 execution fabric and /mcp on loopback. */
export async function startFake(options: FakeOptions = {}): Promise<RunningFake> {
  const context = createFakeContext(options);
  const missions = new MissionEngine(context);
  const handle = handlerOf(context, routerOf(context, missions));
  // Node refuses a head past 16 KiB itself, with a bodiless 431 before any route: the fake reads the catalogue's 16 KiB header, and a limit is a variant's choice (`v8.contract/header-limit-431`).
  const server: Server = createServer({ maxHeaderSize: FAKE_MAX_HEADER_BYTES }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const v8 = new V8Responder(context);
      if (error instanceof BodyTooLarge) v8.problem(res, 413, 'body_too_large', 'The request body is too large.');
      else v8.problem(res, 500, 'internal_error', 'The fake server hit an unexpected error.');
    });
  });
  server.keepAliveTimeout = 5_000;
  // A fault that reads the head's bytes (Node's parser trims header values): a no-op without it.
  watchPaddedValues(context, server);
  // Node's parser refuses the message before any route: a front that answers it itself, where a variant says so.
  answerClientErrors(context, server);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://${host === '::1' ? '[::1]' : host}:${port}`;
  return {
    baseUrl,
    context,
    missions,
    close: () =>
      new Promise<void>((resolve) => {
        context.lifecycle.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
