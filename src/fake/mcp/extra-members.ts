/**
 * Members MCP's open objects may carry beyond the ones the fake sends by default: `_meta` (reserved
 * "to attach additional metadata"), and a vendor member no revision defines. A reader that rejects
 * them over-assumes. Never used on the JSON-RPC envelope itself, whose members JSON-RPC 2.0 fixes.
 */
export function withExtraMembers<T extends Record<string, unknown>>(value: T, where: string): T & Record<string, unknown> {
  return { ...value, _meta: { 'apicert.dev/variant': 'extra-properties', where }, 'x-apicert-extension': { where, note: 'an unknown member a client must ignore' } };
}
