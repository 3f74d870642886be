import { readFileSync } from 'node:fs';

/** The seed documents live beside the repository, in ../shared/spec. */
export const SPEC_DIR = new URL('../../../shared/spec/', import.meta.url);

export function normalizedSpec(document: string): string {
  return readFileSync(new URL(document, SPEC_DIR), 'utf8').replace(/\s+/g, ' ');
}
