/** `apicert coverage`: the traceability matrix of the seeds; exit 1 when a unit is unmapped. */
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { catalogueMarkdown, operatorsFromObservations } from '../coverage/catalogue.ts';
import { constraintsMarkdown, judgedFromObservations } from '../coverage/constraints.ts';
import { buildMatrix, matrixMarkdown } from '../coverage/matrix.ts';
import { UsageError } from './errors.ts';
import { EXIT } from './exit.ts';
import { nonBlank } from './options.ts';

export function registerCoverage(program: Command): void {
  program
    .command('coverage')
    .description('Print the traceability matrix: every normative unit of the seeds and the MCP 2025-03-26 transport and lifecycle pages, with the rules that judge it or why none can. Exits 1 when a unit is unmapped.')
    .option('--json', 'print the matrix as JSON (a `units` array; each entry carries `rules` and `reason`); not with --constraints')
    .option('--constraints', 'print instead the constraint coverage of the generated contract probes, per endpoint (every length, count, range, pattern, enum and closed object), then the probe catalogue\'s operators per endpoint, stated or open')
    .option('--report <report.json>', 'applies only with --constraints: mark what that run sent and judged', nonBlank('--report', 'the report.json a certify run wrote', 'to show the coverage without a run'))
    .action((opts: { json?: boolean; constraints?: boolean; report?: string }) => {
      // As every "applies only with" flag: refused, never quietly ignored (the matrix would look judged).
      if (opts.report !== undefined && !opts.constraints) throw new UsageError('--report applies only with --constraints');
      if (opts.json && opts.constraints) throw new UsageError('--json applies only without --constraints (the constraint coverage is Markdown only)');
      if (opts.constraints) {
        const observations = opts.report ? reportObservations(opts.report) : undefined;
        process.stdout.write(constraintsMarkdown(observations ? judgedFromObservations(observations) : undefined));
        process.stdout.write(catalogueMarkdown(observations ? operatorsFromObservations(observations) : undefined));
        return;
      }
      const matrix = buildMatrix();
      if (opts.json) console.log(JSON.stringify(matrix, null, 2));
      else process.stdout.write(matrixMarkdown(matrix));
      const broken = matrix.counts.unmapped > 0 || matrix.staleMappings.length > 0;
      if (broken && !opts.json) console.error(`apicert: ${matrix.counts.unmapped} unmapped units and ${matrix.staleMappings.length} stale mappings: map each in src/coverage/map.ts`);
      process.exitCode = broken ? EXIT.fail : EXIT.pass;
    });
}

function reportObservations(path: string): Array<{ ruleId: string; subject: string; value: unknown }> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    throw new UsageError(`${path} is not a readable report.json: pass the report.json a certify run wrote`);
  }
  const observations = (value as { observations?: unknown }).observations;
  if (!Array.isArray(observations)) throw new UsageError(`${path} is not an apicert report.json (no observations)`);
  return observations as Array<{ ruleId: string; subject: string; value: unknown }>;
}
