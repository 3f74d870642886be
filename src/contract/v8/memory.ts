import { z } from 'zod';
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

export const memoryQueryRequest = z.looseObject({
  compartment: z.string().min(b.compartment.min).max(b.compartment.max),
  purpose: z.string().min(b.purpose.min).max(b.purpose.max),
  queryText: z.string().min(b.queryText.min).max(b.queryText.max),
  // "1-64 unique items; each 1-128 chars"
  classes: z
    .array(z.string().min(b.className.min).max(b.className.max))
    .min(b.classes.min)
    .max(b.classes.max)
    .refine((classes) => new Set(classes).size === classes.length, 'classes must be unique'),
  limit: z.number().int().min(b.limit.min).max(b.limit.max).optional(),
  maxContextBytes: z.number().int().min(b.maxContextBytes.min).max(b.maxContextBytes.max).optional(),
  maxContextTokens: z.number().int().min(b.maxContextTokens.min).max(b.maxContextTokens.max).optional(),
  queryEmbedding: z.array(z.number()).min(b.queryEmbedding.min).max(b.queryEmbedding.max).optional(),
});
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
