#!/usr/bin/env node
// Launcher: in a checkout apicert is TypeScript run by Node's own type stripping; installed as a
// package it runs the CLI bundled at pack time. When started by a Node older than package.json's
// engines, re-run with the Node 24 a checkout pins as a devDependency.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import nodeModule from 'node:module';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';

/**
 * Runs apicert in another Node. Where Node can exec (process.execve, Node >= 22.15 on POSIX) this
 * process becomes it: nothing of the launcher stays resident (a second Node is about 45 MiB, a sixth
 * of what apicert promises a hostile target) and signals, exit code and PID are apicert's own.
 * Otherwise it runs apicert in a child and stays its stand-in: signals sent to this process (kill PID,
 * Ctrl-C, a CI cancelling the step) reach the child, and this process exits as the child did.
 * The child knows our PID (APICERT_LAUNCHER_PID) so a long-running command can stop when we are gone.
 */
function relaunch(node, args) {
  // glibc's malloc keeps up to 8 arenas per core, each holding on to what was freed in it; with two,
  // the every-rule run against 1 GiB answers peaks 20-30 MiB lower (of ~170). Its mmap threshold
  // otherwise rises to 32 MiB after the first large free, so the body chunks and 2 MiB answers of a
  // hostile target are carved from the arenas and kept after they are freed: fixed at 64 KiB they
  // are mapped and returned, and the same run peaks at about 270 MiB instead of 320-400 (the faster
  // it gets through the rules, the higher). A user's choice wins.
  const env = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '65536', ...process.env };
  if (typeof process.execve === 'function' && process.platform !== 'win32') {
    // No launcher stays behind, so no child may wait for one an outer apicert named.
    delete env.APICERT_LAUNCHER_PID;
    process.execve(node, [node, ...args], env);
  }
  const child = spawn(node, args, { stdio: 'inherit', env: { ...env, APICERT_LAUNCHER_PID: String(process.pid) } });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  // Under npx the shell between npm and us dies of a SIGTERM without passing it on: our parent
  // changing is then the only sign that we were told to stop.
  if (process.env.npm_command) {
    const parent = process.ppid;
    // Told once: a second SIGTERM would cut short the stop the first began (a proxy writing its report and HAR).
    const watch = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(watch);
      child.kill('SIGTERM');
    }, 500).unref();
  }
  child.on('error', (error) => {
    console.error(`apicert: could not start ${node}: ${error.message}`);
    process.exit(2);
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}

/**
 * A small young generation keeps the peak resident set about 60 MiB lower on long runs against
 * targets that churn large bodies. `gc` exposed lets apicert collect after a large answer when it
 * is above its soft memory limit (src/util/reclaim.ts): V8 frees the text of a 1 MB or larger answer
 * only in a full collection, which it starts for such memory only after some 64 MiB has gathered.
 */
const V8_FLAGS = ['--max-semi-space-size=2', '--expose-gc'];

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// One source for the Node apicert needs: package.json's engines (">=22.22").
const needed = pkg.engines.node.replace(/^>=\s*/, '');
// `apicert --version` alone answers from package.json, as the CLI would, without loading the CLI (half a second of imports).
const asked = process.argv.slice(2);
const versionOnly = asked.length === 1 && (asked[0] === '--version' || asked[0] === '-V');
const older = (a, b) => {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  return x[0] !== y[0] ? x[0] < y[0] : (x[1] ?? 0) < (y[1] ?? 0);
};
const self = fileURLToPath(import.meta.url);
// Installed as a package: below node_modules, with no pinned Node of its own.
const installed = self.split(/[\\/]/).includes('node_modules');
if (older(process.versions.node, needed)) {
  const pinned = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
  if (installed) {
    console.error(`apicert needs Node >= ${needed} (this is ${process.version}): upgrade Node.`);
    process.exit(2);
  }
  if (!existsSync(pinned)) {
    console.error(`apicert needs Node >= ${needed} (this is ${process.version}): upgrade Node, or run "npm ci" in the apicert checkout to install its pinned Node 24.`);
    process.exit(2);
  }
  relaunch(pinned, [...V8_FLAGS, self, ...process.argv.slice(2)]);
} else if (versionOnly) {
  console.log(pkg.version);
} else if (!process.execArgv.some((a) => a.startsWith('--max-semi-space-size'))) {
  // V8 takes these flags only at start, so apicert runs in a child (or becomes one).
  relaunch(process.execPath, [...process.execArgv, ...V8_FLAGS, self, ...process.argv.slice(2)]);
} else {
  // Under npx the shell between npm and us dies of a SIGTERM without passing it on: our parent
  // changing is then the only sign that we were told to stop. A launcher that stayed resident
  // watches for us (above); one that became this process cannot.
  if (process.env.npm_command && !process.env.APICERT_LAUNCHER_PID) {
    const parent = process.ppid;
    // Once, as above: SIGTERM's handler ends with the stop it starts, and another would kill us mid-stop.
    const watch = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(watch);
      process.kill(process.pid, 'SIGTERM');
    }, 500).unref();
  }
  // Type-stripping and compiling apicert's few hundred modules is most of its start-up; Node's compile
  // cache (keyed by file content and Node version) makes later starts skip it. It lives beside the
  // dependencies, where only who installed them writes, not in a temporary folder every user shares.
  nodeModule.enableCompileCache(process.env.NODE_COMPILE_CACHE ?? fileURLToPath(new URL('../node_modules/.cache/node-compile-cache', import.meta.url)));
  // Installed as a package (below node_modules), where Node refuses to strip types: the CLI bundled
  // at pack time (scripts/prepare.js). In a checkout: the sources, so an edit runs at once.
  const { main } = installed ? await import('../dist/cli/main.js') : await import('../src/cli/main.ts');
  await main(process.argv);
}
