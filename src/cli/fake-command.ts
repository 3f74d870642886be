/** `apicert fake`: the reference fake in a process of its own, until SIGINT, SIGTERM or SIGHUP. */
import { Command, InvalidArgumentError } from 'commander';
import { readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import type { FaultId } from '../fake/faults/index.ts';
import type { VariantId } from '../fake/variants/index.ts';
import { startFake } from '../fake/server.ts';
import { freeLoopbackPort, parseReceiverAddress, standaloneProfile, type ReceiverAddress } from '../fake/standalone.ts';
import { README_SECTIONS } from './help.ts';
import { UsageError } from './errors.ts';
import { faultList, portOf, variantList } from './parse.ts';
import { nonBlank } from './options.ts';
import { makeFolder } from '../util/folder.ts';
import { isLoopbackUrl } from '../profile/load.ts';

interface FakeFlags {
  port: number;
  faults?: FaultId[];
  variant?: VariantId[];
  profileOut: string;
  webhookReceiver?: ReceiverAddress;
}

function receiverOf(value: string): ReceiverAddress {
  try {
    return parseReceiverAddress(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** Resolves on the first stop signal, or when the launcher that started this process is gone. */
function untilStopped(): Promise<NodeJS.Signals | 'parent-gone'> {
  return new Promise((resolve) => {
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    const done = (why: NodeJS.Signals | 'parent-gone') => {
      for (const s of signals) process.off(s, done);
      clearInterval(watch);
      resolve(why);
    };
    for (const s of signals) process.once(s, done);
    // bin/apicert.js forwards signals to us, but a SIGKILLed launcher cannot; and under npx the shell
    // between npm and us dies of a SIGTERM without passing it on. Either way our parent changes.
    const parent = Number(process.env.APICERT_LAUNCHER_PID) || (process.env.npm_command ? process.ppid : 0);
    const watch = setInterval(() => {
      if (parent && process.ppid !== parent) done('parent-gone');
    }, 500);
  });
}

/**
 * The origin of the fake whose profile `file` is, when something still listens there: that fake's
 * user may be certifying with the file. A profile whose fake has stopped (its tokens died with it)
 * is anyone's to replace, and so is a file that is no fake's profile, as before.
 */
async function liveFakeProfile(file: string): Promise<string | undefined> {
  let target: unknown;
  try {
    target = (JSON.parse(await readFile(file, 'utf8')) as { target?: unknown } | null)?.target;
  } catch {
    return undefined;
  }
  if (typeof target !== 'string' || !isLoopbackUrl(target)) return undefined;
  const url = new URL(target);
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) || 80 });
    const done = (listening: boolean) => {
      socket.destroy();
      resolve(listening ? url.origin : undefined);
    };
    socket.setTimeout(2_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export function fakeCommand(): Command {
  return new Command('fake')
    .description(`Serve the reference fake on loopback until stopped (Ctrl-C, SIGTERM), and write a profile for it; its tokens live only as long as this process (README.md, "${README_SECTIONS.fake}").`)
    .option('--port <n>', 'port to listen on (0 picks a free one)', portOf, 0)
    .option('--faults <ids>', 'switch on these faults (see "apicert faults")', faultList)
    .option('--variant <ids>', 'take these legal alternatives where the seeds or MCP leave a choice open (see "apicert variants")', variantList)
    .option('--profile-out <file>', 'where to write the profile, readable by you only', nonBlank('--profile-out', 'a file for the profile', 'to write reports/fake-profile.json'), 'reports/fake-profile.json')
    .option('--webhook-receiver <address>', 'PORT or 127.0.0.1:PORT where the certifying apicert will receive webhook deliveries; written into the profile (default: a free loopback port)', receiverOf)
    .action(async (flags: FakeFlags) => {
      // Before listening: a second fake started in the same folder must not take the first one's profile from its user.
      const live = await liveFakeProfile(flags.profileOut);
      if (live) throw new UsageError(`${flags.profileOut} is the profile of the apicert fake still listening on ${live}, which may be in use: give this fake another file with --profile-out FILE, or stop that one first`);
      const receiver = flags.webhookReceiver ?? parseReceiverAddress(String(await freeLoopbackPort()));
      const fake = await startFake({ port: flags.port, faults: flags.faults ?? [], variants: flags.variant ?? [] }).catch((error: unknown) => {
        const code = (error as { code?: string }).code;
        if (code === 'EADDRINUSE' || code === 'EACCES') throw new UsageError(`cannot listen on 127.0.0.1:${flags.port} (${code}): choose another --port, or 0 for a free one`);
        throw error;
      });
      const profile = standaloneProfile(fake, receiver);
      try {
        await makeFolder(dirname(flags.profileOut));
        // The tokens are the fake's own, but a token is never printed: it goes to a private file.
        await writeFile(flags.profileOut, `${JSON.stringify(profile, null, 2)}\n`, { mode: 0o600 });
      } catch (error) {
        // A fake nobody can certify (no profile) must not keep serving.
        await fake.close();
        const code = (error as NodeJS.ErrnoException).code;
        throw new UsageError(`cannot write the profile to ${flags.profileOut}${code ? ` (${code})` : ''}: choose a writable path with --profile-out`);
      }
      console.log(`apicert fake listening on ${fake.baseUrl}${flags.faults?.length ? ` with faults ${flags.faults.join(', ')}` : ''}${flags.variant?.length ? ` with variants ${flags.variant.join(', ')}` : ''} (pid ${process.pid}); webhooks go to ${receiver.origin}`);
      console.log(`profile with ${profile.credentials.length} credentials written to ${flags.profileOut}; certify it from another shell with:`);
      console.log(`  npx apicert certify --profile ${flags.profileOut}`);
      const why = await untilStopped();
      await fake.close();
      console.log(`apicert fake stopped (${why})`);
    });
}
