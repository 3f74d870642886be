/** Option parsers shared by the commands; each rejects a bad value with a message saying what is expected. */
import { InvalidArgumentError } from 'commander';
import type { Surface } from '../rule/index.ts';
import { isFaultId, type FaultId } from '../fake/faults/index.ts';

export const SURFACES: Surface[] = ['v8', 'v1', 'mcp'];

export function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function surfaceList(value: string): Surface[] {
  const out = list(value);
  for (const s of out) if (!SURFACES.includes(s as Surface)) throw new InvalidArgumentError(`unknown surface "${s}": use ${SURFACES.join(', ')}`);
  return out as Surface[];
}

export function faultList(value: string): FaultId[] {
  const out = list(value);
  for (const f of out) if (!isFaultId(f)) throw new InvalidArgumentError(`unknown fault "${f}": run "apicert faults" for the list`);
  return out as FaultId[];
}

/** 0 to 65535 (0: a free port). */
export function portOf(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError('a port is a number from 0 to 65535');
  return n;
}
