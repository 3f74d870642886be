import { startFake } from '../src/fake/server.ts';
import { recordInChromium } from '../suites/passive/browser-har.ts';
const fake = await startFake();
try {
  for (const o of [{ content: 'embed', mode: 'full' }, { content: 'omit', mode: 'full' }, { content: 'embed', mode: 'minimal' }] as const) {
    const r = await recordInChromium(fake, o);
    console.log(o, r.file, r.log);
  }
} finally { await fake.close(); }
