/**
 * Generators for turn request bodies: valid ones inside every bound of the Resources section, and
 * each valid body broken at exactly one boundary (or given one extra property).
 */
import fc from 'fast-check';
import { CLIENT_KINDS, TURN_BOUNDS as B } from '../../../contract/v1/turn.ts';

type Body = Record<string, unknown>;

export interface TurnCase {
  body: Body;
  valid: boolean;
  why: string;
  /** Dot path of the broken field (for invalid cases), to see whether fieldErrors name it. */
  field?: string;
}

const ALNUM = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'];
const ID_REST = [...ALNUM, '.', '_', ':', '-'];

const identifierArb = fc
  .tuple(fc.constantFrom(...ALNUM), fc.string({ unit: fc.constantFrom(...ID_REST), maxLength: 24 }))
  .map(([head, rest]) => head + rest);
const text = (min: number, max: number) => fc.string({ minLength: min, maxLength: max });

const textPart = fc.record({ type: fc.constant('text'), text: text(1, 60) });
const filePart = fc.record(
  { type: fc.constant('file_reference'), fileId: identifierArb, mediaType: text(1, 40), name: text(1, 40) },
  { requiredKeys: ['type', 'fileId', 'mediaType'] },
);
const message = fc.record({
  id: identifierArb,
  role: fc.constantFrom('user', 'assistant'),
  parts: fc.array(fc.oneof(textPart, filePart), { minLength: 1, maxLength: 4 }),
});
const toolNames = fc.array(text(1, 40), { maxLength: 6 });
const metadataArb = fc.dictionary(
  fc.string({ unit: fc.constantFrom(...ID_REST), minLength: 1, maxLength: 64 }),
  fc.oneof(text(0, 60), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null)),
  { maxKeys: 8 },
);

export const validTurnBody: fc.Arbitrary<Body> = fc.record(
  {
    apiVersion: fc.constant('v1'),
    requestId: identifierArb,
    sessionId: identifierArb,
    conversationId: identifierArb,
    organizationId: identifierArb,
    client: fc.record(
      { kind: fc.constantFrom(...CLIENT_KINDS), name: text(1, 40), version: text(1, 20), capabilities: fc.array(text(1, 30), { maxLength: 5 }) },
      { requiredKeys: ['kind', 'name', 'version'] },
    ),
    messages: fc.array(message, { minLength: 1, maxLength: 4 }),
    modelPreference: text(1, 40),
    tools: fc.record({ allow: toolNames, deny: toolNames }, { requiredKeys: [] }),
    approvals: fc.array(fc.record({ approvalId: identifierArb, receipt: text(B.receipt.min, 64) }), { maxLength: 3 }),
    memory: fc.record({ read: fc.constantFrom('inherit', 'allow', 'deny'), write: fc.constantFrom('inherit', 'allow', 'deny') }, { requiredKeys: [] }),
    output: fc.record({ mode: fc.constantFrom('text', 'structured', 'ui'), schemaId: identifierArb }, { requiredKeys: [] }),
    stream: fc.constant(true),
    timeoutMs: fc.integer({ min: B.timeoutMs.min, max: B.timeoutMs.max }),
    trace: metadataArb,
  },
  { requiredKeys: ['apiVersion', 'requestId', 'client', 'messages'] },
);

// ---- bodies at the edge of every bound: all must be admitted ----

const minimal = (): Body => ({
  apiVersion: 'v1',
  requestId: 'r',
  client: { kind: 'backend', name: 'n', version: '1' },
  messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text: 'x' }] }],
});

const many = <T>(count: number, make: (i: number) => T): T[] => Array.from({ length: count }, (_, i) => make(i));
const chars = (count: number, c = 'a') => c.repeat(count);

