import { z } from 'zod';

/** "tools/call" params: the tool's name and its arguments. */
export const callToolParams = z.looseObject({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).optional(),
});
