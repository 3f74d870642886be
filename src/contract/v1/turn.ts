/** Resources: the turn request body (AiPlatformChatRequestV1) and the objects it nests; every object is closed. */
import { z } from 'zod';
import { identifier } from './common.ts';

/** Every bound the Resources section gives, named once so the fake, the checks and the generators agree. */
export const TURN_BOUNDS = {
  messages: { min: 1, max: 512 },
  parts: { min: 1, max: 64 },
  text: { min: 1, max: 200_000 },
  identifier: { min: 1, max: 128 },
  mediaType: { min: 1, max: 128 },
  fileName: { min: 1, max: 255 },
  clientName: { min: 1, max: 128 },
  clientVersion: { min: 1, max: 64 },
  capabilities: { max: 64, itemMin: 1, itemMax: 96 },
  toolList: { max: 256, itemMin: 1, itemMax: 128 },
  approvals: { max: 64 },
  receipt: { min: 16, max: 4096 },
  modelPreference: { min: 1, max: 128 },
  timeoutMs: { min: 1000, max: 120_000 },
  metadata: { keys: 32, keyMin: 1, keyMax: 64, valueMax: 512 },
} as const;

const B = TURN_BOUNDS;

export const CLIENT_KINDS = ['expo', 'web', 'nextjs', 'macos', 'ide', 'cli', 'backend', 'external'] as const;

/** "MetadataValue | string (max 512 chars), number, boolean or null" */
export const metadataValue = z.union([z.string().max(B.metadata.valueMax), z.number(), z.boolean(), z.null()]);

/** "Metadata | object | at most 32 keys; each key 1-64 chars; values are MetadataValue" */
export const metadata = z
  .record(z.string().min(B.metadata.keyMin).max(B.metadata.keyMax), metadataValue)
  .refine((m) => Object.keys(m).length <= B.metadata.keys, `at most ${B.metadata.keys} keys`);

export const clientInfo = z.strictObject({
  kind: z.enum(CLIENT_KINDS),
  name: z.string().min(B.clientName.min).max(B.clientName.max),
  version: z.string().min(B.clientVersion.min).max(B.clientVersion.max),
  capabilities: z.array(z.string().min(B.capabilities.itemMin).max(B.capabilities.itemMax)).max(B.capabilities.max).optional(),
});

export const textPart = z.strictObject({
  type: z.literal('text'),
  text: z.string().min(B.text.min).max(B.text.max),
});

export const fileReferencePart = z.strictObject({
  type: z.literal('file_reference'),
  fileId: identifier,
  mediaType: z.string().min(B.mediaType.min).max(B.mediaType.max),
  name: z.string().min(B.fileName.min).max(B.fileName.max).optional(),
});

export const messagePart = z.discriminatedUnion('type', [textPart, fileReferencePart]);

export const message = z.strictObject({
  id: identifier,
  role: z.enum(['user', 'assistant']),
  parts: z.array(messagePart).min(B.parts.min).max(B.parts.max),
});

const toolName = z.string().min(B.toolList.itemMin).max(B.toolList.itemMax);
export const toolsFilter = z.strictObject({
  allow: z.array(toolName).max(B.toolList.max).optional(),
  deny: z.array(toolName).max(B.toolList.max).optional(),
});

export const approvalReceipt = z.strictObject({
  approvalId: identifier,
  receipt: z.string().min(B.receipt.min).max(B.receipt.max),
});

const policyMode = z.enum(['inherit', 'allow', 'deny']);
export const memoryPolicy = z.strictObject({ read: policyMode.optional(), write: policyMode.optional() });
export const outputPolicy = z.strictObject({ mode: z.enum(['text', 'structured', 'ui']).optional(), schemaId: identifier.optional() });

export const turnRequest = z.strictObject({
  apiVersion: z.literal('v1'),
  requestId: identifier,
  sessionId: identifier.optional(),
  conversationId: identifier.optional(),
  organizationId: identifier.optional(),
  client: clientInfo,
  messages: z.array(message).min(B.messages.min).max(B.messages.max),
  modelPreference: z.string().min(B.modelPreference.min).max(B.modelPreference.max).optional(),
  tools: toolsFilter.optional(),
  approvals: z.array(approvalReceipt).max(B.approvals.max).optional(),
  memory: memoryPolicy.optional(),
  output: outputPolicy.optional(),
  stream: z.literal(true).optional(),
  timeoutMs: z.number().int().min(B.timeoutMs.min).max(B.timeoutMs.max).optional(),
  idempotencyKey: identifier.optional(),
  trace: metadata.optional(),
});
export type TurnRequest = z.infer<typeof turnRequest>;
