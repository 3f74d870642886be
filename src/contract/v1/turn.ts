/** Resources: the turn request body (AiPlatformChatRequestV1) and the objects it nests; every object is closed. */
import { z } from 'zod';
import { context, like, openWhen, stated, type ConstraintKind } from '../marks.ts';
import { V1 } from '../sentence.ts';
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

const PRIM = 'Resources and their fields > Shared primitives';
const CLIENT = 'Resources and their fields > ClientInfo (no extra properties)';
const PARTS = 'Resources and their fields > Message parts and messages (no extra properties)';
const NESTED = 'Resources and their fields > Other nested objects (no extra properties)';
const TURN = 'Resources and their fields > Turn request body (AiPlatformChatRequestV1; no extra properties)';
const say = <T extends z.ZodType>(section: string, schema: T, kinds: ConstraintKind[], ...rows: string[]): T => stated(schema, kinds, V1(section, rows.join(' … ')));
const closed = <T extends z.ZodType>(section: string, heading: string, schema: T, ...requiredRows: string[]): T =>
  say(section, say(section, schema, ['closed', 'type'], heading), ['required'], ...requiredRows);
const NAMES_STATE = 'it names deployment state the profile did not give: a deployment may refuse what it does not hold';

/** "MetadataValue | string (max 512 chars), number, boolean or null" */
const METADATA_VALUE = '| MetadataValue | string (max 512 chars), number, boolean or null | |';
export const metadataValue = say(PRIM, z.union([say(PRIM, z.string().max(B.metadata.valueMax), ['length'], METADATA_VALUE), z.number(), z.boolean(), z.null()]), ['type'], METADATA_VALUE);

/** "Metadata | object | at most 32 keys; each key 1-64 chars; values are MetadataValue" */
export const metadata = say(
  PRIM,
  z.record(z.string().min(B.metadata.keyMin).max(B.metadata.keyMax), metadataValue).refine((m) => Object.keys(m).length <= B.metadata.keys, `at most ${B.metadata.keys} keys`),
  ['type', 'length', 'custom'],
  '| Metadata | object | at most 32 keys; each key 1-64 chars; values are MetadataValue |',
);

const CAPABILITIES = '| capabilities | array of string | no | default empty; max 64 items; each 1-96 chars |';
export const clientInfo = closed(
  CLIENT,
  'ClientInfo (no extra properties)',
  z.strictObject({
    kind: say(PRIM, z.enum(CLIENT_KINDS), ['type', 'enum'], '| ClientKind | string enum | `expo`, `web`, `nextjs`, `macos`, `ide`, `cli`, `backend`, `external` |'),
    name: say(CLIENT, z.string().min(B.clientName.min).max(B.clientName.max), ['type', 'length'], '| name | string | yes | 1-128 chars |'),
    version: say(CLIENT, z.string().min(B.clientVersion.min).max(B.clientVersion.max), ['type', 'length'], '| version | string | yes | 1-64 chars |'),
    capabilities: say(CLIENT, z.array(say(CLIENT, z.string().min(B.capabilities.itemMin).max(B.capabilities.itemMax), ['type', 'length'], CAPABILITIES)).max(B.capabilities.max), ['type', 'count'], CAPABILITIES).optional(),
  }),
  '| kind | ClientKind | yes | |',
  '| name | string | yes | 1-128 chars |',
  '| version | string | yes | 1-64 chars |',
);

export const textPart = closed(
  PARTS,
  'Message parts and messages (no extra properties)',
  z.strictObject({
    type: z.literal('text'),
    text: say(PARTS, z.string().min(B.text.min).max(B.text.max), ['type', 'length'], '| TextPart | text | string | yes | 1-200000 chars |'),
  }),
  '| TextPart | type | const `text` | yes | |',
  '| TextPart | text | string | yes | 1-200000 chars |',
);

export const fileReferencePart = closed(
  PARTS,
  'Message parts and messages (no extra properties)',
  z.strictObject({
    type: z.literal('file_reference'),
    fileId: context(like(identifier), `a file id: ${NAMES_STATE}`),
    mediaType: say(PARTS, z.string().min(B.mediaType.min).max(B.mediaType.max), ['type', 'length'], '| FileReferencePart | mediaType | string | yes | 1-128 chars |'),
    name: say(PARTS, z.string().min(B.fileName.min).max(B.fileName.max), ['type', 'length'], '| FileReferencePart | name | string | no | 1-255 chars |').optional(),
  }),
  '| FileReferencePart | type | const `file_reference` | yes | |',
  '| FileReferencePart | fileId | Identifier | yes | |',
  '| FileReferencePart | mediaType | string | yes | 1-128 chars |',
);

const PARTS_ROW = '| Message | parts | array of TextPart or FileReferencePart, discriminated by `type` | yes | 1-64 items |';
export const messagePart = say(PARTS, z.discriminatedUnion('type', [textPart, fileReferencePart]), ['type', 'enum'], PARTS_ROW);

