/**
 * The `Reproduce:` line a check writes into a reason (a model rule's shrunk counterexample). The
 * check does not know how the run was started; the report does, and puts the run's own command
 * (its --profile or --target, its faults) in place of the bare one, so the line certifies the same
 * target again instead of the embedded fake.
 */
export function reproduceLine(ruleId: string, seed: number): string {
  return `Reproduce: apicert certify --rules ${ruleId} --seed ${seed}`;
}

const BARE = /Reproduce: apicert certify --rules (\S+) --seed (\d+)/g;

/** `text` with each bare reproduce line given the run's command (`rerun(ruleId, seed)`). */
export function withRunCommand(text: string, rerun: (ruleId: string, seed: number) => string): string {
  return text.replace(BARE, (_, id: string, seed: string) => `Reproduce: ${rerun(id, Number(seed))}`);
}
