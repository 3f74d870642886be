#!/usr/bin/env node
// Launcher: apicert is TypeScript run by Node's own type stripping. When started by a Node older
// than 22.12, re-run with the Node 24 the project pins as a devDependency.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';

/**
 * Runs apicert in a child Node and behaves as that child: signals sent to the launcher reach the
 * child (which writes its partial report), and the launcher exits with the child's own code, or
 * 128 + the signal's number when the child was killed by one.
 */
function relaunch(node, args) {
  const child = spawn(node, args, { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  }
  child.on('error', (error) => {
    console.error(`apicert: cannot start ${node}: ${error.message}`);
    process.exit(2);
  });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 1)));
}

const self = fileURLToPath(import.meta.url);
const [major, minor] = process.versions.node.split('.').map(Number);
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
