#!/usr/bin/env node
// Launcher: apicert is TypeScript run by Node's own type stripping. When started by a Node older
// than 22.12, re-run with the Node 24 the project pins as a devDependency.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';

/**
 * Runs apicert in a child Node and stays its stand-in: signals sent to this process (kill PID,
 * Ctrl-C, a CI cancelling the step) reach the child, and this process exits as the child did.
 * The child knows our PID (APICERT_LAUNCHER_PID) so a long-running command can stop when we are gone.
 */
function relaunch(node, args) {
  const child = spawn(node, args, { stdio: 'inherit', env: { ...process.env, APICERT_LAUNCHER_PID: String(process.pid) } });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  // Under npx the shell between npm and us dies of a SIGTERM without passing it on: our parent
  // changing is then the only sign that we were told to stop.
  if (process.env.npm_command) {
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) child.kill('SIGTERM');
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

const [major, minor] = process.versions.node.split('.').map(Number);
const self = fileURLToPath(import.meta.url);
if (major < 22 || (major === 22 && minor < 12)) {
  const pinned = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
  if (!existsSync(pinned)) {
    console.error(`apicert needs Node >= 22.12 (this is ${process.version}); run "npm ci" to install the pinned Node 24, or upgrade Node.`);
    process.exit(2);
  }
  relaunch(pinned, ['--max-semi-space-size=2', self, ...process.argv.slice(2)]);
} else if (major === 22 && minor < 18 && !process.execArgv.includes('--experimental-strip-types')) {
  // Type stripping is on by default from 22.18; before that it takes a flag.
  relaunch(process.execPath, ['--experimental-strip-types', '--no-warnings', '--max-semi-space-size=2', self, ...process.argv.slice(2)]);
} else if (!process.execArgv.some((a) => a.startsWith('--max-semi-space-size'))) {
  // A small young generation keeps the peak resident set about 60 MiB lower on long runs against
  // targets that churn large bodies; V8 takes the flag only at start, so apicert runs in a child.
  relaunch(process.execPath, [...process.execArgv, '--max-semi-space-size=2', self, ...process.argv.slice(2)]);
} else {
  const { main } = await import('../src/cli/main.ts');
  await main(process.argv);
}
