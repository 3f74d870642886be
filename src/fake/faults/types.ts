export interface FaultDefinition {
  /** `<rule id>/<what breaks>`: the part before the slash is the one rule this fault must make fail. */
  id: string;
  description: string;
  /**
   * Rules this fault must also fail, and why it cannot be helped: only where one rule is a
   * narrowing of another (the gateway's GET 405 of MCP's "SSE stream or 405").
   */
  alsoBreaks?: { rules: readonly string[]; why: string };
}

export function ruleOfFault(faultId: string): string {
  return faultId.split('/')[0]!;
}
