import { FAULTS } from './src/fake/faults/index.ts';
import { certify } from './src/runner/certify.ts';
const mine = FAULTS.filter((f) => f.id.includes('.contract.generated.')).map((f) => f.id);
let next = 0;
async function worker() {
  while (next < mine.length) {
    const id = mine[next++]!;
    const { results } = await certify({ faults: [id as never], seed: 11 });
    const failing = results.filter((r) => r.verdict === 'fail' || r.verdict === 'inconclusive').map((r) => `${r.rule.id}:${r.verdict}`);
    console.log(id, '=>', failing.join(', '));
  }
}
await Promise.all([worker(), worker(), worker()]);
