import { z } from 'zod';

export interface FakeTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown> & { type: 'object' };
  arguments: z.ZodType<Record<string, unknown>>;
  run(args: Record<string, unknown>): string;
}

/** Side-effect free tools, so any client (and any check) may call them as often as it likes. */
export const FAKE_TOOLS: readonly FakeTool[] = [
  {
    name: 'echo',
    description: 'Returns the text it is given.',
    inputSchema: { type: 'object', properties: { text: { type: 'string', maxLength: 10_000 } }, required: ['text'] },
    arguments: z.strictObject({ text: z.string().max(10_000) }),
    run: (args) => String(args.text),
  },
  {
    name: 'add',
    description: 'Adds two numbers.',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    arguments: z.strictObject({ a: z.number(), b: z.number() }),
    run: (args) => String((args.a as number) + (args.b as number)),
  },
];

export function toolListing(): Array<Pick<FakeTool, 'name' | 'description' | 'inputSchema'>> {
  return FAKE_TOOLS.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
}
