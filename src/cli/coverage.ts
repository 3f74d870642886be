/** `apicert coverage`: the traceability matrix of the seeds; exit 1 when a unit is unmapped. */
import type { Command } from 'commander';
import { buildMatrix, matrixMarkdown } from '../coverage/matrix.ts';
import { EXIT } from './exit.ts';

export function registerCoverage(program: Command): void {
  program
    .command('coverage')
    .description('Print the traceability matrix: every normative unit of the seeds and the MCP 2025-03-26 transport and lifecycle pages, with the rules that judge it or why none can. Exits 1 when a unit is unmapped.')
    .option('--json', 'print JSON (a `units` array; each entry carries `rules` and `reason`)')
    .action((opts: { json?: boolean }) => {
      const matrix = buildMatrix();
      if (opts.json) console.log(JSON.stringify(matrix, null, 2));
      else process.stdout.write(matrixMarkdown(matrix));
      const broken = matrix.counts.unmapped > 0 || matrix.staleMappings.length > 0;
      if (broken && !opts.json) console.error(`apicert: ${matrix.counts.unmapped} unmapped units and ${matrix.staleMappings.length} stale mappings: map each in src/coverage/map.ts`);
      process.exitCode = broken ? EXIT.fail : EXIT.pass;
    });
}
