import { expectationOf, sentOf } from './src/checks/generated/expectation.ts';
const cred = { name: 'primary', token: 't' } as any;
const body = { action_digest: 'dg', decision: 'approved' };
console.log(JSON.stringify(expectationOf(sentOf({ method: 'POST', path: '/v1/runs/run_1/approve', credential: cred, json: body }), { existing: [], parked: ['run_1'], bases: { 'v1.approve': body } })));
console.log(JSON.stringify(expectationOf(sentOf({ method: 'POST', path: '/v1/webhooks', credential: cred, json: { url: 'https://x.example/h' } }), { existing: [], parked: [], bases: { 'v1.webhooks': { url: 'https://x.example/h' } }, publicReceiverUrl: 'https://x.example/h' })));