export const message = closed(
  PARTS,
  'Message parts and messages (no extra properties)',
  z.strictObject({
    id: identifier,
    role: say(PARTS, z.enum(['user', 'assistant']), ['type', 'enum'], '| Message | role | string | yes | `user` or `assistant` |'),
    parts: say(PARTS, z.array(messagePart).min(B.parts.min).max(B.parts.max), ['type', 'count'], PARTS_ROW),
  }),
  '| Message | id | Identifier | yes | |',
  '| Message | role | string | yes | `user` or `assistant` |',
  PARTS_ROW,
);

const TOOL_ROW = '| ToolsFilter | allow | array of string | max 256 items; each 1-128 chars |';
const toolName = context(say(NESTED, z.string().min(B.toolList.itemMin).max(B.toolList.itemMax), ['type', 'length'], TOOL_ROW), `a tool name: ${NAMES_STATE}`);
export const toolsFilter = say(
  NESTED,
  z.strictObject({
    allow: say(NESTED, z.array(toolName).max(B.toolList.max), ['type', 'count'], TOOL_ROW).optional(),
    deny: say(NESTED, z.array(toolName).max(B.toolList.max), ['type', 'count'], '| ToolsFilter | deny | array of string | default empty; max 256 items; each 1-128 chars |').optional(),
  }),
  ['closed', 'type'],
  'Other nested objects (no extra properties)',
);

export const approvalReceipt = context(
  closed(
    NESTED,
    'Other nested objects (no extra properties)',
    z.strictObject({
      approvalId: identifier,
      receipt: say(NESTED, z.string().min(B.receipt.min).max(B.receipt.max), ['type', 'length'], '| ApprovalReceipt | receipt | string (required) | 16-4096 chars |'),
    }),
    '| ApprovalReceipt | approvalId | Identifier (required) | |',
    '| ApprovalReceipt | receipt | string (required) | 16-4096 chars |',
  ),
  `an approval receipt: ${NAMES_STATE}`,
);

const MEMORY_ROW = '| MemoryPolicy | read | string | `inherit`, `allow`, `deny`; default `inherit` |';
const policyMode = say(NESTED, z.enum(['inherit', 'allow', 'deny']), ['type', 'enum'], MEMORY_ROW);
export const memoryPolicy = say(NESTED, z.strictObject({ read: policyMode.optional(), write: policyMode.optional() }), ['closed', 'type'], 'Other nested objects (no extra properties)');
export const outputPolicy = say(
  NESTED,
  z.strictObject({
    mode: say(NESTED, z.enum(['text', 'structured', 'ui']), ['type', 'enum'], '| OutputPolicy | mode | string | `text`, `structured`, `ui`; default `text` |').optional(),
    schemaId: context(like(identifier), `an output schema id: ${NAMES_STATE}`).optional(),
  }),
  ['closed', 'type'],
  'Other nested objects (no extra properties)',
);

/** Message ids identify messages: the same id twice may be refused. */
const messageIdsOnce = (value: unknown): string | undefined => {
  if (!Array.isArray(value)) return undefined;
  const ids = value.map((m) => (m !== null && typeof m === 'object' ? (m as { id?: unknown }).id : undefined)).filter((id) => id !== undefined);
  return new Set(ids).size < ids.length ? 'a message id used twice: a deployment may refuse it' : undefined;
};

export const turnRequest = closed(
  TURN,
  'Turn request body (AiPlatformChatRequestV1; no extra properties)',
  z.strictObject({
    apiVersion: say(TURN, z.literal('v1'), ['type', 'const'], '| apiVersion | const `v1` | yes | |'),
    requestId: identifier,
    sessionId: context(like(identifier), `a session id: ${NAMES_STATE}`).optional(),
    conversationId: context(like(identifier), `a conversation id: ${NAMES_STATE}`).optional(),
    organizationId: context(like(identifier), `an organization id: ${NAMES_STATE}`).optional(),
    client: clientInfo,
    messages: openWhen(say(TURN, z.array(message).min(B.messages.min).max(B.messages.max), ['type', 'count'], '| messages | array of Message | yes | 1-512 items |'), messageIdsOnce),
    modelPreference: context(say(TURN, z.string().min(B.modelPreference.min).max(B.modelPreference.max), ['type', 'length'], '| modelPreference | string | no | 1-128 chars |'), `a model: ${NAMES_STATE}`).optional(),
    tools: toolsFilter.optional(),
    approvals: say(TURN, z.array(approvalReceipt).max(B.approvals.max), ['type', 'count'], '| approvals | array of ApprovalReceipt | no | default empty; max 64 |').optional(),
    memory: memoryPolicy.optional(),
    output: outputPolicy.optional(),
    stream: say(TURN, z.literal(true), ['type', 'const'], '| stream | boolean, const `true` | no | default `true` |').optional(),
    timeoutMs: say(TURN, z.number().int().min(B.timeoutMs.min).max(B.timeoutMs.max), ['type', 'integer', 'range'], '| timeoutMs | integer (milliseconds) | no | 1000-120000 |').optional(),
    idempotencyKey: identifier.optional(),
    trace: metadata.optional(),
  }),
  '| apiVersion | const `v1` | yes | |',
  '| requestId | Identifier | yes | |',
  '| client | ClientInfo | yes | |',
  '| messages | array of Message | yes | 1-512 items |',
);
export type TurnRequest = z.infer<typeof turnRequest>;
