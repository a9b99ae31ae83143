/**
 * `--profile` for the Chromium benches: a CPU profile of the page (Chrome DevTools protocol) around one
 * phase, written to test-output/<name>.cpuprofile (open it in DevTools' Performance panel) and summed up
 * here by self time, so a bench run names where its time goes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
import { root } from '../browser/serve.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface Profiler {
  start(): Promise<void>;
  /** Stops, writes the profile, and answers its summary lines. */
  stop(name: string): Promise<string[]>;
}

export async function pageProfiler(page: Page): Promise<Profiler> {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  return {
    start: async () => void (await cdp.send('Profiler.start')),
    async stop(name) {
      const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
      const dir = join(root, 'test-output');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${name}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      return [`profile of ${name} (${file.slice(root.length)}):`, ...summarize(profile)];
    },
  };
}

/** The functions with the most self time, and how the total splits between JS, idle and the engine. */
function summarize(profile: Profile, top = 15): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    total += dt;
    const f = byId.get(id)!.callFrame;
    const where = f.url
      ? `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\//, '')}:${f.lineNumber + 1}`
      : f.functionName;
    self.set(where, (self.get(where) ?? 0) + dt);
  });
  const ms = (us: number) => `${(us / 1000).toFixed(0)} ms`;
  const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `  total ${ms(total)}; by self time:`,
    ...rows.map(([k, v]) => `  ${ms(v).padStart(8)} ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`),
  ];
}
