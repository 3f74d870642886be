import { describe, expect, it, vi } from 'vitest';
import { RuleProgress } from '../../src/cli/progress.ts';
import { Ui, visibleControls } from '../../src/cli/output.ts';
import { RULES } from '../../src/registry.ts';
import { printResult } from '../../src/cli/side-report.ts';
import { recapReason } from '../../src/cli/certify-command.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { stream } from '../support/console-stream.ts';

/** What a hostile target put in an SSE id: cursor up, erase the line, a workflow command, an OSC title, a C1 CSI, a CR. */
const HOSTILE = 'SSE ids [\x1b[1A\x1b[2K::error::injected, \x1b]0;owned\x07, \x9b2J, a\rb, \x00\x7f]';

const failed = (reason: string): RuleResult => ({ rule: RULES[0]!, verdict: 'fail', reason, durationMs: 1, evidence: [], evidenceOmitted: 0, observations: [], cases: [], casesOmitted: 0, rolesRequested: [] });

describe("the console never passes a target's control characters on", () => {
  it('makes C0 and C1 controls, DEL and CR visible, and keeps tab and line feed', () => {
    expect(visibleControls(HOSTILE)).toBe('SSE ids [\\x1b[1A\\x1b[2K::error::injected, \\x1b]0;owned\\x07, \\x9b2J, a\\x0db, \\x00\\x7f]');
    expect(visibleControls('a\tb\nc')).toBe('a\tb\nc');
  });

  it('shows the controls of a reason visible in the lines judge-traffic, proxy, certify-receiver and judge-client print', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      printResult(failed(HOSTILE));
      expect(log).toHaveBeenCalledTimes(1);
      const line = String(log.mock.calls[0]![0]);
      expect(line).toContain('SSE ids [\\x1b[1A\\x1b[2K::error::injected');
      expect(line).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    } finally {
      log.mockRestore();
    }
  });

  for (const color of [false, true]) {
    it(`shows a failure reason with its controls visible, on a terminal and in a CI log (colour ${color ? 'on' : 'off'}), apicert's own colours kept`, () => {
      for (const isTTY of [true, false]) {
        const out = stream(isTTY);
        const err = stream(false);
        const ui = new Ui({ stdout: out, stderr: err, env: { ...(isTTY ? { TERM: 'xterm' } : { CI: '1' }), ...(color ? { FORCE_COLOR: '1' } : {}) }, color });
        const progress = new RuleProgress(ui, [], () => 0);
        progress.plan(RULES.slice(0, 1));
        progress.started(RULES[0]!);
        progress.finished(failed(HOSTILE));
        progress.end();
        ui.always(`recap: ${HOSTILE}`);
        ui.warn(`warning: ${HOSTILE}`);
        const printed = out.text() + err.text();
        expect(printed).toContain(`${RULES[0]!.id}: SSE ids [\\x1b[1A\\x1b[2K::error::injected, \\x1b]0;owned\\x07, \\x9b2J, a\\x0db, \\x00\\x7f]`);
        // What escape sequences are left are apicert's own: colours (SGR) and, on a terminal, its status line.
        const own = printed.replace(/\x1b\[[0-9;]*m/g, '').replaceAll('\r\x1b[2K', '');
        expect(own).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
        if (color) expect(printed).toMatch(/\x1b\[31m/);
        else expect(printed.replaceAll('\r\x1b[2K', '')).not.toContain('\x1b');
      }
    });
  }
});

describe('the recap line of a failing rule', () => {
  it('shows a long word (a 256-character id in a path) by its ends, so the reason after it stays on the line', () => {
    // v8 Fastify audit F9: the path filled the 200 characters and "refused as malformed with 414" was never shown.
    const id = `apicert-skill-${'y'.repeat(242)}`;
    const line = recapReason(`GET /v8/skills/${id}: refused as malformed with 414, expected 404\nmore`);
    expect(line).toContain('refused as malformed with 414, expected 404');
    expect(line).toContain('…(268 characters)…');
    expect(line.length).toBeLessThanOrEqual(200);
    expect(recapReason('a short reason')).toBe('a short reason');
  });
});
