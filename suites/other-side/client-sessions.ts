/** Client rules judged over hand-made logs, as judge-client judges what its front recorded. */
import type { Dispatcher } from 'undici';
import { afterAll, beforeAll } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { RequestBudget } from '../../src/probe/budget.ts';
import { createDispatcher, ProbeClient } from '../../src/probe/client.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { redactorFor } from '../../src/runner/certify.ts';
import { runRules } from '../../src/runner/run.ts';
import { CLIENT_RULES, CLIENT_SESSION, clientRules } from '../../src/client-judge/rules.ts';
import { recordBody, type ClientSession, type RecordedExchange } from '../../src/client-judge/session.ts';

type Fields = Omit<RecordedExchange, 'at' | 'headers' | 'body'> & { at?: number; headers?: Record<string, string>; body?: string };

/** An exchange as the front records it: the body's key and digests are taken from the whole body. */
export function recorded(partial: Fields): RecordedExchange {
  const { body = '', ...rest } = partial;
  return { at: partial.index * 1000, headers: {}, ...recordBody(body), ...rest };
}

export type SessionLog = Omit<ClientSession, 'timeScale' | 'ended' | 'exitCode'> & Partial<Pick<ClientSession, 'timeScale' | 'ended' | 'exitCode' | 'output'>>;

/** The verdicts of the rules of the session's scenario, by id (a client that exited 0 unless said otherwise). */
export async function judgeSession(fake: RunningFake, dispatcher: Dispatcher, session: SessionLog): Promise<Map<string, RuleResult>> {
  const profile = embeddedProfile(fake);
  const redactor = redactorFor(profile, CLIENT_RULES);
  const probe = new ProbeClient({ baseUrl: 'http://127.0.0.1:1', redactor, budget: new RequestBudget(1), timeoutMs: 1_000, streamTimeoutMs: 1_000, streamCloseGraceMs: 100, dispatcher });
  const rules = clientRules.filter((c) => c.scenario === session.scenario).map((c) => c.rule);
  const full: ClientSession = { timeScale: 1, ended: 'exit', exitCode: 0, ...session };
  const results = await runRules({ target: { baseUrl: 'http://127.0.0.1:1', kind: 'remote' }, profile, rules, seed: 1, probe, services: { redactor, provided: new Map([[CLIENT_SESSION.name, full]]) } });
  return new Map(results.map((r) => [r.rule.id, r]));
}

/** A judge of hand-made logs for a test file: the fake whose profile the rules read lives from its first test to its last. */
export function sessionJudge(): (session: SessionLog) => Promise<Map<string, RuleResult>> {
  let fake: RunningFake | undefined;
  const dispatcher = createDispatcher();
  beforeAll(async () => {
    fake = await startFake();
  });
  afterAll(async () => {
    await fake?.close();
    await dispatcher.close();
  });
  return (session) => judgeSession(fake!, dispatcher, session);
}
