import { PassThrough } from 'node:stream';

/** A stream that says it is a terminal (or not), keeping what was written. */
export function stream(isTTY: boolean): NodeJS.WriteStream & { text(): string } {
  const s = new PassThrough() as unknown as NodeJS.WriteStream & { text(): string };
  const chunks: string[] = [];
  s.write = ((chunk: string) => chunks.push(String(chunk)) > 0) as NodeJS.WriteStream['write'];
  Object.assign(s, { isTTY, columns: 200, text: () => chunks.join('') });
  return s;
}
