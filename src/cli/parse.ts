/** Option parsers shared by the commands; each rejects a bad value with a message saying what is expected. */
import { InvalidArgumentError } from 'commander';
import type { Surface } from '../rule/index.ts';
import { FAULTS, isFaultId, LOAD_FAULTS, type FaultId } from '../fake/faults/index.ts';
import { conflictsOf, isVariantId, VARIANTS, type VariantId } from '../fake/variants/index.ts';
import { didYouMean } from '../util/suggest.ts';
import { emptyValue, list } from './options.ts';

export const SURFACES: Surface[] = ['v8', 'v1', 'mcp'];

export function surfaceList(value: string): Surface[] {
  const out = list(value);
  if (out.length === 0) throw new InvalidArgumentError(`no surface given: use one or more of ${SURFACES.join(', ')}`);
  for (const s of out) if (!SURFACES.includes(s as Surface)) throw new InvalidArgumentError(`unknown surface "${s}": use ${SURFACES.join(', ')}`);
  return out as Surface[];
}

export function faultList(value: string): FaultId[] {
  const out = list(value);
  // As --variant: an empty list is a mistake (an unset variable), never a fake without faults asked for quietly.
  if (value.trim() === '') throw emptyValue('--faults', 'fault ids (run "apicert faults" for the list)', 'for a fake without faults');
  if (out.length === 0) throw new InvalidArgumentError('no fault given: run "apicert faults" for the list');
  for (const f of out) if (!isFaultId(f)) throw new InvalidArgumentError(`unknown fault "${f}"${didYouMean(f, [...FAULTS, ...LOAD_FAULTS].map((k) => k.id))}: run "apicert faults" for the list`);
  return out as FaultId[];
}

export function variantList(value: string): VariantId[] {
  const out = list(value);
  if (out.length === 0) throw new InvalidArgumentError('no variant given: run "apicert variants" for the list');
  for (const v of out) if (!isVariantId(v)) throw new InvalidArgumentError(`unknown variant "${v}"${didYouMean(v, VARIANTS.map((k) => k.id))}: run "apicert variants" for the list`);
  const conflict = conflictsOf(out as VariantId[]);
  if (conflict) throw new InvalidArgumentError(conflict);
  return out as VariantId[];
}

/** 0 to 65535 (0: a free port). */
export function portOf(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError('the port is an integer from 0 to 65535 (0 picks a free one)');
  return n;
}