export function boundaryBodies(): TurnCase[] {
  const longId = `R${chars(B.identifier.max - 1, '9')}`;
  return [
    { body: minimal(), valid: true, why: 'every field at its minimum' },
    {
      body: { ...minimal(), messages: many(B.messages.max, (i) => ({ id: `m${i}`, role: i % 2 ? 'assistant' : 'user', parts: [{ type: 'text', text: 'x' }] })) },
      valid: true,
      why: `${B.messages.max} messages`,
    },
    {
      body: {
        ...minimal(),
        messages: [
          {
            id: longId,
            role: 'user',
            parts: [
              { type: 'text', text: chars(B.text.max) },
              ...many(B.parts.max - 2, () => ({ type: 'text', text: 'x' })),
              { type: 'file_reference', fileId: longId, mediaType: chars(B.mediaType.max), name: chars(B.fileName.max) },
            ],
          },
        ],
      },
      valid: true,
      why: `${B.parts.max} parts, a ${B.text.max}-character text, a file reference at its maxima`,
    },
    {
      body: {
        ...minimal(),
        requestId: longId,
        sessionId: longId,
        conversationId: 'c.o_n:v-1',
        organizationId: '0',
        client: { kind: 'external', name: chars(B.clientName.max), version: chars(B.clientVersion.max), capabilities: many(B.capabilities.max, (i) => `${i}`.padEnd(B.capabilities.itemMax, 'c')) },
        modelPreference: chars(B.modelPreference.max),
        tools: { allow: many(B.toolList.max, (i) => `${i}`.padEnd(B.toolList.itemMax, 't')), deny: many(B.toolList.max, (i) => `d${i}`) },
        approvals: many(B.approvals.max, (i) => ({ approvalId: `appr-${i}`, receipt: i % 2 ? chars(B.receipt.min, 'r') : chars(B.receipt.max, 'r') })),
        memory: { read: 'deny', write: 'allow' },
        output: { mode: 'structured', schemaId: 'schema.v1' },
        stream: true,
        timeoutMs: B.timeoutMs.max,
        trace: Object.fromEntries(many(B.metadata.keys, (i) => [`${i}`.padEnd(B.metadata.keyMax, 'k'), [chars(B.metadata.valueMax, 'v'), 1.5, false, null][i % 4]])),
      },
      valid: true,
      why: 'every list, string and metadata bound at its maximum',
    },
    { body: { ...minimal(), timeoutMs: B.timeoutMs.min, output: {}, memory: {}, tools: {}, approvals: [], trace: {} }, valid: true, why: 'timeoutMs 1000 and empty optional objects' },
  ];
}

// ---- one break each ----

interface Break {
  why: string;
  field: string;
  apply: (body: Body) => void;
}

const firstMessage = (b: Body) => (b.messages as Body[])[0]!;
const setParts = (b: Body, parts: unknown[]) => {
  firstMessage(b).parts = parts;
};
const client = (b: Body) => b.client as Body;
const file = (extra: Body = {}): Body => ({ type: 'file_reference', fileId: 'file-1', mediaType: 'text/plain', ...extra });

