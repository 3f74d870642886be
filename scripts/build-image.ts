/**
 * Builds apicert's image where no registry is reachable (so no `FROM node`): a root file system
 * holding one Node binary, the shared libraries it links, and apicert with its production
 * dependencies only, given to `docker import`. The image runs the same `bin/apicert.js` entry point
 * as the Dockerfile's; `fake`, `certify` and `rules` are its commands.
 *
 *   npx node scripts/build-image.ts [IMAGE[:TAG]]      # default apicert:local; npx: the pinned Node 24
 *
 * Needs the docker CLI with an engine (DOCKER_HOST), GNU tar and `ldd`; Linux only, like the engine it feeds.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What apicert reads at run time, besides node_modules. */
const APP_PATHS = ['package.json', 'bin', 'src', 'scenarios', 'load', 'reports/templates'];

/** Waits for the process to exit; its stdout may belong to the next process in the pipe. */
function finished(child: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: -1, stderr: `${error.message}\n` }));
    child.on('exit', (code) => {
      if (child.stderr && !child.stderr.readableEnded) child.stderr.once('end', () => resolve({ code, stderr }));
      else resolve({ code, stderr });
    });
  });
}

function run(command: string, args: string[], cwd = ROOT): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.error?.message}`);
  return result.stdout;
}

/** Top-level folders of the production dependency tree (nested ones come along with their parent). */
function productionPackages(): string[] {
  const paths = run('npm', ['ls', '--omit=dev', '--all', '--parseable']).split('\n').filter(Boolean);
  return [...new Set(paths.map((p) => relative(ROOT, p)).filter((p) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(p)))];
}

/** Every library the binary links, and the loader, at their absolute paths. */
function linkedLibraries(binary: string): string[] {
  return run('ldd', [binary])
    .split('\n')
    .map((line) => /=>\s*(\/\S+)/.exec(line)?.[1] ?? /^\s*(\/\S+)/.exec(line)?.[1])
    .filter((p): p is string => Boolean(p));
}

/** The system part of the root file system: Node, the libraries it links, a few /etc files. */
async function systemRoot(into: string, nodeBinary: string): Promise<void> {
  const node = await realpath(nodeBinary);
  await mkdir(join(into, 'usr/local/bin'), { recursive: true });
  await cp(node, join(into, 'usr/local/bin/node'));
  for (const lib of linkedLibraries(node)) {
    await mkdir(join(into, dirname(lib)), { recursive: true });
    await cp(await realpath(lib), join(into, lib));
  }
  await mkdir(join(into, 'etc'), { recursive: true });
  await writeFile(join(into, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/false\nnobody:x:65534:65534:nobody:/:/bin/false\n');
  await writeFile(join(into, 'etc/group'), 'root:x:0:\nnogroup:x:65534:\n');
  await writeFile(join(into, 'etc/nsswitch.conf'), 'hosts: files\n');
  await writeFile(join(into, 'etc/hosts'), '127.0.0.1 localhost\n::1 localhost\n');
  await mkdir(join(into, 'tmp'), { recursive: true });
  await chmod(join(into, 'tmp'), 0o1777);
  await mkdir(join(into, 'work'), { recursive: true });
}

/** `docker import` settings: the same entry point as the Dockerfile's. */
const CHANGES = ['ENV PATH=/usr/local/bin:/usr/bin:/bin', 'ENV HOME=/tmp', 'WORKDIR /work', 'ENTRYPOINT ["/usr/local/bin/node", "/app/bin/apicert.js"]', 'CMD ["--help"]'];

/**
 * Builds IMAGE with `docker import` of one tar stream: the system part from a temporary folder,
 * apicert's files straight from the checkout, renamed under /app (no copy of node_modules).
 * Node is the pinned Node 24 unless given.
 */
export async function buildImage(image: string, nodeBinary = join(ROOT, 'node_modules/node/bin/node')): Promise<void> {
  const system = await mkdtemp(join(tmpdir(), 'apicert-rootfs-'));
  try {
    await systemRoot(system, nodeBinary);
    const app = [...APP_PATHS, ...productionPackages()];
    // Members from the checkout have no "./" prefix: only they are moved under app/.
    const tar = ['-c', '-C', system, '.', '-C', ROOT, '--transform', 's,^\\([^.]\\),app/\\1,', ...app];
    const importArgs = ['import', ...CHANGES.flatMap((c) => ['--change', c]), '-', image];
    const packer = spawn('tar', tar, { stdio: ['ignore', 'pipe', 'pipe'] });
    const importer = spawn('docker', importArgs, { stdio: [packer.stdout, 'pipe', 'pipe'] });
    const [packed, imported] = await Promise.all([finished(packer), finished(importer)]);
    if (packed.code !== 0 || imported.code !== 0) throw new Error(`building ${image} failed: ${packed.stderr}${imported.stderr}`.trim());
  } finally {
    await rm(system, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const image = process.argv[2] ?? 'apicert:local';
  const started = performance.now();
  await buildImage(image);
  console.log(`built ${image} in ${Math.round(performance.now() - started)} ms`);
}
