export interface FaultDefinition {
  /** `<rule id>/<what breaks>`: the part before the slash is the one rule this fault must make fail. */
  id: string;
  description: string;
}

export function ruleOfFault(faultId: string): string {
  return faultId.split('/')[0]!;
}