const BREAKS: Break[] = [
  { why: 'apiVersion "v2"', field: 'apiVersion', apply: (b) => void (b.apiVersion = 'v2') },
  { why: 'apiVersion missing', field: 'apiVersion', apply: (b) => void delete b.apiVersion },
  { why: 'requestId empty', field: 'requestId', apply: (b) => void (b.requestId = '') },
  { why: 'requestId of 129 characters', field: 'requestId', apply: (b) => void (b.requestId = chars(129, 'r')) },
  { why: 'requestId starting with "-"', field: 'requestId', apply: (b) => void (b.requestId = '-abc') },
  { why: 'requestId containing "/"', field: 'requestId', apply: (b) => void (b.requestId = 'abc/def') },
  { why: 'requestId missing', field: 'requestId', apply: (b) => void delete b.requestId },
  { why: 'sessionId with a space', field: 'sessionId', apply: (b) => void (b.sessionId = 'a b') },
  { why: 'conversationId of 129 characters', field: 'conversationId', apply: (b) => void (b.conversationId = chars(129, 'c')) },
  { why: 'organizationId empty', field: 'organizationId', apply: (b) => void (b.organizationId = '') },
  { why: 'client missing', field: 'client', apply: (b) => void delete b.client },
  { why: 'client.kind "android"', field: 'client.kind', apply: (b) => void (client(b).kind = 'android') },
  { why: 'client.name empty', field: 'client.name', apply: (b) => void (client(b).name = '') },
  { why: 'client.name of 129 characters', field: 'client.name', apply: (b) => void (client(b).name = chars(129)) },
  { why: 'client.version of 65 characters', field: 'client.version', apply: (b) => void (client(b).version = chars(65)) },
  { why: '65 capabilities', field: 'client.capabilities', apply: (b) => void (client(b).capabilities = many(65, (i) => `cap${i}`)) },
  { why: 'a capability of 97 characters', field: 'client.capabilities.0', apply: (b) => void (client(b).capabilities = [chars(97)]) },
  { why: 'an empty capability', field: 'client.capabilities.0', apply: (b) => void (client(b).capabilities = ['']) },
  { why: 'messages missing', field: 'messages', apply: (b) => void delete b.messages },
  { why: 'no messages', field: 'messages', apply: (b) => void (b.messages = []) },
  { why: '513 messages', field: 'messages', apply: (b) => void (b.messages = many(513, (i) => ({ id: `m${i}`, role: 'user', parts: [{ type: 'text', text: 'x' }] }))) },
  { why: 'role "system"', field: 'messages.0.role', apply: (b) => void (firstMessage(b).role = 'system') },
  { why: 'message id empty', field: 'messages.0.id', apply: (b) => void (firstMessage(b).id = '') },
  { why: 'no parts', field: 'messages.0.parts', apply: (b) => setParts(b, []) },
  { why: '65 parts', field: 'messages.0.parts', apply: (b) => setParts(b, many(65, () => ({ type: 'text', text: 'x' }))) },
  { why: 'an empty text', field: 'messages.0.parts.0.text', apply: (b) => setParts(b, [{ type: 'text', text: '' }]) },
  { why: 'a text of 200001 characters', field: 'messages.0.parts.0.text', apply: (b) => setParts(b, [{ type: 'text', text: chars(B.text.max + 1) }]) },
  { why: 'part type "image"', field: 'messages.0.parts.0.type', apply: (b) => setParts(b, [{ type: 'image', url: 'https://example.invalid/x.png' }]) },
  { why: 'a text part without text', field: 'messages.0.parts.0.text', apply: (b) => setParts(b, [{ type: 'text' }]) },
  { why: 'fileId with a space', field: 'messages.0.parts.0.fileId', apply: (b) => setParts(b, [file({ fileId: 'file 1' })]) },
  { why: 'mediaType of 129 characters', field: 'messages.0.parts.0.mediaType', apply: (b) => setParts(b, [file({ mediaType: chars(129) })]) },
  { why: 'file name of 256 characters', field: 'messages.0.parts.0.name', apply: (b) => setParts(b, [file({ name: chars(256) })]) },
  { why: 'file reference without mediaType', field: 'messages.0.parts.0.mediaType', apply: (b) => setParts(b, [{ type: 'file_reference', fileId: 'f' }]) },
  { why: 'modelPreference empty', field: 'modelPreference', apply: (b) => void (b.modelPreference = '') },
  { why: 'modelPreference of 129 characters', field: 'modelPreference', apply: (b) => void (b.modelPreference = chars(129)) },
  { why: '257 allowed tools', field: 'tools.allow', apply: (b) => void (b.tools = { allow: many(257, (i) => `tool${i}`) }) },
  { why: 'a denied tool of 129 characters', field: 'tools.deny.0', apply: (b) => void (b.tools = { deny: [chars(129)] }) },
  { why: '65 approvals', field: 'approvals', apply: (b) => void (b.approvals = many(65, (i) => ({ approvalId: `a${i}`, receipt: chars(16) }))) },
  { why: 'a receipt of 15 characters', field: 'approvals.0.receipt', apply: (b) => void (b.approvals = [{ approvalId: 'a1', receipt: chars(15) }]) },
  { why: 'a receipt of 4097 characters', field: 'approvals.0.receipt', apply: (b) => void (b.approvals = [{ approvalId: 'a1', receipt: chars(4097) }]) },
  { why: 'an approval without approvalId', field: 'approvals.0.approvalId', apply: (b) => void (b.approvals = [{ receipt: chars(16) }]) },
  { why: 'memory.read "always"', field: 'memory.read', apply: (b) => void (b.memory = { read: 'always' }) },
  { why: 'output.mode "html"', field: 'output.mode', apply: (b) => void (b.output = { mode: 'html' }) },
  { why: 'output.schemaId with "/"', field: 'output.schemaId', apply: (b) => void (b.output = { schemaId: 'a/b' }) },
  { why: 'stream false', field: 'stream', apply: (b) => void (b.stream = false) },
  { why: 'timeoutMs 999', field: 'timeoutMs', apply: (b) => void (b.timeoutMs = 999) },
  { why: 'timeoutMs 120001', field: 'timeoutMs', apply: (b) => void (b.timeoutMs = 120_001) },
  { why: 'timeoutMs 1500.5', field: 'timeoutMs', apply: (b) => void (b.timeoutMs = 1500.5) },
  { why: 'timeoutMs "5000"', field: 'timeoutMs', apply: (b) => void (b.timeoutMs = '5000') },
  { why: 'idempotencyKey with a space', field: 'idempotencyKey', apply: (b) => void (b.idempotencyKey = 'a b') },
  { why: 'trace with 33 keys', field: 'trace', apply: (b) => void (b.trace = Object.fromEntries(many(33, (i) => [`k${i}`, i]))) },
  { why: 'trace key empty', field: 'trace', apply: (b) => void (b.trace = { '': 1 }) },
  { why: 'trace key of 65 characters', field: 'trace', apply: (b) => void (b.trace = { [chars(65, 'k')]: 1 }) },
  { why: 'trace value of 513 characters', field: 'trace', apply: (b) => void (b.trace = { k: chars(513) }) },
  { why: 'trace value an object', field: 'trace.k', apply: (b) => void (b.trace = { k: { nested: true } }) },
  { why: 'trace value an array', field: 'trace.k', apply: (b) => void (b.trace = { k: [1] }) },
  // One extra property, at each closed object.
  { why: 'an extra property at the root', field: 'apicertExtra', apply: (b) => void (b.apicertExtra = 1) },
  { why: 'an extra property in client', field: 'client.apicertExtra', apply: (b) => void (client(b).apicertExtra = 1) },
  { why: 'an extra property in a message', field: 'messages.0.apicertExtra', apply: (b) => void (firstMessage(b).apicertExtra = 1) },
  { why: 'an extra property in a text part', field: 'messages.0.parts.0.apicertExtra', apply: (b) => setParts(b, [{ type: 'text', text: 'x', apicertExtra: 1 }]) },
  { why: 'an extra property in a file reference', field: 'messages.0.parts.0.apicertExtra', apply: (b) => setParts(b, [file({ apicertExtra: 1 })]) },
  { why: 'an extra property in tools', field: 'tools.apicertExtra', apply: (b) => void (b.tools = { allow: ['a'], apicertExtra: 1 }) },
  { why: 'an extra property in an approval', field: 'approvals.0.apicertExtra', apply: (b) => void (b.approvals = [{ approvalId: 'a', receipt: chars(16), apicertExtra: 1 }]) },
  { why: 'an extra property in memory', field: 'memory.apicertExtra', apply: (b) => void (b.memory = { read: 'allow', apicertExtra: 1 }) },
  { why: 'an extra property in output', field: 'output.apicertExtra', apply: (b) => void (b.output = { mode: 'text', apicertExtra: 1 }) },
];

function broken(base: Body, b: Break): TurnCase {
  const body = structuredClone(base);
  b.apply(body);
  return { body, valid: false, why: b.why, field: b.field };
}

/** Each break once on the minimal body: every boundary is tried whatever the seed. */
export function brokenExamples(): TurnCase[] {
  return BREAKS.map((b) => broken(minimal(), b));
}

export const turnCases: fc.Arbitrary<TurnCase> = fc.oneof(
  validTurnBody.map((body): TurnCase => ({ body, valid: true, why: 'every field in range' })),
  fc.tuple(validTurnBody, fc.constantFrom(...BREAKS)).map(([body, b]) => broken(body, b)),
);
