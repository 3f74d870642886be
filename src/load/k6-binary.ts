/** Finding k6: K6_BINARY, else the PATH; and refusing one too old for the bundles. */
import { execFile } from 'node:child_process';
import { findProgram, isExecutable } from '../util/executable.ts';

export const MIN_K6_VERSION = [0, 48, 0] as const;

export const GET_K6 = 'install k6 v0.48 or later (https://grafana.com/docs/k6/latest/set-up/install-k6/) and put it on PATH, or set K6_BINARY=/path/to/k6';

export class K6Missing extends Error {}

export async function findK6(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const explicit = env.K6_BINARY;
  if (explicit) {
    if (await isExecutable(explicit)) return explicit;
    throw new K6Missing(`K6_BINARY=${explicit} is not an executable file: ${GET_K6}`);
  }
  const found = await findProgram('k6', env);
  if (found) return found;
  throw new K6Missing(`no k6 found on PATH: ${GET_K6}`);
}

/** Parses `k6 version` output ("k6 v0.48.0 (go1.21.4, linux/amd64)"). */
export function parseK6Version(output: string): [number, number, number] | undefined {
  const m = /\bv?(\d+)\.(\d+)\.(\d+)/.exec(output);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

export function oldEnough(version: readonly number[]): boolean {
  for (let i = 0; i < 3; i += 1) if (version[i]! !== MIN_K6_VERSION[i]) return version[i]! > MIN_K6_VERSION[i]!;
  return true;
}

export async function checkK6Version(binary: string): Promise<string> {
  const output = await new Promise<string>((resolve, reject) =>
    execFile(binary, ['version'], { timeout: 10_000 }, (error, stdout) => (error ? reject(new K6Missing(`${binary} version failed (${error.message}): ${GET_K6}`)) : resolve(stdout))),
  );
  const version = parseK6Version(output);
  if (!version) throw new K6Missing(`cannot read the version of ${binary} ("${output.trim().slice(0, 80)}"): ${GET_K6}`);
  if (!oldEnough(version)) throw new K6Missing(`${binary} is k6 v${version.join('.')}, older than v${MIN_K6_VERSION.join('.')}: ${GET_K6}`);
  return `v${version.join('.')}`;
}
