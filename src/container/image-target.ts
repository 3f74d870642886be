/**
 * `certify --image`: the deployment under test is started from a container image with
 * testcontainers' GenericContainer, waited for, certified and stopped. The container shares the
 * host network, so apicert reaches it on loopback (127.0.0.1:PORT) and nothing is published beyond
 * what the image itself listens on. testcontainers is imported only here, on first use.
 */
import type { StartedTestContainer } from 'testcontainers';
import { fetch } from 'undici';

const LOG_LIMIT_BYTES = 256 * 1024;

export interface ImageTargetOptions {
  /** IMAGE[:TAG], already present on the engine or pullable by it. */
  image: string;
  /** The port the image's server listens on. */
  port: number;
  env?: Record<string, string>;
  /** Arguments after the image's entry point (its CMD otherwise). */
  command?: string[];
  /** Host folders to mount, e.g. one the container writes its profile to. */
  mounts?: Array<{ source: string; target: string; mode?: 'rw' | 'ro' }>;
  /** Ready once a log line matches. */
  waitLog?: RegExp;
  /** Ready once GET PATH answers 2xx; without waitLog or waitHttp, once the port answers HTTP at all. */
  waitHttp?: string;
  startupTimeoutMs?: number;
}

/**
 * testcontainers is an optional peer dependency: a package user who never passes --image does not
 * install its SSH and protobuf stack. Without it, --image is a usage error naming what to install.
 */
export class TestcontainersMissing extends Error {
  override readonly name = 'TestcontainersMissing';
}

async function testcontainers(): Promise<typeof import('testcontainers')> {
  try {
    return await import('testcontainers');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') throw new TestcontainersMissing('--image needs the testcontainers package, which apicert does not install for you: npm install --save-dev testcontainers (then run the same command again)');
    throw error;
  }
}

/** No container engine answered: the CLI exits 3 and says what to start. */
export class ContainerEngineUnavailable extends Error {
  override readonly name = 'ContainerEngineUnavailable';
}

/** The container did not start or never became ready; `log` is what it printed. */
export class ContainerStartFailed extends Error {
  override readonly name = 'ContainerStartFailed';
  readonly log: string;
  constructor(message: string, log: string) {
    super(message);
    this.log = log;
  }
}

export interface StartedImageTarget {
  baseUrl: string;
  image: string;
  /** Everything the container printed so far (the last 256 KiB). */
  log(): string;
  stop(): Promise<void>;
}

/** Keeps the tail of a stream, bounded. */
class LogTail {
  private chunks: string[] = [];
  private size = 0;

  add(text: string): void {
    this.chunks.push(text);
    this.size += text.length;
    while (this.size > LOG_LIMIT_BYTES && this.chunks.length > 1) this.size -= this.chunks.shift()!.length;
  }

  toString(): string {
    return this.chunks.join('');
  }
}

function engineHint(): string {
  return 'start Docker (or Podman with its Docker socket) and make DOCKER_HOST point at it; on a machine without a registry, set TESTCONTAINERS_RYUK_DISABLED=true (see README.md, "Certifying a container image")';
}

async function ensureEngine(): Promise<void> {
  const { getContainerRuntimeClient } = await testcontainers();
  try {
    await getContainerRuntimeClient();
  } catch (error) {
    throw new ContainerEngineUnavailable(`no container engine answered (${error instanceof Error ? error.message.split('\n')[0] : String(error)}): ${engineHint()}`);
  }
}

async function waitForHttp(baseUrl: string, path: string | undefined, deadline: number): Promise<void> {
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(new URL(path ?? '/', baseUrl), { signal: AbortSignal.timeout(2_000) });
      await res.body?.cancel();
      if (path === undefined || (res.status >= 200 && res.status < 300)) return;
      last = `HTTP ${res.status}`;
    } catch (error) {
      last = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${new URL(path ?? '/', baseUrl).href} was not ready in time (last: ${last})`);
}

export async function startImageTarget(options: ImageTargetOptions): Promise<StartedImageTarget> {
  await ensureEngine();
  const { GenericContainer, Wait } = await testcontainers();
  const timeoutMs = options.startupTimeoutMs ?? 60_000;
  const tail = new LogTail();
  let container = new GenericContainer(options.image)
    .withNetworkMode('host')
    .withEnvironment(options.env ?? {})
    .withStartupTimeout(timeoutMs)
    .withLogConsumer((stream) => {
      // testcontainers splits the container's output into lines: stdout as "data", stderr as "err".
      stream.on('data', (line: Buffer | string) => tail.add(`${line.toString().replace(/\n$/, '')}\n`));
      stream.on('err', (line: Buffer | string) => tail.add(`${line.toString().replace(/\n$/, '')}\n`));
    });
  if (options.command?.length) container = container.withCommand(options.command);
  if (options.mounts?.length) container = container.withBindMounts(options.mounts.map((m) => ({ source: m.source, target: m.target, mode: m.mode ?? 'rw' })));
  // The HTTP wait of testcontainers needs a mapped port, which host networking has not: only the log wait is its own.
  if (options.waitLog) container = container.withWaitStrategy(Wait.forLogMessage(options.waitLog));
  const baseUrl = `http://127.0.0.1:${options.port}`;
  let started: StartedTestContainer;
  try {
    started = await container.start();
  } catch (error) {
    throw new ContainerStartFailed(`${options.image} did not start: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, tail.toString());
  }
  const stop = async () => {
    await started.stop({ timeout: 5_000 }).catch(() => undefined);
  };
  if (!options.waitLog) {
    try {
      await waitForHttp(baseUrl, options.waitHttp, Date.now() + timeoutMs);
    } catch (error) {
      const log = tail.toString();
      await stop();
      throw new ContainerStartFailed(`${options.image} started but ${(error as Error).message}`, log);
    }
  }
  return { baseUrl, image: options.image, log: () => tail.toString(), stop };
}
