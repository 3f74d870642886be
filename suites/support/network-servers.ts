/**
 * What stands between apicert and a real gateway, on loopback for the network tests: a certificate
 * authority made with the openssl CLI, a TLS terminator (optionally demanding a client certificate)
 * in front of the fake, a header gate, and a forward proxy that tunnels CONNECT and forwards
 * absolute-form requests. Each records what it saw.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';

/**
 * A name for 127.0.0.1 that only the forward proxy resolves (its `hosts`): Go's net/http (k6) never
 * proxies localhost or a loopback address, so a proxy test of k6 names the target this way.
 */
export const GATEWAY_HOST = 'apicert-gateway.test';

export interface TestPki {
  dir: string;
  caFile: string;
  serverCert: string;
  serverKey: string;
  clientCertFile: string;
  clientKeyFile: string;
  /** A client certificate signed by nobody the server trusts. */
  strangerCertFile: string;
  strangerKeyFile: string;
  ca: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe', timeout: 20_000 });
}

/** A CA, a server certificate for 127.0.0.1 and a client certificate it signed (P-256, one day). */
export function makePki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'apicert-pki-'));
  const key = (name: string) => openssl(dir, ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', `${name}.key`]);
  key('ca');
  openssl(dir, ['req', '-x509', '-new', '-key', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=apicert test CA']);
  const signed = (name: string, cn: string, ext: string, ca = 'ca') => {
    key(name);
    openssl(dir, ['req', '-new', '-key', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`]);
    writeFileSync(join(dir, `${name}.ext`), ext);
    openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-out', `${name}.pem`, '-days', '1', '-extfile', `${name}.ext`]);
  };
  signed('server', '127.0.0.1', `subjectAltName=IP:127.0.0.1,DNS:${GATEWAY_HOST}\nextendedKeyUsage=serverAuth\n`);
  signed('client', 'apicert client', 'extendedKeyUsage=clientAuth\n');
  key('other-ca');
  openssl(dir, ['req', '-x509', '-new', '-key', 'other-ca.key', '-out', 'other-ca.pem', '-days', '1', '-subj', '/CN=someone else']);
  signed('stranger', 'stranger', 'extendedKeyUsage=clientAuth\n', 'other-ca');
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    ca: read('ca.pem'),
    serverCert: read('server.pem'),
    serverKey: read('server.key'),
    clientCertFile: join(dir, 'client.pem'),
    clientKeyFile: join(dir, 'client.key'),
    strangerCertFile: join(dir, 'stranger.pem'),
    strangerKeyFile: join(dir, 'stranger.key'),
  };
}

export interface Front {
  url: string;
  /** One entry per TLS connection: the client certificate's subject CN, or undefined. */
  clients: Array<string | undefined>;
  close(): Promise<void>;
}

function portOf(server: { address(): unknown }): number {
  return (server.address() as AddressInfo).port;
}

function listening<T extends { listen(port: number, host: string, cb: () => void): unknown; once(e: string, f: (error: Error) => void): unknown }>(server: T): Promise<T> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function pipeBoth(a: Socket, b: Socket): void {
  a.on('error', () => b.destroy());
  b.on('error', () => a.destroy());
  a.pipe(b).pipe(a);
}

/** Terminates TLS with the test CA's server certificate and passes the bytes to `upstream` (host:port). */
export async function tlsFront(pki: TestPki, upstream: string, options: { requireClientCert?: boolean } = {}): Promise<Front> {
  const { hostname, port } = new URL(upstream);
  const clients: Array<string | undefined> = [];
  const sockets = new Set<Socket>();
  const server = createTlsServer({ key: pki.serverKey, cert: pki.serverCert, ca: pki.ca, requestCert: Boolean(options.requireClientCert), rejectUnauthorized: Boolean(options.requireClientCert) }, (socket: TLSSocket) => {
    const peer = socket.getPeerCertificate();
    const cn = peer && 'subject' in peer ? peer.subject?.CN : undefined;
    clients.push(Array.isArray(cn) ? cn.join(',') : cn);
    const up = netConnect(Number(port), hostname);
    sockets.add(socket).add(up);
    pipeBoth(socket, up);
  });
  server.on('tlsClientError', () => undefined);
  await listening(server);
  return { url: `https://127.0.0.1:${portOf(server)}`, clients, close: () => closeAll(server, sockets) };
}

function closeAll(server: { close(cb: () => void): unknown }, sockets: Set<Socket>): Promise<void> {
  for (const s of sockets) s.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}

export interface HeaderGate extends Front {
  /** Every request's method, path and the gated header's value. */
  seen: Array<{ path: string; value: string | undefined }>;
}

/** Answers 403 to any request without `header: value`, forwards the rest to `upstream`. */
export async function headerGate(upstream: string, header: string, value: string, only: RegExp): Promise<HeaderGate> {
  const seen: HeaderGate['seen'] = [];
  const sockets = new Set<Socket>();
  const target = new URL(upstream);
  const server: Server = createHttpServer((req, res) => {
    const got = req.headers[header];
    const path = req.url ?? '/';
    seen.push({ path, value: typeof got === 'string' ? got : undefined });
    if (only.test(path) && got !== value) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('the gateway wants its header');
      return;
    }
    const out = httpRequest({ host: target.hostname, port: target.port, method: req.method, path, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  server.on('connection', (s: Socket) => sockets.add(s));
  await listening(server);
  return { url: `http://127.0.0.1:${portOf(server)}`, seen, clients: [], close: () => closeAll(server, sockets) };
}

export interface ForwardProxy {
  url: string;
  /** `CONNECT host:port` tunnels and absolute-form `METHOD http://...` requests, in order. */
  seen: string[];
  /** The Proxy-Authorization header of each of them ('' when absent). */
  auth: string[];
  close(): Promise<void>;
}

/** A forward proxy: CONNECT opens a TCP tunnel, an absolute-form request is forwarded over HTTP; `hosts` resolves names of its own (to loopback). */
export async function forwardProxy(options: { hosts?: Record<string, string> } = {}): Promise<ForwardProxy> {
  const resolveHost = (host: string) => options.hosts?.[host] ?? host;
  const seen: string[] = [];
  const auth: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createHttpServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    auth.push(req.headers['proxy-authorization'] ?? '');
    const target = new URL(req.url ?? '');
    const out = httpRequest({ host: resolveHost(target.hostname), port: target.port, method: req.method, path: `${target.pathname}${target.search}`, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    auth.push(req.headers['proxy-authorization'] ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const up = netConnect(Number(port), resolveHost(host!), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) up.write(head);
      pipeBoth(client, up);
    });
    sockets.add(client).add(up);
    up.on('error', () => client.destroy());
  });
  server.on('connection', (s: Socket) => sockets.add(s));
  await listening(server);
  return { url: `http://127.0.0.1:${portOf(server)}`, seen, auth, close: () => closeAll(server, sockets) };
}
