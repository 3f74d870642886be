import { vi } from 'vitest';
import { main } from '../../src/cli/main.ts';

/** The CLI in this process (a child Node per call costs seconds): its exit code and what it printed. */
export async function apicert(...args: string[]): Promise<{ code: number | undefined; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (err.push(String(chunk)), true));
  process.exitCode = undefined;
  try {
    await main(['node', 'apicert', ...args]);
    return { code: typeof process.exitCode === 'number' ? process.exitCode : 0, out: out.join('\n'), err: err.join('\n') };
  } finally {
    process.exitCode = undefined;
    log.mockRestore();
    error.mockRestore();
    stderr.mockRestore();
  }
}

/** `apicert`, keeping every byte written to stdout and stderr too (progress lines, rendered reports), joined as written. */
export async function apicertWritten(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const spies = [
    vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void out.push(`${parts.join(' ')}\n`)),
    vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => void err.push(`${parts.join(' ')}\n`)),
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => out.push(String(chunk)) > 0),
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => err.push(String(chunk)) > 0),
  ];
  process.exitCode = undefined;
  try {
    await main(['node', 'apicert', ...args]);
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { code, out: out.join(''), err: err.join('') };
}
