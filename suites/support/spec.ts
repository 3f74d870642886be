import { readFileSync } from 'node:fs';

/** The seed documents live in the project, in spec/ (copied from the steering repo's shared/spec). */
export const SPEC_DIR = new URL('../../spec/', import.meta.url);

export function normalizedSpec(document: string): string {
  return readFileSync(new URL(document, SPEC_DIR), 'utf8').replace(/\s+/g, ' ');
}
