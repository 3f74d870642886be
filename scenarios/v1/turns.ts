/** The turn body the checks send when the profile gives none: the smallest body the contract admits. */
export const minimalTurn = {
  apiVersion: 'v1',
  requestId: 'apicert-turn',
  client: { kind: 'backend', name: 'apicert', version: '0.1.0' },
  messages: [{ id: 'msg-1', role: 'user', parts: [{ type: 'text', text: 'Reply with one short sentence.' }] }],
} as const;
