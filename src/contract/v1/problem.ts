import { z } from 'zod';
import { problemType } from '../problem-type.ts';
import { identifier } from './common.ts';

export const ERROR_CODES = [
  'authentication_failed',
  'authorization_failed',
  'entitlement_failed',
  'rate_limited',
  'invalid_request',
  'provider_failed',
  'tool_failed',
  'tool_timed_out',
  'approval_timed_out',
  'memory_failed',
  'stream_interrupted',
  'cancelled',
  'conflict',
  'idempotency_replay',
  'internal_failed',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** "FieldError: `path` (string, 1-256), `code` (string, 1-96), `message` (string, 1-512), all required." */
export const fieldError = z.strictObject({
  path: z.string().min(1).max(256),
  code: z.string().min(1).max(96),
  message: z.string().min(1).max(512),
});
export type FieldError = z.infer<typeof fieldError>;

/** v1 errors: "No extra properties are allowed in Problem or FieldError." */
export const v1Problem = z.strictObject({
  type: problemType,
  title: z.string().min(1).max(256),
  status: z.number().int().min(400).max(599),
  detail: z.string().max(2048).optional(),
  instance: z.string().optional(),
  code: z.enum(ERROR_CODES),
  requestId: identifier.optional(),
  retryable: z.boolean(),
  retryAfterMs: z.number().int().min(0).optional(),
  fieldErrors: z.array(fieldError).max(64).optional(),
});
export type V1Problem = z.infer<typeof v1Problem>;
