import { z } from 'zod';
import { context, stated, type ConstraintKind } from '../marks.ts';
import { V8 } from '../sentence.ts';
import { timestamp } from './common.ts';

/** Every bound of "Memory query request" and "Limits", named once for the fake, the checks and the generators. */
export const MEMORY_BOUNDS = {
  compartment: { min: 1, max: 128 },
  purpose: { min: 1, max: 256 },
  queryText: { min: 1, max: 32768 },
  classes: { min: 1, max: 64 },
  className: { min: 1, max: 128 },
  limit: { min: 1, max: 50, default: 10 },
  maxContextBytes: { min: 64, max: 1048576 },
  maxContextTokens: { min: 16, max: 262144 },
  queryEmbedding: { min: 1, max: 4096 },
} as const;

const b = MEMORY_BOUNDS;

const MEMORY = 'Resources and their fields > Memory query request';
const row = <T extends z.ZodType>(schema: T, kinds: ConstraintKind[], text: string): T => stated(schema, kinds, V8(MEMORY, text));
const CLASSES = '| classes | array of string | yes | 1-64 unique items; each 1-128 chars |';
const EMBEDDING = '| queryEmbedding | array of number | no | 1-4096 items; when given, used instead of embedding `queryText` |';

export const memoryQueryRequest = stated(
  z.looseObject({
    // The compartment and purpose name what the principal may read: "purpose not permitted" is a 403.
    compartment: context(row(z.string().min(b.compartment.min).max(b.compartment.max), ['type', 'length'], '| compartment | string | yes | 1-128 chars |'), 'a compartment the deployment does not hold for the principal may be refused'),
    purpose: context(row(z.string().min(b.purpose.min).max(b.purpose.max), ['type', 'length'], '| purpose | string | yes | 1-256 chars |'), 'a purpose not permitted gives 403'),
    queryText: row(z.string().min(b.queryText.min).max(b.queryText.max), ['type', 'length'], '| queryText | string | yes | 1-32768 chars |'),
    // "1-64 unique items; each 1-128 chars"
    classes: row(
      z
        .array(row(z.string().min(b.className.min).max(b.className.max), ['type', 'length'], CLASSES))
        .min(b.classes.min)
        .max(b.classes.max)
        .refine((classes) => new Set(classes).size === classes.length, 'classes must be unique'),
      ['type', 'count', 'custom'],
      CLASSES,
    ),
    limit: row(z.number().int().min(b.limit.min).max(b.limit.max), ['type', 'integer', 'range'], '| limit | integer | no | 1-50; default 10 |').optional(),
    maxContextBytes: row(z.number().int().min(b.maxContextBytes.min).max(b.maxContextBytes.max), ['type', 'integer', 'range'], '| maxContextBytes | integer | no | 64-1048576 |').optional(),
    maxContextTokens: row(z.number().int().min(b.maxContextTokens.min).max(b.maxContextTokens.max), ['type', 'integer', 'range'], '| maxContextTokens | integer | no | 16-262144 |').optional(),
    queryEmbedding: row(z.array(row(z.number(), ['type'], EMBEDDING)).min(b.queryEmbedding.min).max(b.queryEmbedding.max), ['type', 'count'], EMBEDDING).optional(),
  }),
  ['required', 'type'],
  V8(MEMORY, '| compartment | string | yes | 1-128 chars | … | purpose | string | yes | 1-256 chars | … | queryText | string | yes | 1-32768 chars | … ' + CLASSES),
);
export type MemoryQueryRequest = z.infer<typeof memoryQueryRequest>;

/** "An entry carries `entryId` (string), `class` (string), `content` (string), `score` (number) and `createdAt` (timestamp)." */
export const memoryEntry = z.looseObject({
  entryId: z.string(),
  class: z.string(),
  content: z.string(),
  score: z.number(),
  createdAt: timestamp,
});
export type MemoryEntry = z.infer<typeof memoryEntry>;

export const memoryResponse = z.looseObject({
  entries: z.array(memoryEntry),
  totalContextBytes: z.number().int().nonnegative(),
  truncated: z.boolean(),
});
export type MemoryResponse = z.infer<typeof memoryResponse>;
